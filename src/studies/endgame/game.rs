//! One match: white's table against the defender, with the study's rewards and,
//! when learning, one least-best-move update per white move.

use std::cell::RefCell;

use anyhow::{Context, Result};
use burnmate_agents::endgame::{LeastBestQ, engine_value, heuristic_value, win_reward};
use burnmate_env::endgame::{Endgame, Match, MatchEnd, black_king_region};
use burnmate_env::endgame_game::Defender;
use burnmate_oracle::tablebase::Tablebase;
use burnmate_oracle::uci::{Analysis, Score, UciEngine};
use rand::{Rng, RngExt};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Move, Position};

use crate::output::pgn::fen_of;
use crate::studies::endgame::config::{
    DefenderKind, EndgameConfig, EndingReply, RewardKind, RewardSource,
};
use crate::studies::endgame::engine_audit::EngineAudit;

/// What a match needs besides the table.
pub struct Arena<'a> {
    /// The endgame.
    pub endgame: Endgame,
    /// Its exact table (rewards, perfect defence, the optimum).
    pub tablebase: &'a Tablebase,
    /// The run's settings.
    pub config: &'a EndgameConfig,
    /// The UCI engine, started when the config selects it as opponent or evaluator.
    pub engine: Option<RefCell<UciEngine>>,
    /// How the engine's answers consulted so far compare with perfect play.
    pub audit: RefCell<EngineAudit>,
}

/// How a match went.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    /// Why it ended.
    pub end: MatchEnd,
    /// White moves played.
    pub white_moves: u32,
    /// Sum of white's rewards.
    pub reward: f64,
    /// Every move of the match, white's first.
    pub moves: Vec<Move>,
}

