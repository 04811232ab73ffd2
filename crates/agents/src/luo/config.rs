//! Hyper-parameters of the queen4x4 agents.

use burnmate_models::OutputActivation;
use serde::{Deserialize, Serialize};

use crate::error::{AgentError, unit_interval};

/// Which TD algorithm learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TdAlgorithm {
    /// On-policy SARSA: reward 1 for mate, 0 otherwise.
    Sarsa,
    /// Off-policy Q-learning: reward 1 for mate, 0 otherwise.
    QLearning,
    /// SARSA with reward -1 per non-final move and target 0 at the end.
    Impatient,
}

impl TdAlgorithm {
    /// The study's output activation for this algorithm.
    pub fn study_activation(self) -> OutputActivation {
        match self {
            TdAlgorithm::Sarsa => OutputActivation::Relu,
            TdAlgorithm::QLearning => OutputActivation::Sigmoid,
            TdAlgorithm::Impatient => OutputActivation::Linear,
        }
    }
}

/// How the network is updated (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpdateRule {
    /// Correct semi-gradient TD at the current state.
    SemiGradient,
    /// The study's code, quirks included.
    Reference,
}

/// Hyper-parameters of a [`super::LuoAgent`].
#[derive(Clone, Debug, PartialEq)]
pub struct LuoConfig {
    /// TD algorithm.
    pub algorithm: TdAlgorithm,
    /// Update rule.
    pub update: UpdateRule,
    /// SGD learning rate (study: 0.0035).
    pub eta: f32,
    /// Discount factor (study: 0.85).
    pub gamma: f32,
    /// Hidden units (study: 200).
    pub hidden: usize,
    /// Output activation (study: ReLU for SARSA, sigmoid for Q-learning, linear for impatient).
    pub activation: OutputActivation,
}

impl Default for LuoConfig {
    /// The queen4x4 study's SARSA (Luo): eta 0.0035, gamma 0.85, 200 hidden units, a
    /// ReLU output, the semi-gradient update.
    fn default() -> LuoConfig {
        LuoConfig {
            algorithm: TdAlgorithm::Sarsa,
            update: UpdateRule::SemiGradient,
            eta: 0.0035,
            gamma: 0.85,
            hidden: 200,
            activation: TdAlgorithm::Sarsa.study_activation(),
        }
    }
}

impl LuoConfig {
    /// Checks the settings; the error names the setting. Every constructor of
    /// [`super::LuoAgent`] calls it.
    pub fn check(&self) -> Result<(), AgentError> {
        if !(self.eta > 0.0 && self.eta.is_finite()) {
            return Err(AgentError::Setting(format!(
                "eta must be a positive number, not {}",
                self.eta
            )));
        }
        unit_interval("gamma", self.gamma)?;
        if self.hidden == 0 {
            return Err(AgentError::Setting("hidden must be positive".into()));
        }
        Ok(())
    }
}
