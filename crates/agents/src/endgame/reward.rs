//! The study's position values; rewards are their differences between consecutive
//! white-to-move positions ("relative to the previous reward").

use serde::{Deserialize, Serialize};

/// The two readings of the study's mate branch, `x = (20 - m) / 10` for mate in `m`
/// moves (clamped to `m <= 20`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MateFormula {
    /// The equation: `(1 + 10 x^2)^2` (default).
    Equation,
    /// The prose: `(10 (1 + x^2))^2`.
    Prose,
}

/// Value of a white-to-move position from an engine's view: with a forced mate in
/// `mate_in` moves (positive: white mates) the mate branch, else
/// `sign * (eval / 20000 * 10)^2` of the centipawn `eval`.
pub fn engine_value(mate_in: Option<i32>, eval_centipawns: f64, formula: MateFormula) -> f64 {
    match mate_in {
        Some(m) => {
            let x = f64::from(20 - m.abs().min(20)) / 10.0;
            let magnitude = match formula {
                MateFormula::Equation => (1.0 + 10.0 * x * x).powi(2),
                MateFormula::Prose => (10.0 * (1.0 + x * x)).powi(2),
            };
            magnitude * f64::from(m.signum())
        }
        None => (eval_centipawns / 20000.0 * 10.0).powi(2) * eval_centipawns.signum(),
    }
}

/// The heuristic value `((7 + 63) - (king distance + region))^2 / 10`.
pub fn heuristic_value(king_distance: u32, region: u32) -> f64 {
    let v = 70.0 - f64::from(king_distance + region);
    v * v / 10.0
}

/// The reward of a mating move: `10000 / moves` (white's 1-based move number).
pub fn win_reward(moves: u32) -> f64 {
    10_000.0 / f64::from(moves.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_values_by_hand() {
        // Mate in 10: x = 1, equation (1 + 10)^2 = 121, prose (10 * 2)^2 = 400.
        assert_eq!(engine_value(Some(10), 0.0, MateFormula::Equation), 121.0);
        assert_eq!(engine_value(Some(10), 0.0, MateFormula::Prose), 400.0);
        // Mate in 1: x = 1.9 -> (1 + 36.1)^2.
        assert!((engine_value(Some(1), 0.0, MateFormula::Equation) - 37.1f64.powi(2)).abs() < 1e-9);
        // Beyond 20 moves x = 0: (1)^2 and (10)^2.
        assert_eq!(engine_value(Some(25), 0.0, MateFormula::Equation), 1.0);
        assert_eq!(
            engine_value(Some(-3), 0.0, MateFormula::Prose),
            -(10.0 * (1.0 + 2.89f64)).powi(2)
        );
        // Without mate: 2000 centipawns -> (1)^2.
        assert_eq!(engine_value(None, 2000.0, MateFormula::Equation), 1.0);
        assert_eq!(engine_value(None, -4000.0, MateFormula::Equation), -4.0);
    }

    #[test]
    fn heuristic_and_win_values_by_hand() {
        assert_eq!(heuristic_value(7, 63), 0.0);
        assert_eq!(heuristic_value(2, 8), 360.0);
        assert_eq!(win_reward(4), 2500.0);
    }
}
