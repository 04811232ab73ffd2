//! The selfplay study (Dias): full chess, two sides of convolutional piece and move
//! selectors learning from material rewards by playing each other; beside it our
//! afterstate learner (`algorithm = "afterstate-td"`). Both are dispatched here.

use std::path::Path;

use anyhow::Result;

use crate::run::overrides::Overrides;
use crate::studies::study::{EvalRequest, PlayRequest, Study, refuse_stockfish_skills};
use config::{SelfplayAlgorithm, SelfplayConfig};

pub mod afterstate;
pub mod afterstate_eval;
pub mod afterstate_file;
pub mod config;
pub mod game_record;
pub mod model_file;
pub mod stockfish;
pub mod train;

impl Study for SelfplayConfig {
    /// A new run of the config's algorithm.
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        match self.algorithm {
            SelfplayAlgorithm::Reference => train::train_command(path, self.clone(), overrides),
            SelfplayAlgorithm::AfterstateTd => {
                afterstate::train_command(path, self.clone(), overrides)
            }
        }
    }

    /// Resumes a killed run of the config's algorithm.
    fn resume(&self, run: &Path) -> Result<()> {
        match self.algorithm {
            SelfplayAlgorithm::Reference => train::resume_command(run, self),
            SelfplayAlgorithm::AfterstateTd => afterstate::resume_command(run, self),
        }
    }

    /// The afterstate learner against fixed movers; the study's algorithm is
    /// evaluated while it trains.
    fn eval(&self, request: &EvalRequest) -> Result<()> {
        match self.algorithm {
            SelfplayAlgorithm::AfterstateTd => afterstate_eval::eval_command(
                request.run,
                request.games,
                request.seed,
                request.backend,
                request.stockfish_skills,
            ),
            SelfplayAlgorithm::Reference => {
                refuse_stockfish_skills(request)?;
                anyhow::bail!(
                    "selfplay runs of the study's algorithm are evaluated while training: see eval.csv and summary.json in the run"
                )
            }
        }
    }

    fn play(&self, _: &PlayRequest) -> Result<()> {
        anyhow::bail!(
            "play shows queen4x4 and endgame runs; selfplay runs keep sample games in games.pgn"
        )
    }
}
