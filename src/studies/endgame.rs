//! The endgame study (Boar 2022): tabular least-best-move Q-learning for KQK, KRK
//! and KBBK against a defender, measured against exact tablebases.

pub mod config;
pub mod engine_audit;
pub mod game;
pub mod play;
pub mod starts;
pub mod study;
pub mod study_plan;
pub mod study_report;
pub mod table_file;
pub mod train;

use std::path::Path;

use anyhow::Result;

use crate::run::overrides::Overrides;
use crate::studies::study::{
    EvalRequest, PlayRequest, Study, refuse_overrides, refuse_stockfish_skills,
};
use config::EndgameConfig;

impl Study for EndgameConfig {
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        refuse_overrides(overrides, false, false)?;
        train::train_command(path, self.clone(), overrides)
    }

    fn resume(&self, run: &Path) -> Result<()> {
        train::resume_command(run, self)
    }

    fn eval(&self, request: &EvalRequest) -> Result<()> {
        refuse_stockfish_skills(request)?;
        train::eval_command(request.run, request.games, request.seed)
    }

    fn play(&self, request: &PlayRequest) -> Result<()> {
        play::play_command(request)
    }
}
