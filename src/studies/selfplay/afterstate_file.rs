//! The finished afterstate run on disk: its checkpoint (the value network) and how a
//! run directory becomes a playing learner again (`eval`, `uci`).

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use burnmate_agents::afterstate::trainer::{AfterstateConfig, AfterstateLearner};
use burnmate_agents::afterstate::value_net::ValueNet;
use burnmate_models::LayerWeights;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::studies::experiment::{Experiment, load_config};
use crate::studies::selfplay::config::{SelfplayAlgorithm, SelfplayConfig};

/// Format of the final checkpoint (the value network).
pub const CHECKPOINT_FORMAT: &str = "burnmate-afterstate-v1";
/// The trained network of a finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AfterstateCheckpoint {
    /// Training games played.
    pub games: u64,
    /// The value network's layers.
    pub layers: Vec<LayerWeights>,
}

/// The learner's settings from the run's config.
pub fn learner_config(config: &SelfplayConfig) -> AfterstateConfig {
    let a = config.afterstate();
    AfterstateConfig {
        gamma: config.gamma,
        epsilon_start: a.epsilon_start,
        epsilon_end: a.epsilon_end,
        epsilon_games: a.epsilon_games,
        max_plies: config.max_plies,
        envs: config.envs,
        batch_size: a.batch_size,
        replay_capacity: a.replay_capacity,
        updates_per_step: a.updates_per_step,
    }
}

/// The config and trained learner of the finished afterstate run in `run`, on
/// `backend` (default: the run's).
pub fn load_run(
    run: &Path,
    backend: Option<BackendChoice>,
) -> Result<(SelfplayConfig, AfterstateLearner)> {
    let config = match load_config(&run.join("config.toml"))? {
        Experiment::Selfplay(c) if c.algorithm == SelfplayAlgorithm::AfterstateTd => c,
        _ => bail!("{} is not an afterstate selfplay run", run.display()),
    };
    let state: AfterstateCheckpoint =
        crate::run::checkpoint::load(&run.join("checkpoint.json"), CHECKPOINT_FORMAT)?;
    let device = backend.unwrap_or(config.backend).device()?.autodiff();
    let net = ValueNet::new(&state.layers, config.lr, device)
        .map_err(|e| anyhow!("checkpoint of {}: {e}", run.display()))?;
    let learner = AfterstateLearner::new(learner_config(&config), net)?;
    Ok((config, learner))
}
