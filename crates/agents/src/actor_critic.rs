//! One-step actor-critic over any encoded game, as the knight study runs it: a
//! softmax actor and a state-value critic, two Adam optimisers, one update per step:
//!
//! ```text
//! delta       = r + gamma * V(s') - V(s)       (V(s') = 0 after a terminal step)
//! critic loss = delta^2
//! actor loss  = -log pi(a|s) * delta
//! ```

use burn::module::Module;
use burn::optim::GradientsParams;

use burn::tensor::activation::{log_softmax, softmax};
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_models::{DeepMlp, LayerWeights};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::adam::Adam;
use crate::agent::Agent;
use crate::error::{AgentError, unit_interval};
use crate::optim::TrainedNet;
use crate::transition::Transition;

/// Whether the critic's gradient flows through the bootstrap term `V(s')`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CriticGradient {
    /// The TD target is held fixed (semi-gradient TD(0); default).
    SemiGradient,
    /// The study's code: `delta^2` differentiated through `V(s')` as well.
    Reference,
}

/// Actor-critic hyper-parameters (defaults: the study's).
#[derive(Clone, Debug, PartialEq)]
pub struct ActorCriticConfig {
    /// Actor Adam learning rate (1e-4).
    pub actor_lr: f64,
    /// Critic Adam learning rate (1e-3).
    pub critic_lr: f64,
    /// Discount (0.99).
    pub gamma: f32,
    /// Critic gradient variant.
    pub critic_gradient: CriticGradient,
}

impl Default for ActorCriticConfig {
    /// The knight study's actor-critic: Adam 1e-4 (actor) and 1e-3 (critic), gamma
    /// 0.99, the semi-gradient critic.
    fn default() -> ActorCriticConfig {
        ActorCriticConfig {
            actor_lr: 1e-4,
            critic_lr: 1e-3,
            gamma: 0.99,
            critic_gradient: CriticGradient::SemiGradient,
        }
    }
}

impl ActorCriticConfig {
    /// Checks the settings; the error names the setting. [`ActorCritic::new`] calls it.
    pub fn check(&self) -> Result<(), AgentError> {
        for (name, lr) in [("actor_lr", self.actor_lr), ("critic_lr", self.critic_lr)] {
            if !(lr > 0.0 && lr.is_finite()) {
                return Err(AgentError::Setting(format!(
                    "{name} must be a positive number, not {lr}"
                )));
            }
        }
        unit_interval("gamma", self.gamma)?;
        Ok(())
    }
}

/// An actor-critic agent's training state (see [`ActorCritic::snapshot`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActorCriticState {
    /// The actor and its Adam state.
    pub actor: TrainedNet,
    /// The critic and its Adam state.
    pub critic: TrainedNet,
}

/// The actor-critic agent.
pub struct ActorCritic {
    config: ActorCriticConfig,
    width: usize,
    actions: usize,
    device: Device,
    actor: DeepMlp,
    critic: DeepMlp,
    actor_optimizer: Adam,
    critic_optimizer: Adam,
    /// Set once action probabilities read to the host are not finite.
    diverged: std::cell::Cell<bool>,
}

/// The losses of one update, still on the device, for tests and logs.
#[derive(Clone, Debug)]
pub struct ActorCriticLosses {
    /// `delta` with both values from before the update.
    pub delta: Tensor<1>,
    /// Critic loss `delta^2`.
    pub critic: Tensor<1>,
    /// Actor loss `-log pi(a|s) * delta`.
    pub actor: Tensor<1>,
}

impl ActorCriticLosses {
    /// The three values on the host (one sync point): delta, critic, actor.
    pub fn read(self) -> [f32; 3] {
        [self.delta, self.critic, self.actor]
            .map(|t| t.into_data().try_into_vec::<f32>().expect("f32 scalar")[0])
    }
}

impl ActorCritic {
    /// A fresh agent; `device` must have autodiff enabled.
    pub fn new(
        config: ActorCriticConfig,
        device: Device,
        actor: &[LayerWeights],
        critic: &[LayerWeights],
    ) -> Result<ActorCritic, AgentError> {
        config.check()?;
        let (width, actions) = match (actor.first(), actor.last()) {
            (Some(first), Some(last)) => (first.inputs, last.outputs),
            _ => {
                return Err(AgentError::Shape(
                    "the actor needs at least one layer".into(),
                ));
            }
        };
        let (actor, critic) = (
            DeepMlp::from_weights(actor, &device).map_err(AgentError::Shape)?,
            DeepMlp::from_weights(critic, &device).map_err(AgentError::Shape)?,
        );
        Ok(ActorCritic {
            width,
            actions,
            actor_optimizer: Adam::new(&actor, &device),
            critic_optimizer: Adam::new(&critic, &device),
            actor,
            critic,
            diverged: std::cell::Cell::new(false),
            config,
            device,
        })
    }

