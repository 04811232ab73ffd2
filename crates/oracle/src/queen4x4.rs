//! Exact solution of the queen4x4 game against the uniformly random black king.
//!
//! The game is a Markov decision process over positions with white to move. Value
//! iteration first finds, for every position, the highest probability `P*` of
//! mating (a stalemate is the only way to fail); then, among the actions that keep
//! `P*`, the smallest expected number of white moves to the end of the game `E*`.
//! Averaged over the study's start distribution, these are the best win rate and
//! the fewest mean moves any policy can reach.

use burnmate_env::environment::Outcome as _;
use burnmate_env::queen4x4::{
    ACTIONS, Action, Position, Queen4x4Outcome, SQUARES, Square, start_distribution,
};

const STATES: usize = SQUARES * SQUARES * SQUARES;
const TOLERANCE: f64 = 1e-12;
const MAX_SWEEPS: usize = 100_000;

/// Where one white action leads.
enum Transition {
    /// The game ends (mate or stalemate).
    End(Queen4x4Outcome),
    /// The black king replies uniformly among these positions (state indices).
    Replies(Vec<usize>),
}

/// The solved game: per-position values and an optimal action.
pub struct Queen4x4Solution {
    win_probability: Vec<f64>,
    expected_moves: Vec<f64>,
    fastest_end: Vec<f64>,
    best_action: Vec<u8>,
}

/// The optimum averaged over the study's start distribution.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Queen4x4Optimum {
    /// Best achievable probability of mating (the optimal expected reward of SARSA).
    pub win_rate: f64,
    /// Fewest expected white moves per game among win-rate-optimal policies.
    pub mean_moves: f64,
    /// Fewest expected white moves to end the game by mate *or* stalemate: minus
    /// this is the impatient agent's best possible mean reward.
    pub fastest_end_moves: f64,
}

fn state_index(p: &Position) -> usize {
    (p.white_king.index() * SQUARES + p.queen.index()) * SQUARES + p.black_king.index()
}

fn position_of(index: usize) -> Option<Position> {
    let sq = |i: usize| Square::from_index(i % SQUARES).expect("index < 16");
    let p = Position::new(
        sq(index / (SQUARES * SQUARES)),
        sq(index / SQUARES),
        sq(index),
    )?;
    (!p.white_king.touches(p.black_king) && !p.black_in_check()).then_some(p)
}

fn transitions(p: &Position) -> Vec<(usize, Transition)> {
    p.legal_action_list()
        .into_iter()
        .map(|a| {
            let after = p.play(Action::from_index(a));
            let outcome = after.outcome();
            let t = if outcome.is_terminal() {
                Transition::End(outcome)
            } else {
                let moves = after.black_king_moves();
                Transition::Replies(
                    Square::all()
                        .filter(|sq| moves & sq.bit() != 0)
                        .map(|sq| state_index(&after.play_black(sq)))
                        .collect(),
                )
            };
            (a, t)
        })
        .collect()
}

fn mean(values: &[f64], states: &[usize]) -> f64 {
    states.iter().map(|&s| values[s]).sum::<f64>() / states.len() as f64
}

type Graph = [Option<Vec<(usize, Transition)>>];

/// Value iteration for the fewest expected white moves to the end of the game,
/// using only the actions `allowed(state, transition)` admits; returns the values
/// and a minimising action per state.
fn fewest_moves(
    graph: &Graph,
    allowed: impl Fn(usize, &Transition) -> bool,
) -> (Vec<f64>, Vec<u8>) {
    let mut moves = vec![0.0; STATES];
    let mut best_action = vec![u8::MAX; STATES];
    for _ in 0..MAX_SWEEPS {
        let mut change: f64 = 0.0;
        for (s, actions) in graph.iter().enumerate() {
            let Some(actions) = actions else { continue };
            let mut best = (f64::INFINITY, u8::MAX);
            for (a, t) in actions.iter().filter(|(_, t)| allowed(s, t)) {
                let cost = 1.0
                    + match t {
                        Transition::End(_) => 0.0,
                        Transition::Replies(next) => mean(&moves, next),
                    };
                if cost < best.0 {
                    best = (cost, *a as u8);
                }
            }
            change = change.max((best.0 - moves[s]).abs());
            (moves[s], best_action[s]) = best;
        }
        if change < TOLERANCE {
            break;
        }
    }
    (moves, best_action)
}

