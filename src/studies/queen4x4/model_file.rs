//! The queen4x4 checkpoint: the agent's hyper-parameters and weights.

use std::path::Path;

use anyhow::Result;
use burn::tensor::Device;
use burnmate_agents::luo::{LuoAgent, LuoConfig};
use burnmate_models::MlpWeights;
use serde::{Deserialize, Serialize};

use crate::run::checkpoint;
use crate::studies::queen4x4::config::Activation;

/// File name of the checkpoint inside a run directory.
pub const CHECKPOINT: &str = "checkpoint.json";
const FORMAT: &str = "burnmate-queen4x4-mlp-v2";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Queen4x4Checkpoint {
    algorithm: burnmate_agents::luo::TdAlgorithm,
    update: burnmate_agents::luo::UpdateRule,
    eta: f32,
    gamma: f32,
    hidden: usize,
    activation: Activation,
    weights: MlpWeights,
}

fn activation_of(config: &LuoConfig) -> Activation {
    match config.activation {
        burnmate_models::OutputActivation::Relu => Activation::Relu,
        burnmate_models::OutputActivation::Sigmoid => Activation::Sigmoid,
        burnmate_models::OutputActivation::Linear => Activation::Linear,
    }
}

/// Saves the agent into `dir/checkpoint.json`.
pub fn save(dir: &Path, agent: &LuoAgent) -> Result<()> {
    let config = agent.config();
    let weights = agent.weights();
    let file = Queen4x4Checkpoint {
        algorithm: config.algorithm,
        update: config.update,
        eta: config.eta,
        gamma: config.gamma,
        hidden: config.hidden,
        activation: activation_of(config),
        weights,
    };
    checkpoint::save(&dir.join(CHECKPOINT), FORMAT, &file)
}

/// Loads the agent saved in run directory `dir` onto `device`.
pub fn load(dir: &Path, device: Device) -> Result<LuoAgent> {
    let path = dir.join(CHECKPOINT);
    let file: Queen4x4Checkpoint = checkpoint::load(&path, FORMAT)?;
    let config = LuoConfig {
        algorithm: file.algorithm,
        update: file.update,
        eta: file.eta,
        gamma: file.gamma,
        hidden: file.hidden,
        activation: file.activation.into(),
    };
    LuoAgent::from_weights(config, &file.weights, device)
        .map_err(|e| anyhow::anyhow!("checkpoint {}: {e}", path.display()))
}
