//! The selfplay study (Dias): full chess, two sides of convolutional piece and move
//! selectors learning from material rewards by playing each other; beside it our
//! afterstate learner (`algorithm = "afterstate-td"`). Both are dispatched here.

use std::path::Path;

use anyhow::Result;

use crate::overrides::Overrides;
use config::{SelfplayAlgorithm, SelfplayConfig};

pub mod afterstate;
pub mod afterstate_eval;
pub mod afterstate_file;
pub mod config;
pub mod game_record;
pub mod model_file;
pub mod stockfish;
pub mod train;

/// `burnmate train CONFIG` for a selfplay config, by its algorithm.
pub fn train_command(path: &Path, config: SelfplayConfig, overrides: &Overrides) -> Result<()> {
    match config.algorithm {
        SelfplayAlgorithm::Reference => train::train_command(path, config, overrides),
        SelfplayAlgorithm::AfterstateTd => afterstate::train_command(path, config, overrides),
    }
}

/// `burnmate resume RUN` for a killed selfplay run, by its algorithm.
pub fn resume_command(dir: &Path, config: &SelfplayConfig) -> Result<()> {
    match config.algorithm {
        SelfplayAlgorithm::Reference => train::resume_command(dir, config),
        SelfplayAlgorithm::AfterstateTd => afterstate::resume_command(dir, config),
    }
}
