//! Exact optimum of the knight game: a deterministic finite-horizon problem over
//! (knight, king, moves used), solved by dynamic programming for the largest
//! cumulative reward. Checking in `d <= 9` moves earns `10 - (d - 1)`, more than any
//! loss, so the reward-optimal policy also has the best win rate.

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
    fn the_optimum_beats_the_study_and_is_a_probability() {
        let o = knight_optimum();
        assert!(o.win_rate > 0.642 && o.win_rate <= 1.0, "{o:?}");
        assert!(o.mean_moves >= 1.0 && o.mean_moves <= 10.0, "{o:?}");
        assert!(o.mean_reward > -0.052, "{o:?}");
    }
}
