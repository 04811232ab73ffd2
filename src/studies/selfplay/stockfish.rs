//! Stockfish as an evaluation opponent of the selfplay sides, weakened to a `Skill
//! Level` (the "lowest skill level": 0).

use anyhow::{Context, Result};
use burnmate_oracle::uci::UciEngine;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move};

use crate::output::pgn::fen_of;
use crate::studies::selfplay::config::SelfplayConfig;

/// A running, weakened Stockfish that answers with an index into the legal moves.
pub struct StockfishMover {
    engine: UciEngine,
}

impl StockfishMover {
    /// Starts the engine of `config` at its skill level; a missing engine is a
    /// one-line error with an install hint.
    pub fn start(config: &SelfplayConfig) -> Result<StockfishMover> {
        let engine = UciEngine::start(&config.stockfish, config.stockfish_depth)?
            .with_skill_level(config.stockfish_skill)?;
        Ok(StockfishMover { engine })
    }

    /// The engine's move in `position` (any legal move, under-promotions included).
    pub fn choose(&mut self, position: &Chess) -> Result<Move> {
        let fen = fen_of(position);
        let answer = self.engine.analyse(&fen)?;
        answer
            .best_move
            .parse::<UciMove>()
            .ok()
            .and_then(|uci| uci.to_move(position).ok())
            .with_context(|| {
                format!(
                    "Stockfish answered '{}', not a legal move in {fen}",
                    answer.best_move
                )
            })
    }
}