impl<'a> Arena<'a> {
    /// The arena of one run; starts Stockfish when the config selects it.
    pub fn new(
        endgame: Endgame,
        tablebase: &'a Tablebase,
        config: &'a EndgameConfig,
    ) -> Result<Arena<'a>> {
        let engine = if config.uses_stockfish() {
            let engine = UciEngine::start(&config.stockfish, config.stockfish_depth)?;
            Some(RefCell::new(crate::run::engine_cache::with_shared_cache(
                engine,
            )?))
        } else {
            None
        };
        Ok(Arena {
            endgame,
            tablebase,
            config,
            engine,
            audit: RefCell::new(EngineAudit::default()),
        })
    }

    /// The engine's answer in `position`, audited against the tablebase.
    fn ask(&self, engine: &RefCell<UciEngine>, position: &Chess) -> Result<Analysis> {
        let answer = engine.borrow_mut().analyse(&fen_of(position))?;
        self.audit
            .borrow_mut()
            .record(self.tablebase, position, &answer.best_move);
        Ok(answer)
    }

    /// The engine's best move in `position`.
    pub fn engine_move(&self, position: &Chess) -> Result<Move> {
        let engine = self.engine.as_ref().context("no engine was started")?;
        let fen = fen_of(position);
        let answer = self.ask(engine, position)?;
        let uci: UciMove = answer
            .best_move
            .parse()
            .with_context(|| format!("engine move '{}' in {fen}", answer.best_move))?;
        uci.to_move(position)
            .with_context(|| format!("engine move '{}' is illegal in {fen}", answer.best_move))
    }

    /// The study's value of a white-to-move position.
    pub fn value(&self, position: &Chess) -> Result<f64> {
        Ok(match self.config.reward {
            RewardKind::Engine => match (self.config.evaluator, &self.engine) {
                (RewardSource::Stockfish, Some(engine)) => {
                    match self.ask(engine, position)?.score {
                        Score::Mate(m) => engine_value(Some(m), 0.0, self.config.mate_formula),
                        Score::Centipawns(cp) => {
                            engine_value(None, f64::from(cp), self.config.mate_formula)
                        }
                    }
                }
                _ => {
                    let mate = self.tablebase.mate_in(position).map(|m| m as i32);
                    engine_value(mate, 0.0, self.config.mate_formula)
                }
            },
            RewardKind::Heuristic => {
                let board = position.board();
                let distance = match (board.king_of(Color::White), board.king_of(Color::Black)) {
                    (Some(w), Some(b)) => w.distance(b),
                    _ => 7,
                };
                heuristic_value(distance, black_king_region(position))
            }
        })
    }

    /// The defender's reply in a black-to-move position.
    pub fn defend(&self, position: &Chess, rng: &mut impl Rng) -> Result<Move> {
        Ok(match self.config.opponent {
            DefenderKind::Stockfish => self.engine_move(position)?,
            DefenderKind::Random => {
                let moves = position.legal_moves();
                moves[rng.random_range(0..moves.len())]
            }
            DefenderKind::Perfect => self.tablebase.reply(position, rng),
        })
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
    ) -> Result<MatchResult> {
        let mut game = Match::new(self.endgame, start.clone(), self.config.max_moves);
        let mut previous = self.value(start)?;
        let mut total = 0.0;
        let mut moves = Vec::new();
        loop {
            let position = game.position().clone();
            let m = q.choose(&position, epsilon, rng);
            moves.push(m);
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
                    let reply = self.defend(&after_white, rng)?;
                    moves.push(reply);
                    match game.play(reply) {
                        result @ (Some(MatchEnd::Cap) | None) => {
                            let value = self.value(game.position())?;
                            let r = value - previous;
                            previous = value;
                            (r, result, false)
                        }
                        Some(end) => (
                            self.config.draw_reward,
                            Some(end),
                            self.config.ending_reply == EndingReply::Terminal,
                        ),
                    }
                }
            };
            total += reward;
            if learn {
                q.update(&position, &m, reward, (!terminal).then_some(&after_white));
            }
            if let Some(end) = end {
                return Ok(MatchResult {
                    end,
                    white_moves: game.white_moves(),
                    reward: total,
                    moves,
                });
            }
        }
    }

    /// White moves the engine itself needs to mate from `start` against this arena's
    /// defender (`None`: no mate within the cap), the study's yardstick.
    pub fn engine_mate_moves(&self, start: &Chess, rng: &mut impl Rng) -> Result<Option<u32>> {
        let mut game = Match::new(self.endgame, start.clone(), self.config.max_moves);
        loop {
            let m = self.engine_move(game.position())?;
            match game.play(m) {
                Some(MatchEnd::Checkmate) => return Ok(Some(game.white_moves())),
                Some(_) => return Ok(None),
                None => {}
            }
            let reply = self.defend(game.position(), rng)?;
            if game.play(reply).is_some() {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_agents::endgame::{QEntry, position_key};
    use burnmate_env::endgame::has_material;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Every white move in every position after one white move and one black reply
    /// from `start` is worth -1, so a bootstrapped future term is -1.
    fn table_of_minus_ones(endgame: Endgame, start: &Chess, config: &EndgameConfig) -> LeastBestQ {
        let code = |m: &Move| m.from().map_or(0, |s| s as u16) * 64 + m.to() as u16;
        let mut entries = Vec::new();
        for white in start.legal_moves() {
            let after_white = start.clone().play(white).unwrap();
            for black in after_white.legal_moves() {
                let next = after_white.clone().play(black).unwrap();
                if !has_material(endgame, next.board()) {
                    continue;
                }
                let key = position_key(&next);
                entries.extend(next.legal_moves().iter().map(|a| QEntry {
                    position: key,
                    mv: code(a),
                    value: -1.0,
                }));
            }
        }
        entries.sort_by_key(|e| (e.position, e.mv));
        entries.dedup_by_key(|e| (e.position, e.mv));
        LeastBestQ::from_entries(endgame, config.alpha, config.gamma, &entries)
    }

    #[test]
    fn a_match_ended_by_blacks_reply_has_no_future_term_unless_bootstrap_is_chosen() {
        // Halfmove clock 98: white's rook move makes it 99, black's reply 100, and
        // the fifty-move rule ends the match after black's reply.
        let start: Chess = burnmate_env::fen::position("4k3/8/8/8/8/8/8/R3K3 w - - 98 80").unwrap();
        let tablebase = Tablebase::solve(Endgame::Krk);
        for (ending_reply, future) in [(EndingReply::Terminal, 0.0), (EndingReply::Bootstrap, -1.0)]
        {
            let config = EndgameConfig {
                endgame: Endgame::Krk,
                ending_reply,
                ..EndgameConfig::default()
            };
            let arena = Arena::new(Endgame::Krk, &tablebase, &config).unwrap();
            let mut q = table_of_minus_ones(Endgame::Krk, &start, &config);
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let result = arena.play(&mut q, &start, 0.0, true, &mut rng).unwrap();
            assert_eq!(result.end, MatchEnd::FiftyMoves);
            assert_eq!(result.moves.len(), 2, "one white move, one black reply");
            let want = 0.05 * (-10_000.0 + 0.95 * future);
            let got = q.value(&start, &result.moves[0]);
            assert!(
                (got - want).abs() < 1e-9,
                "{ending_reply:?}: Q = {got}, want {want}"
            );
        }
    }
}
