//! `summary.json` of a queen4x4 run, and the study's reported numbers.

use burnmate_agents::luo::{TdAlgorithm, UpdateRule};
use burnmate_oracle::queen4x4::Queen4x4Optimum;
use serde::{Deserialize, Serialize};

use crate::run::metrics::TrainingStats;

/// Greedy-play results after training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    /// Games played.
    pub games: u64,
    /// Share of games mated.
    pub win_rate: f64,
    /// Share of games stalemated.
    pub draw_rate: f64,
    /// Share of games stopped by the move cap.
    pub capped_rate: f64,
    /// Mean white moves per game.
    pub mean_moves: f64,
}

/// A study's reported headline numbers.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reported {
    /// Mean reward over all training episodes.
    pub mean_reward: f64,
    /// Mean white moves per training episode, where reported.
    pub mean_moves: Option<f64>,
}

/// Everything a run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Always "queen4x4".
    pub study: String,
    /// TD algorithm.
    pub algorithm: TdAlgorithm,
    /// Update rule.
    pub update: UpdateRule,
    /// Training statistics.
    #[serde(flatten)]
    pub training: TrainingStats,
    /// Greedy play after training.
    pub eval: EvalReport,
    /// Exact optimum over the same start distribution.
    pub optimal: Queen4x4Optimum,
    /// The study's published numbers for this algorithm.
    pub study_reported: Option<Reported>,
}

/// The best possible (mean reward, mean moves) for `algorithm`'s reward: mate
/// probability and moves to mate, or for the impatient agent minus the fewest
/// expected moves to any end, and those moves.
pub fn optimal_reward_and_moves(algorithm: TdAlgorithm, optimum: &Queen4x4Optimum) -> (f64, f64) {
    match algorithm {
        TdAlgorithm::Impatient => (-optimum.fastest_end_moves, optimum.fastest_end_moves),
        _ => (optimum.win_rate, optimum.mean_moves),
    }
}

/// The study's reported numbers for `algorithm` (from `assets/`).
pub fn reported(algorithm: TdAlgorithm) -> Option<Reported> {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/queen4x4-reported.json")).ok()?;
    let key = serde_json::to_value(algorithm).ok()?;
    serde_json::from_value(table.get(key.as_str()?)?.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_numbers_are_read_from_assets() {
        let sarsa = reported(TdAlgorithm::Sarsa).unwrap();
        assert_eq!(sarsa.mean_reward, 0.92779);
        assert_eq!(sarsa.mean_moves, Some(3.54345));
        assert_eq!(reported(TdAlgorithm::Impatient).unwrap().mean_moves, None);
    }
}
