//! Exact optimum of the knight game: a deterministic finite-horizon problem over
//! (knight, king, moves used), solved by dynamic programming for the largest
//! cumulative reward. Checking in `d <= 9` moves earns `10 - (d - 1)`, more than any
//! loss, so the reward-optimal policy also has the best win rate.

use burnmate_env::environment::Outcome as _;
use std::collections::HashMap;

use burnmate_env::knight::{ACTIONS, KnightOutcome, KnightState, start_distribution};

/// Results of optimal play averaged over the study's start distribution.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KnightOptimum {
    /// Best expected cumulative reward per game.
    pub mean_reward: f64,
    /// Share of games won under optimal play.
    pub win_rate: f64,
    /// Mean moves per game under optimal play.
    pub mean_moves: f64,
}

/// Value of a state under optimal play: (cumulative reward, won, moves).
type Value = (f64, bool, u8);

fn solve_state(state: KnightState, memo: &mut HashMap<KnightState, Value>) -> Value {
    if let Some(&v) = memo.get(&state) {
        return v;
    }
    let mut best: Option<Value> = None;
    for action in 0..ACTIONS {
        let step = state.step(action);
        let (future, won, moves) = if step.outcome.is_terminal() {
            (0.0, step.outcome == KnightOutcome::Check, step.state.moves)
        } else {
            solve_state(step.state, memo)
        };
        let candidate = (f64::from(step.reward) + future, won, moves);
        if best.is_none_or(|b| candidate.0 > b.0) {
            best = Some(candidate);
        }
    }
    let value = best.expect("eight actions");
    memo.insert(state, value);
    value
}

/// Optimal reward, win and moves from one start.
pub fn optimal_from(state: KnightState) -> (f64, bool, u8) {
    solve_state(state, &mut HashMap::new())
}

/// The optimum averaged over the study's start distribution.
pub fn knight_optimum() -> KnightOptimum {
    let mut memo = HashMap::new();
    let mut optimum = KnightOptimum {
        mean_reward: 0.0,
        win_rate: 0.0,
        mean_moves: 0.0,
    };
    for (start, p) in start_distribution() {
        let (reward, won, moves) = solve_state(start, &mut memo);
        optimum.mean_reward += p * reward;
        optimum.win_rate += p * f64::from(u8::from(won));
        optimum.mean_moves += p * f64::from(moves);
    }
    optimum
}

/// Exact expectations of the uniformly random agent (each of the eight jumps with
/// probability 1/8, off-board ones included) over the study's start distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KnightRandomBaseline {
    /// Expected cumulative reward per game.
    pub mean_reward: f64,
    /// Expected on-board jumps per game.
    pub legal_moves: f64,
    /// Expected off-board jumps per game.
    pub illegal_moves: f64,
    /// Probability of checking the king.
    pub win_rate: f64,
    /// Probability of using up the ten moves.
    pub out_of_moves_rate: f64,
    /// Probability of landing next to the king.
    pub captured_rate: f64,
}

impl KnightRandomBaseline {
    fn add_scaled(&mut self, other: &KnightRandomBaseline, p: f64) {
        self.mean_reward += p * other.mean_reward;
        self.legal_moves += p * other.legal_moves;
        self.illegal_moves += p * other.illegal_moves;
        self.win_rate += p * other.win_rate;
        self.out_of_moves_rate += p * other.out_of_moves_rate;
        self.captured_rate += p * other.captured_rate;
    }
}

fn random_from(
    state: KnightState,
    memo: &mut HashMap<KnightState, KnightRandomBaseline>,
) -> KnightRandomBaseline {
    if let Some(v) = memo.get(&state) {
        return *v;
    }
    let mut value = KnightRandomBaseline::default();
    let p = 1.0 / ACTIONS as f64;
    for action in 0..ACTIONS {
        let step = state.step(action);
        let mut branch = match step.outcome {
            KnightOutcome::Ongoing => random_from(step.state, memo),
            outcome => KnightRandomBaseline {
                win_rate: f64::from(u8::from(outcome == KnightOutcome::Check)),
                out_of_moves_rate: f64::from(u8::from(outcome == KnightOutcome::OutOfMoves)),
                captured_rate: f64::from(u8::from(outcome == KnightOutcome::Captured)),
                ..KnightRandomBaseline::default()
            },
        };
        branch.mean_reward += f64::from(step.reward);
        branch.legal_moves += f64::from(u8::from(step.legal));
        branch.illegal_moves += f64::from(u8::from(!step.legal));
        value.add_scaled(&branch, p);
    }
    memo.insert(state, value);
    value
}

/// The random agent's exact expectations, averaged over the start distribution.
pub fn random_baseline() -> KnightRandomBaseline {
    let mut memo = HashMap::new();
    let mut baseline = KnightRandomBaseline::default();
    for (start, p) in start_distribution() {
        baseline.add_scaled(&random_from(start, &mut memo), p);
    }
    baseline
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_jump_check_is_found() {
        // From (0,0) jump 2 lands on (1,2), which checks a king on (3,3).
        assert_eq!(
            optimal_from(KnightState::new((0, 0), (3, 3))),
            (10.0, true, 1)
        );
    }

    #[test]
    fn the_optimum_is_pinned() {
        // Under the original reset() distribution (knight uniform over 64 squares,
        // king uniform over the squares left); a few starts cannot check in time.
        let o = knight_optimum();
        assert!((o.win_rate - 0.997_950_819_672).abs() < 1e-9, "{o:?}");
        assert!((o.mean_moves - 2.060_865_217_412).abs() < 1e-9, "{o:?}");
        assert!((o.mean_reward - 8.898_151_176_031).abs() < 1e-9, "{o:?}");
    }

    #[test]
    fn the_random_agent_is_computed_exactly() {
        let r = random_baseline();
        let total = r.win_rate + r.out_of_moves_rate + r.captured_rate;
        assert!((total - 1.0).abs() < 1e-12, "{r:?}");
        // From an independent Python transcription of the rules (same recursion over
        // all 8^10 jump sequences, memoised); reviewers' figures: -17.48 / 0.250.
        let want = [
            -17.477_552,
            4.235_493,
            2.448_101,
            0.249_965,
            0.463_448,
            0.286_586,
        ];
        let got = [
            r.mean_reward,
            r.legal_moves,
            r.illegal_moves,
            r.win_rate,
            r.out_of_moves_rate,
            r.captured_rate,
        ];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-6, "{got:?}");
        }
    }
}
