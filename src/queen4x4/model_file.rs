//! The queen4x4 checkpoint: the agent's hyper-parameters and weights.

use std::path::Path;

use anyhow::{Result, bail};
use burn::tensor::Device;
use burnmate_agents::luo::{LuoAgent, LuoConfig};
use burnmate_models::MlpWeights;
use serde::{Deserialize, Serialize};

use crate::checkpoint;
use crate::queen4x4::config::Activation;

/// File name of the checkpoint inside a run directory.
pub const CHECKPOINT: &str = "checkpoint.json";
const FORMAT: &str = "burnmate-queen4x4-mlp-v1";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Queen4x4Checkpoint {
    format: String,
    algorithm: burnmate_agents::luo::Algorithm,
    update: burnmate_agents::luo::UpdateRule,
    eta: f32,
    gamma: f32,
    hidden: usize,
    activation: Activation,
    checksum: u64,
    weights: MlpWeights,
}

fn weights_checksum(w: &MlpWeights) -> u64 {
    checkpoint::checksum(w.w1.iter().chain(&w.b1).chain(&w.w2).chain(&w.b2))
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
        format: FORMAT.into(),
        algorithm: config.algorithm,
        update: config.update,
        eta: config.eta,
        gamma: config.gamma,
        hidden: config.hidden,
        activation: activation_of(config),
        checksum: weights_checksum(&weights),
        weights,
    };
    checkpoint::save(&dir.join(CHECKPOINT), &file)
}

/// Loads the agent saved in run directory `dir` onto `device`.
pub fn load(dir: &Path, device: Device) -> Result<LuoAgent> {
    let path = dir.join(CHECKPOINT);
    let file: Queen4x4Checkpoint = checkpoint::load(&path)?;
    if file.format != FORMAT {
        bail!(
            "checkpoint {} has format '{}', expected '{FORMAT}'",
            path.display(),
            file.format
        );
    }
    checkpoint::verify(&path, file.checksum, weights_checksum(&file.weights))?;
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
