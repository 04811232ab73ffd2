//! The queen4x4 study (Luo): K+Q vs a randomly moving K on a 4x4 board.

pub mod config;
pub mod eval;
pub mod grid;
pub mod grid_cell;
pub mod grid_report;
pub mod model_file;
pub mod play;
pub mod summary;
pub mod train;

use std::path::Path;

use anyhow::Result;

use crate::run::overrides::Overrides;
use crate::studies::study::{
    EvalRequest, PlayRequest, Study, refuse_overrides, refuse_stockfish_skills,
};
use config::Queen4x4Config;

impl Study for Queen4x4Config {
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        refuse_overrides(overrides, false, false)?;
        train::train_command(path, self.clone(), overrides)
    }

    fn resume(&self, run: &Path) -> Result<()> {
        train::resume_command(run, self)
    }

    fn eval(&self, request: &EvalRequest) -> Result<()> {
        refuse_stockfish_skills(request)?;
        let (run, games, seed) = (request.run, request.games, request.seed);
        eval::eval_command(run, self, games, seed, request.backend)
    }

    fn play(&self, request: &PlayRequest) -> Result<()> {
        anyhow::ensure!(
            request.fen.is_none() && request.pgn.is_none(),
            "--fen and --pgn apply to endgame runs; a queen4x4 run takes --start"
        );
        let start = request.start.unwrap_or("Qa1 Ka2 / Kc2");
        let max_moves = request.max_moves.unwrap_or(50);
        play::play_command(request.run, start, request.seed, max_moves)
    }
}