impl Queen4x4Solution {
    /// Solves every position by value iteration (a fraction of a second).
    pub fn solve() -> Queen4x4Solution {
        let graph: Vec<Option<Vec<(usize, Transition)>>> = (0..STATES)
            .map(|i| position_of(i).map(|p| transitions(&p)))
            .collect();
        let win_value = |win: &[f64], t: &Transition| match t {
            Transition::End(o) => f64::from(u8::from(*o == Queen4x4Outcome::Checkmate)),
            Transition::Replies(next) => mean(win, next),
        };

        let mut win = vec![0.0; STATES];
        for _ in 0..MAX_SWEEPS {
            let mut change: f64 = 0.0;
            for (s, actions) in graph.iter().enumerate() {
                let Some(actions) = actions else { continue };
                let best = actions
                    .iter()
                    .map(|(_, t)| win_value(&win, t))
                    .fold(0.0, f64::max);
                change = change.max(best - win[s]);
                win[s] = best;
            }
            if change < TOLERANCE {
                break;
            }
        }

        let (moves, best_action) = fewest_moves(&graph, |s, t| win_value(&win, t) >= win[s] - 1e-9);
        let (fastest_end, _) = fewest_moves(&graph, |_, _| true);
        Queen4x4Solution {
            win_probability: win,
            expected_moves: moves,
            fastest_end,
            best_action,
        }
    }

    /// Best probability of mating from `p` (white to move).
    pub fn win_probability(&self, p: &Position) -> f64 {
        self.win_probability[state_index(p)]
    }

    /// Fewest expected white moves to the end of the game from `p`, among
    /// win-probability-optimal policies.
    pub fn expected_moves(&self, p: &Position) -> f64 {
        self.expected_moves[state_index(p)]
    }

    /// An optimal action at `p` (index into the 32 actions).
    pub fn best_action(&self, p: &Position) -> usize {
        let a = self.best_action[state_index(p)] as usize;
        debug_assert!(a < ACTIONS);
        a
    }

    /// The optimum averaged over the study's start distribution.
    pub fn optimum(&self) -> Queen4x4Optimum {
        let dist = start_distribution();
        Queen4x4Optimum {
            win_rate: dist.iter().map(|(p, w)| w * self.win_probability(p)).sum(),
            mean_moves: dist.iter().map(|(p, w)| w * self.expected_moves(p)).sum(),
            fastest_end_moves: dist
                .iter()
                .map(|(p, w)| w * self.fastest_end[state_index(p)])
                .sum(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_env::queen4x4::parse_start;

    #[test]
    fn mate_in_one_costs_one_move() {
        // Qb2 mates the king on a1? The white king on c3 guards b2; the queen on b4
        // goes to b2: a1 is attacked, a2/b1 controlled by the queen. Qb2 is mate.
        let solution = Queen4x4Solution::solve();
        let p = parse_start("Kc3 Qb4 / Ka1").unwrap();
        let after = p.play(Action::from_index(solution.best_action(&p)));
        assert_eq!(after.outcome(), Queen4x4Outcome::Checkmate);
        assert_eq!(solution.expected_moves(&p), 1.0);
        assert_eq!(solution.win_probability(&p), 1.0);
    }

    #[test]
    fn values_satisfy_the_bellman_equations() {
        let solution = Queen4x4Solution::solve();
        for s in 0..STATES {
            let Some(p) = position_of(s) else { continue };
            let mut best_moves = f64::INFINITY;
            for (_, t) in transitions(&p) {
                let (win, moves) = match &t {
                    Transition::End(o) => {
                        (f64::from(u8::from(*o == Queen4x4Outcome::Checkmate)), 1.0)
                    }
                    Transition::Replies(next) => (
                        mean(&solution.win_probability, next),
                        1.0 + mean(&solution.expected_moves, next),
                    ),
                };
                assert!(win <= solution.win_probability[s] + 1e-9);
                if win >= solution.win_probability[s] - 1e-9 {
                    best_moves = best_moves.min(moves);
                }
            }
            assert!(
                (best_moves - solution.expected_moves[s]).abs() < 1e-6,
                "{p}"
            );
        }
    }

    #[test]
    fn optimum_is_pinned() {
        // Over the study's start distribution: a sure mate in 1.9407 moves on average;
        // the impatient agent's best mean reward is -1.1884 (reviewers' figures).
        let optimum = Queen4x4Solution::solve().optimum();
        assert!((optimum.win_rate - 1.0).abs() < 1e-9, "{optimum:?}");
        assert!(
            (optimum.mean_moves - 1.940_669_014_085).abs() < 1e-9,
            "{optimum:?}"
        );
        assert!(
            (optimum.fastest_end_moves - 1.188_419_405_321).abs() < 1e-9,
            "{optimum:?}"
        );
    }
}
