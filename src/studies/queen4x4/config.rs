//! The queen4x4 config: every key defaults to the study's value.

use anyhow::{Result, ensure};
use burnmate_agents::luo::{LuoConfig, TdAlgorithm, UpdateRule};
use burnmate_models::OutputActivation;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::device::limits::MAX_HIDDEN;
use crate::run::overrides::Overrides;

/// Output activation as written in configs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Activation {
    /// ReLU (the study's SARSA).
    Relu,
    /// Sigmoid (the study's Q-learning).
    Sigmoid,
    /// Identity (the study's impatient agent).
    Linear,
}

impl From<Activation> for OutputActivation {
    fn from(a: Activation) -> OutputActivation {
        match a {
            Activation::Relu => OutputActivation::Relu,
            Activation::Sigmoid => OutputActivation::Sigmoid,
            Activation::Linear => OutputActivation::Linear,
        }
    }
}

/// The beta x gamma grid of the study's Figure 3.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GridConfig {
    /// Exploration decay values.
    pub beta: Vec<f64>,
    /// Discount factors.
    pub gamma: Vec<f64>,
}

impl Default for GridConfig {
    fn default() -> GridConfig {
        GridConfig {
            beta: vec![5e-7, 3e-5, 5e-5, 7e-5],
            gamma: vec![0.2, 0.85, 0.99],
        }
    }
}

/// Settings of one queen4x4 run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Queen4x4Config {
    /// `sarsa`, `q-learning` or `impatient`.
    pub algorithm: TdAlgorithm,
    /// `semi-gradient` (correct, default) or `reference` (the study's code).
    pub update: UpdateRule,
    /// Training episodes (study: 100,000).
    pub episodes: u64,
    /// Seed of the run's random number generator (study: 9).
    pub seed: u64,
    /// Burn backend.
    pub backend: BackendChoice,
    /// SGD learning rate (study: 0.0035).
    pub eta: f32,
    /// Discount factor (study: 0.85).
    pub gamma: f32,
    /// Initial exploration rate (study: 0.2).
    pub epsilon0: f64,
    /// Exploration decay: epsilon_n = epsilon0 / (1 + beta * n) (study: 5e-5).
    pub beta: f64,
    /// Hidden units (study: 200).
    pub hidden: usize,
    /// Output activation; default: the study's for the algorithm.
    pub activation: Option<Activation>,
    /// Cap on white moves per training episode; 0 = none (the study).
    pub max_moves: u32,
    /// Greedy evaluation games after training.
    pub eval_games: u64,
    /// Cap on white moves per evaluation game.
    pub eval_max_moves: u32,
    /// Episodes between resume points (`burnmate resume RUN` after a kill).
    pub checkpoint_every: u64,
    /// The `grid` command's values.
    pub grid: GridConfig,
}

impl Default for Queen4x4Config {
    fn default() -> Queen4x4Config {
        Queen4x4Config {
            algorithm: TdAlgorithm::Sarsa,
            update: UpdateRule::SemiGradient,
            episodes: 100_000,
            seed: 9,
            backend: BackendChoice::Flex,
            eta: 0.0035,
            gamma: 0.85,
            epsilon0: 0.2,
            beta: 5e-5,
            hidden: 200,
            activation: None,
            max_moves: 0,
            eval_games: 1000,
            eval_max_moves: 100,
            checkpoint_every: 10_000,
            grid: GridConfig::default(),
        }
    }
}

impl Queen4x4Config {
    /// Checks value ranges; errors name the key.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.episodes > 0, "episodes must be positive");
        ensure!(
            self.eta > 0.0 && self.eta.is_finite(),
            "eta must be positive"
        );
        ensure!(
            (0.0..=1.0).contains(&self.gamma),
            "gamma must lie in [0, 1]"
        );
        ensure!(
            (0.0..=1.0).contains(&self.epsilon0),
            "epsilon0 must lie in [0, 1]"
        );
        ensure!(
            self.beta >= 0.0 && self.beta.is_finite(),
            "beta must be non-negative"
        );
        ensure!(
            (1..=MAX_HIDDEN).contains(&self.hidden),
            "hidden must lie in 1..={MAX_HIDDEN}"
        );
        ensure!(self.eval_max_moves > 0, "eval_max_moves must be positive");
        ensure!(self.eval_games > 0, "eval_games must be positive");
        ensure!(
            self.checkpoint_every > 0,
            "checkpoint_every must be positive"
        );
        ensure!(
            self.grid.beta.iter().all(|b| *b >= 0.0)
                && self.grid.gamma.iter().all(|g| (0.0..=1.0).contains(g)),
            "grid values must be beta >= 0 and gamma in [0, 1]"
        );
        Ok(())
    }

    /// Applies command-line overrides.
    pub fn with_overrides(mut self, o: &Overrides) -> Queen4x4Config {
        self.backend = o.backend.unwrap_or(self.backend);
        self.seed = o.seed.unwrap_or(self.seed);
        self.episodes = o.episodes.unwrap_or(self.episodes);
        self
    }

    /// Exploration rate of 0-based episode `n`.
    pub fn epsilon(&self, n: u64) -> f64 {
        self.epsilon0 / (1.0 + self.beta * n as f64)
    }

    /// The agent's hyper-parameters.
    pub fn agent(&self) -> LuoConfig {
        LuoConfig {
            algorithm: self.algorithm,
            update: self.update,
            eta: self.eta,
            gamma: self.gamma,
            hidden: self.hidden,
            activation: self
                .activation
                .map(OutputActivation::from)
                .unwrap_or_else(|| self.algorithm.study_activation()),
        }
    }

    /// The episode move cap as the agent takes it.
    pub fn move_cap(&self) -> u32 {
        if self.max_moves == 0 {
            u32::MAX
        } else {
            self.max_moves
        }
    }
}
