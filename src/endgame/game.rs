//! One match: white's table against the defender, with the study's rewards and,
//! when learning, one least-best-move update per white move.

use burnmate_agents::endgame::{LeastBestQ, engine_value, heuristic_value, win_reward};
use burnmate_env::endgame::{Endgame, Match, MatchEnd, black_king_region};
use burnmate_oracle::tablebase::{Tablebase, Verdict};
use rand::{Rng, RngExt};
use shakmaty::{Chess, Color, Move, Position};

use crate::endgame::config::{EndgameConfig, Opponent, RewardKind};

/// What a match needs besides the table.
pub struct Arena<'a> {
    /// The endgame.
    pub endgame: Endgame,
    /// Its exact table (rewards, perfect defence, the optimum).
    pub tablebase: &'a Tablebase,
    /// The run's settings.
    pub config: &'a EndgameConfig,
}

/// How a match went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatchResult {
    /// Why it ended.
    pub end: MatchEnd,
    /// White moves played.
    pub white_moves: u32,
    /// Sum of white's rewards.
    pub reward: f64,
}

/// Mate distance in white moves of a white-to-move position, if white mates.
pub fn mate_in(tablebase: &Tablebase, position: &Chess) -> Option<u32> {
    match tablebase.probe_position(position) {
        Some(Verdict::MateInPlies(n)) => Some(n.div_ceil(2)),
        _ => None,
    }
}

impl Arena<'_> {
    /// The study's value of a white-to-move position.
    pub fn value(&self, position: &Chess) -> f64 {
        match self.config.reward {
            RewardKind::Engine => {
                let mate = mate_in(self.tablebase, position).map(|m| m as i32);
                engine_value(mate, 0.0, self.config.mate_formula)
            }
            RewardKind::Heuristic => {
                let board = position.board();
                let distance = match (board.king_of(Color::White), board.king_of(Color::Black)) {
                    (Some(w), Some(b)) => w.distance(b),
                    _ => 7,
                };
                heuristic_value(distance, black_king_region(position))
            }
        }
    }

    /// The defender's reply in a black-to-move position.
    pub fn defend(&self, position: &Chess, rng: &mut impl Rng) -> Move {
        match self.config.opponent {
            Opponent::Random => {
                let moves = position.legal_moves();
                moves[rng.random_range(0..moves.len())]
            }
            Opponent::Perfect => {
                let ranked = self.tablebase.move_verdicts(position);
                let best = ranked[0].1;
                let ties: Vec<&Move> = ranked
                    .iter()
                    .filter(|(_, v)| *v == best)
                    .map(|(m, _)| m)
                    .collect();
                *ties[rng.random_range(0..ties.len())]
            }
        }
    }

    /// Plays one match from `start`; with `learn` the table is updated after every
    /// white move, otherwise it plays greedily (`epsilon` 0 for evaluation).
    pub fn play(
        &self,
        q: &mut LeastBestQ,
        start: &Chess,
        epsilon: f64,
        learn: bool,
        rng: &mut impl Rng,
    ) -> MatchResult {
        let mut game = Match::new(self.endgame, start.clone(), self.config.max_moves);
        let mut previous = self.value(start);
        let mut total = 0.0;
        loop {
            let position = game.position().clone();
            let m = q.choose(&position, epsilon, rng);
            let white_end = game.play(m);
            let after_white = game.position().clone();
            let (reward, end, terminal) = match white_end {
                Some(MatchEnd::Checkmate) => (
                    win_reward(game.white_moves()),
                    Some(MatchEnd::Checkmate),
                    true,
                ),
                Some(end) => (self.config.draw_reward, Some(end), true),
                None => {
                    let reply = self.defend(&after_white, rng);
                    match game.play(reply) {
                        result @ (Some(MatchEnd::Cap) | None) => {
                            let value = self.value(game.position());
                            let r = value - previous;
                            previous = value;
                            (r, result, false)
                        }
                        Some(end) => (self.config.draw_reward, Some(end), false),
                    }
                }
            };
            total += reward;
            if learn {
                q.update(&position, &m, reward, (!terminal).then_some(&after_white));
            }
            if let Some(end) = end {
                return MatchResult {
                    end,
                    white_moves: game.white_moves(),
                    reward: total,
                };
            }
        }
    }
}
