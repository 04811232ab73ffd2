//! The knight study (Solime): a knight must check a fixed king within 10 moves.

pub mod config;
pub mod eval;
pub mod model_file;
pub mod summary;
pub mod train;
pub mod vector;

use std::path::Path;

use anyhow::Result;

use crate::run::overrides::Overrides;
use crate::studies::study::{
    EvalRequest, PlayRequest, Study, refuse_overrides, refuse_stockfish_skills,
};
use config::KnightConfig;

impl Study for KnightConfig {
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        refuse_overrides(overrides, true, false)?;
        train::train_command(path, self.clone(), overrides)
    }

    fn resume(&self, run: &Path) -> Result<()> {
        train::resume_command(run, self)
    }

    fn eval(&self, request: &EvalRequest) -> Result<()> {
        refuse_stockfish_skills(request)?;
        eval::eval_command(request.run, request.games, request.seed, request.backend)
    }

    fn play(&self, _: &PlayRequest) -> Result<()> {
        anyhow::bail!("play shows queen4x4 and endgame runs; use eval for knight runs")
    }
}
