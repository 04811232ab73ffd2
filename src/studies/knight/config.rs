//! The knight config: every key defaults to the study's value.

use anyhow::{Result, ensure};
use burnmate_agents::actor_critic::CriticGradient;
use burnmate_agents::dqn::TargetNetwork;
use burnmate_agents::schedule::EpsilonSchedule;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::device::limits::{MAX_HIDDEN, MAX_REPLAY};
use crate::run::overrides::Overrides;

/// Which agent learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KnightAgentKind {
    /// DQN with replay.
    Dqn,
    /// One-step actor-critic.
    ActorCritic,
    /// Uniformly random jumps (the baseline; learns nothing).
    Random,
}

/// Settings of one knight run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KnightConfig {
    /// `dqn`, `actor-critic` or `random`.
    pub agent: KnightAgentKind,
    /// Training episodes (study: 20,000).
    pub episodes: u64,
    /// Seed of the run's random number generator.
    pub seed: u64,
    /// Burn backend.
    pub backend: BackendChoice,
    /// Discount (study: 0.99).
    pub gamma: f32,
    /// Hidden units of each of the two hidden layers (study: 128).
    pub hidden: usize,
    /// Adam learning rate of the Q-network and of the actor (study: 1e-4).
    pub lr: f64,
    /// Adam learning rate of the critic (study: 1e-3).
    pub critic_lr: f64,
    /// Replay capacity (study: 1000).
    pub replay_capacity: usize,
    /// Minibatch size (study: 64).
    pub batch_size: usize,
    /// `periodic` (default), `reference` (the study's never-refreshed target) or `none`.
    pub target: TargetNetwork,
    /// Updates between target refreshes with `target = "periodic"`.
    pub target_sync_steps: u64,
    /// Exploration schedule of DQN (study: hybrid 0.9 * 0.9995^t, floor 0.1).
    pub epsilon: EpsilonSchedule,
    /// `semi-gradient` (default) or `reference` (gradient through V(s') too).
    pub critic_gradient: CriticGradient,
    /// Evaluation games after training (study: 1000).
    pub eval_games: u64,
    /// DQN only: environments stepped together, one batched forward pass and one
    /// minibatch update per vector step (1: the study's online loop).
    pub envs: usize,
    /// Episodes between resume points (`burnmate resume RUN` after a kill; not
    /// with envs > 1).
    pub checkpoint_every: u64,
}

impl Default for KnightConfig {
    fn default() -> KnightConfig {
        KnightConfig {
            agent: KnightAgentKind::Dqn,
            episodes: 20_000,
            seed: 0,
            backend: BackendChoice::Flex,
            gamma: 0.99,
            hidden: 128,
            lr: 1e-4,
            critic_lr: 1e-3,
            replay_capacity: 1000,
            batch_size: 64,
            target: TargetNetwork::Periodic,
            target_sync_steps: 500,
            epsilon: EpsilonSchedule::default(),
            critic_gradient: CriticGradient::SemiGradient,
            eval_games: 1000,
            envs: 1,
            checkpoint_every: 1000,
        }
    }
}

impl KnightConfig {
    /// Checks value ranges; errors name the key.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.episodes > 0, "episodes must be positive");
        self.epsilon.validate().map_err(anyhow::Error::msg)?;
        ensure!(
            (0.0..=1.0).contains(&self.gamma),
            "gamma must lie in [0, 1]"
        );
        ensure!(
            (1..=MAX_HIDDEN).contains(&self.hidden),
            "hidden must lie in 1..={MAX_HIDDEN}"
        );
        ensure!(
            self.lr > 0.0 && self.critic_lr > 0.0,
            "lr and critic_lr must be positive"
        );
        ensure!(self.batch_size > 0, "batch_size must be positive");
        ensure!(
            self.replay_capacity > self.batch_size,
            "replay_capacity must exceed batch_size"
        );
        ensure!(
            self.replay_capacity <= MAX_REPLAY,
            "replay_capacity must be at most {MAX_REPLAY}"
        );
        ensure!(self.eval_games > 0, "eval_games must be positive");
        ensure!(
            self.checkpoint_every > 0,
            "checkpoint_every must be positive"
        );
        ensure!(
            (1..=65536).contains(&self.envs),
            "envs must lie in 1..65536"
        );
        ensure!(
            self.envs == 1 || self.agent == KnightAgentKind::Dqn,
            "envs > 1 is supported for agent = \"dqn\" only"
        );
        Ok(())
    }

    /// Applies command-line overrides.
    pub fn with_overrides(mut self, o: &Overrides) -> KnightConfig {
        self.backend = o.backend.unwrap_or(self.backend);
        self.seed = o.seed.unwrap_or(self.seed);
        self.episodes = o.episodes.unwrap_or(self.episodes);
        self.envs = o.envs.unwrap_or(self.envs);
        self
    }

    /// Layer sizes of the Q-network or actor (`outputs` = 8) or critic (1).
    pub fn sizes(&self, outputs: usize) -> Vec<usize> {
        vec![
            burnmate_encode::knight::FEATURES,
            self.hidden,
            self.hidden,
            outputs,
        ]
    }
}