    /// Both networks with their Adam states (a checkpoint to continue from exactly).
    pub fn snapshot(&self) -> Result<ActorCriticState, AgentError> {
        Ok(ActorCriticState {
            actor: TrainedNet::of(&self.actor, &self.actor_optimizer),
            critic: TrainedNet::of(&self.critic, &self.critic_optimizer),
        })
    }

    /// The agent of an [`ActorCritic::snapshot`]; `device` must have autodiff enabled.
    pub fn restore(
        config: ActorCriticConfig,
        device: Device,
        state: &ActorCriticState,
    ) -> Result<ActorCritic, AgentError> {
        let mut agent = ActorCritic::new(
            config,
            device.clone(),
            &state.actor.layers,
            &state.critic.layers,
        )?;
        (agent.actor, agent.actor_optimizer) = state.actor.restore(&device)?;
        (agent.critic, agent.critic_optimizer) = state.critic.restore(&device)?;
        Ok(agent)
    }

    /// Host copies of (actor, critic) layers.
    pub fn weights(&self) -> (Vec<LayerWeights>, Vec<LayerWeights>) {
        (self.actor.weights(), self.critic.weights())
    }

    fn row(&self, state: &[f32]) -> Tensor<2> {
        Tensor::from_data(
            TensorData::new(state.to_vec(), [1, self.width]),
            &self.device,
        )
    }

    /// The policy's action probabilities at the encoded state `row`.
    pub fn probabilities(&self, row: &[f32]) -> Vec<f32> {
        let inference = self.device.clone().without_autodiff();
        let x = Tensor::from_data(TensorData::new(row.to_vec(), [1, self.width]), &inference);
        let probabilities = softmax(self.actor.valid().forward(x), 1)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 probabilities");
        if probabilities.iter().any(|p| !p.is_finite()) {
            self.diverged.set(true);
        }
        probabilities
    }

    /// One update of critic and actor from `t`; nothing is read back from the device
    /// (the losses stay there until [`ActorCriticLosses::read`]).
    pub fn update(&mut self, t: &Transition) -> ActorCriticLosses {
        // ALGO: delta = r + gamma V(s') - V(s); critic on delta^2, actor on -delta log pi(a|s).
        let v = self.critic.forward(self.row(&t.state));
        let v_next = self.critic.forward(self.row(&t.next_state));
        let not_done = if t.done { 0.0 } else { 1.0 };
        let bootstrap = match self.config.critic_gradient {
            CriticGradient::Reference => v_next,
            CriticGradient::SemiGradient => v_next.detach(),
        };
        let delta = bootstrap
            .mul_scalar(self.config.gamma * not_done)
            .add_scalar(t.reward)
            - v;
        let critic_loss = delta.clone().powf_scalar(2.0).sum();
        let delta_value: Tensor<1> = delta.detach().reshape([1]);
        let critic_value = critic_loss.clone().detach();
        let grads = GradientsParams::from_grads(critic_loss.backward(), &self.critic);
        self.critic_optimizer
            .step(self.config.critic_lr, &mut self.critic, grads);

        // The policy acted over the legal moves only: log pi(a|s) is the log-softmax
        // over them (illegal logits pushed to -1e9; nothing changes when all are legal).
        let logits = self.actor.forward(self.row(&t.state));
        let logits = if t.legal.is_empty() {
            logits
        } else {
            let bias: Vec<f32> = t
                .legal
                .iter()
                .map(|&legal| if legal { 0.0 } else { -1e9 })
                .collect();
            logits + Tensor::<2>::from_data(TensorData::new(bias, [1, self.actions]), &self.device)
        };
        let log_probs = log_softmax(logits, 1);
        let mut chosen = vec![0.0f32; self.actions];
        chosen[t.action] = 1.0;
        let mask = Tensor::<2>::from_data(TensorData::new(chosen, [1, self.actions]), &self.device);
        let actor_loss = log_probs.mul(mask).sum().mul(delta_value.clone().neg());
        let actor_value = actor_loss.clone().detach();
        let grads = GradientsParams::from_grads(actor_loss.backward(), &self.actor);
        self.actor_optimizer
            .step(self.config.actor_lr, &mut self.actor, grads);
        ActorCriticLosses {
            delta: delta_value,
            critic: critic_value,
            actor: actor_value,
        }
    }
}

impl Agent for ActorCritic {
    /// Samples from the softmax policy restricted to `legal`, in training and
    /// evaluation alike (as the study).
    fn act(&mut self, row: &[f32], legal: &[usize], _: f64, _: bool, rng: &mut dyn Rng) -> usize {
        let probs = self.probabilities(row);
        let mut u = rng.random::<f32>() * legal.iter().map(|&a| probs[a]).sum::<f32>();
        for &a in legal {
            if u < probs[a] {
                return a;
            }
            u -= probs[a];
        }
        *legal.last().expect("a legal action")
    }

    fn learn(&mut self, transition: Transition, _: &mut dyn Rng) {
        self.update(&transition);
    }

    fn diverged(&self) -> bool {
        self.diverged.get()
    }
}
