//! Building knight agents, and their checkpoint (layers of every network).

use std::path::Path;

use anyhow::{Result, anyhow};
use burn::tensor::Device;
use burnmate_agents::actor_critic::{ActorCritic, ActorCriticConfig, ActorCriticState};
use burnmate_agents::agent::{Agent, RandomAgent};
use burnmate_agents::dqn::{Dqn, DqnConfig, DqnState};
use burnmate_agents::init::uniform_layers;
use burnmate_env::knight::ACTIONS;
use burnmate_models::LayerWeights;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::run::checkpoint;
use crate::studies::knight::config::{KnightAgentKind, KnightConfig};

/// File name of the checkpoint inside a run directory.
pub const CHECKPOINT: &str = "checkpoint.json";
const FORMAT: &str = "burnmate-knight-v1";

/// A knight agent of any kind.
pub enum Learner {
    /// DQN.
    Dqn(Box<Dqn>),
    /// Actor-critic.
    ActorCritic(Box<ActorCritic>),
    /// Random baseline.
    Random(RandomAgent),
}

impl Learner {
    /// A fresh agent for `config`, weights drawn from `rng`; `device` has autodiff.
    pub fn new(config: &KnightConfig, device: Device, rng: &mut impl Rng) -> Result<Learner> {
        let networks = match config.agent {
            KnightAgentKind::Dqn => vec![uniform_layers(&config.sizes(ACTIONS), rng)],
            KnightAgentKind::ActorCritic => vec![
                uniform_layers(&config.sizes(ACTIONS), rng),
                uniform_layers(&config.sizes(1), rng),
            ],
            KnightAgentKind::Random => vec![],
        };
        Learner::from_networks(config, device, &networks)
    }

    fn from_networks(
        config: &KnightConfig,
        device: Device,
        networks: &[Vec<LayerWeights>],
    ) -> Result<Learner> {
        Ok(match (config.agent, networks) {
            (KnightAgentKind::Dqn, [q]) => {
                Learner::Dqn(Box::new(Dqn::new(dqn_config(config), device, q)?))
            }
            (KnightAgentKind::ActorCritic, [actor, critic]) => Learner::ActorCritic(Box::new(
                ActorCritic::new(actor_critic_config(config), device, actor, critic)?,
            )),
            (KnightAgentKind::Random, []) => Learner::Random(RandomAgent),
            (kind, n) => {
                return Err(anyhow!(
                    "{kind:?} cannot be built from {} networks",
                    n.len()
                ));
            }
        })
    }

    /// Everything training has changed (networks, Adam states, replay buffer).
    pub fn snapshot(&self) -> Result<KnightLearnerState> {
        Ok(match self {
            Learner::Dqn(a) => {
                KnightLearnerState::Dqn(Box::new(a.snapshot().map_err(|e| anyhow!(e))?))
            }
            Learner::ActorCritic(a) => {
                KnightLearnerState::ActorCritic(Box::new(a.snapshot().map_err(|e| anyhow!(e))?))
            }
            Learner::Random(_) => KnightLearnerState::Random,
        })
    }

    /// The learner of a [`Learner::snapshot`]; `device` has autodiff.
    pub fn restore(
        config: &KnightConfig,
        device: Device,
        state: KnightLearnerState,
    ) -> Result<Learner> {
        Ok(match (config.agent, state) {
            (KnightAgentKind::Dqn, KnightLearnerState::Dqn(s)) => Learner::Dqn(Box::new(
                Dqn::restore(dqn_config(config), device, *s).map_err(|e| anyhow!(e))?,
            )),
            (KnightAgentKind::ActorCritic, KnightLearnerState::ActorCritic(s)) => {
                Learner::ActorCritic(Box::new(
                    ActorCritic::restore(actor_critic_config(config), device, &s)
                        .map_err(|e| anyhow!(e))?,
                ))
            }
            (KnightAgentKind::Random, KnightLearnerState::Random) => Learner::Random(RandomAgent),
            (kind, _) => anyhow::bail!("the resume point does not hold a {kind:?} agent"),
        })
    }

    /// Whether the agent's outputs became NaN or infinite.
    pub fn diverged(&self) -> bool {
        match self {
            Learner::Dqn(a) => a.diverged(),
            Learner::ActorCritic(a) => a.diverged(),
            Learner::Random(a) => a.diverged(),
        }
    }

    /// The agent the training loop drives.
    pub fn agent(&mut self) -> &mut dyn Agent {
        match self {
            Learner::Dqn(a) => a.as_mut(),
            Learner::ActorCritic(a) => a.as_mut(),
            Learner::Random(a) => a,
        }
    }

    fn networks(&self) -> Vec<Vec<LayerWeights>> {
        match self {
            Learner::Dqn(a) => vec![a.weights()],
            Learner::ActorCritic(a) => {
                let (actor, critic) = a.weights();
                vec![actor, critic]
            }
            Learner::Random(_) => vec![],
        }
    }
}

/// A knight learner's training state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum KnightLearnerState {
    /// DQN's networks, Adam state, replay buffer and update count.
    Dqn(Box<DqnState>),
    /// Actor-critic's networks and Adam states.
    ActorCritic(Box<ActorCriticState>),
    /// The random agent has none.
    Random,
}

/// DQN's settings in `config`.
fn dqn_config(config: &KnightConfig) -> DqnConfig {
    DqnConfig {
        sizes: config.sizes(ACTIONS),
        lr: config.lr,
        gamma: config.gamma,
        replay_capacity: config.replay_capacity,
        batch_size: config.batch_size,
        target: config.target,
        target_sync_steps: config.target_sync_steps,
    }
}

/// Actor-critic's settings in `config`.
fn actor_critic_config(config: &KnightConfig) -> ActorCriticConfig {
    ActorCriticConfig {
        actor_lr: config.lr,
        critic_lr: config.critic_lr,
        gamma: config.gamma,
        critic_gradient: config.critic_gradient,
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct KnightCheckpoint {
    config: KnightConfig,
    networks: Vec<Vec<LayerWeights>>,
}

/// Saves the agent into `dir/checkpoint.json`.
pub fn save(dir: &Path, config: &KnightConfig, learner: &Learner) -> Result<()> {
    let networks = learner.networks();
    let file = KnightCheckpoint {
        config: config.clone(),
        networks,
    };
    checkpoint::save(&dir.join(CHECKPOINT), FORMAT, &file)
}

/// Loads the agent saved in run directory `dir` onto `device` (with autodiff).
pub fn load(dir: &Path, device: Device) -> Result<(KnightConfig, Learner)> {
    let path = dir.join(CHECKPOINT);
    let file: KnightCheckpoint = checkpoint::load(&path, FORMAT)?;
    let learner = Learner::from_networks(&file.config, device, &file.networks)
        .map_err(|e| anyhow!("checkpoint {}: {e}", path.display()))?;
    Ok((file.config, learner))
}
