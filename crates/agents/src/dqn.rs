//! DQN (Mnih et al.) over any encoded game, as the knight study runs it: an MLP
//! Q-network, a replay buffer, one minibatch update after every step once more than
//! a minibatch is stored, Adam on the mean squared error to
//!
//! ```text
//! y = r + gamma * max_a' Q_target(s', a')      (y = r after a terminal step)
//! ```
//!
//! The max runs over all actions (the study's game has no illegal actions).

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_models::{DeepMlp, LayerWeights};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::adam::Adam;
use crate::agent::Agent;
use crate::exploration::{epsilon_greedy, greedy};
use crate::optim::TrainedNet;
use crate::replay::ReplayBuffer;
use crate::transition::{Transition, is_legal};

/// Which network gives the bootstrap target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetNetwork {
    /// A copy of the online network refreshed every `target_sync_steps` updates
    /// (default: the standard DQN remedy for chasing a moving target).
    Periodic,
    /// The study's code: a target network that is never refreshed, so targets come
    /// from the random initial network forever.
    Reference,
    /// No target network: the online network bootstraps itself.
    None,
}

/// DQN hyper-parameters (defaults: the study's).
#[derive(Clone, Debug, PartialEq)]
pub struct DqnConfig {
    /// Layer sizes from the encoding's width to the action count (knight: `[4, 128, 128, 8]`).
    pub sizes: Vec<usize>,
    /// Adam learning rate (1e-4).
    pub lr: f64,
    /// Discount (0.99).
    pub gamma: f32,
    /// Replay capacity (1000).
    pub replay_capacity: usize,
    /// Minibatch size (64).
    pub batch_size: usize,
    /// Target network variant.
    pub target: TargetNetwork,
    /// Updates between target refreshes (periodic only).
    pub target_sync_steps: u64,
}

/// A DQN agent's training state (see [`Dqn::snapshot`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DqnState {
    /// The online network and its Adam state.
    pub online: TrainedNet,
    /// The target network's layers, if the agent has one.
    pub target: Option<Vec<LayerWeights>>,
    /// The replay buffer in slot order.
    pub replay: Vec<Transition>,
    /// The replay slot written next.
    pub replay_next: usize,
    /// Updates made (the target refresh counts them).
    pub updates: u64,
}

/// The DQN agent.
pub struct Dqn {
    config: DqnConfig,
    device: Device,
    online: DeepMlp,
    target: Option<DeepMlp>,
    optimizer: Adam,
    replay: ReplayBuffer,
    updates: u64,
    /// Set once a Q-value read to the host is not finite.
    diverged: std::cell::Cell<bool>,
}

fn host(t: Tensor<2>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("f32 outputs")
}

impl Dqn {
    /// A fresh agent; `device` must have autodiff enabled.
    pub fn new(config: DqnConfig, device: Device, layers: &[LayerWeights]) -> Result<Dqn, String> {
        let online = DeepMlp::from_weights(layers, &device)?;
        let target = (config.target != TargetNetwork::None).then(|| online.clone());
        Ok(Dqn {
            replay: ReplayBuffer::new(config.replay_capacity),
            diverged: std::cell::Cell::new(false),
            optimizer: Adam::new(&online, &device),
            config,
            device,
            online,
            target,
            updates: 0,
        })
    }

    /// Everything training has changed: the networks, Adam's state, the replay
    /// buffer and the update count (a checkpoint to continue from exactly).
    pub fn snapshot(&self) -> Result<DqnState, String> {
        let (items, next) = self.replay.parts();
        Ok(DqnState {
            online: TrainedNet::of(&self.online, &self.optimizer),
            target: self.target.as_ref().map(DeepMlp::weights),
            replay: items.to_vec(),
            replay_next: next,
            updates: self.updates,
        })
    }

    /// The agent of a [`Dqn::snapshot`]; `device` must have autodiff enabled.
    pub fn restore(config: DqnConfig, device: Device, state: DqnState) -> Result<Dqn, String> {
        let (online, optimizer) = state.online.restore(&device)?;
        let target = match (&state.target, config.target) {
            (Some(layers), TargetNetwork::Periodic | TargetNetwork::Reference) => {
                Some(DeepMlp::from_weights(layers, &device)?)
            }
            (None, TargetNetwork::None) => None,
            _ => return Err("the saved target network does not fit the config".into()),
        };
        Ok(Dqn {
            replay: ReplayBuffer::from_parts(
                config.replay_capacity,
                state.replay,
                state.replay_next,
            )?,
            diverged: std::cell::Cell::new(false),
            optimizer,
            config,
            device,
            online,
            target,
            updates: state.updates,
        })
    }

    /// Host copies of the online network's layers.
    pub fn weights(&self) -> Vec<LayerWeights> {
        self.online.weights()
    }

    /// Floats per encoded state.
    pub fn width(&self) -> usize {
        self.config.sizes[0]
    }

    /// Number of actions.
    pub fn actions(&self) -> usize {
        *self.config.sizes.last().expect("at least one layer")
    }

    fn rows_tensor(&self, rows: Vec<f32>) -> Tensor<2> {
        let n = rows.len() / self.width();
        Tensor::from_data(TensorData::new(rows, [n, self.width()]), &self.device)
    }

    /// The outputs of `net` for `rows`, without autodiff (a tracked forward pass
    /// would grow the parameters' graph until the next backward pass: without
    /// updates, as in an evaluation, memory grows with every step).
    fn infer(&self, net: &DeepMlp, rows: Vec<f32>) -> Vec<f32> {
        let n = rows.len() / self.width();
        let inference = self.device.clone().without_autodiff();
        let x = Tensor::from_data(TensorData::new(rows, [n, self.width()]), &inference);
        host(net.valid().forward(x))
    }

    /// Q-values of the encoded states in `rows` (one or many, `width()` floats each),
    /// `actions()` values per state: one forward pass and one download for all.
    pub fn q_values(&self, rows: &[f32]) -> Vec<f32> {
        let q = self.infer(&self.online, rows.to_vec());
        if q.iter().any(|v| !v.is_finite()) {
            self.diverged.set(true);
        }
        q
    }

    /// Stores one step of every environment, then makes one minibatch update (once
    /// more than a minibatch is stored): the update rate of vectorised DQN is one
    /// per vector step.
    pub fn learn_vector_step(&mut self, transitions: Vec<Transition>, rng: &mut dyn Rng) {
        for t in transitions {
            self.replay.push(t);
        }
        if self.replay.len() > self.config.batch_size {
            let batch = self.replay.sample(self.config.batch_size, rng);
            let targets = self.targets(&batch);
            self.update(&batch, &targets);
        }
    }

    /// ALGO: the regression targets `r + gamma * max over legal a' of Q_target(s', a')`
    /// (or `r` when done).
    pub fn targets(&self, batch: &[Transition]) -> Vec<f32> {
        let rows: Vec<f32> = batch
            .iter()
            .flat_map(|t| t.next_state.iter().copied())
            .collect();
        let next_q = self.infer(self.target.as_ref().unwrap_or(&self.online), rows);
        batch
            .iter()
            .zip(next_q.chunks_exact(self.actions()))
            .map(|(t, q)| {
                let best = q
                    .iter()
                    .enumerate()
                    .filter(|&(a, _)| is_legal(&t.next_legal, a))
                    .map(|(_, &v)| v)
                    .fold(f32::NEG_INFINITY, f32::max);
                t.reward
                    + if t.done {
                        0.0
                    } else {
                        self.config.gamma * best
                    }
            })
            .collect()
    }

    /// One Adam step on the mean squared error of `Q(s, a)` against `targets`;
    /// returns the loss as a one-element tensor, left on the device (reading it is a
    /// sync point, so the training loop does not).
    pub fn update(&mut self, batch: &[Transition], targets: &[f32]) -> Tensor<1> {
        let (n, actions) = (batch.len(), self.actions());
        let rows: Vec<f32> = batch.iter().flat_map(|t| t.state.iter().copied()).collect();
        let mut chosen = vec![0.0f32; n * actions];
        for (i, t) in batch.iter().enumerate() {
            chosen[i * actions + t.action] = 1.0;
        }
        let mask = Tensor::<2>::from_data(TensorData::new(chosen, [n, actions]), &self.device);
        let target =
            Tensor::<2>::from_data(TensorData::new(targets.to_vec(), [n, 1]), &self.device);
        // ALGO: Q(s, a) of the chosen actions, MSE to the targets, one Adam step.
        let q = self
            .online
            .forward(self.rows_tensor(rows))
            .mul(mask)
            .sum_dim(1);
        let loss = (q - target).powf_scalar(2.0).mean();
        let value = loss.clone().detach();
        let grads = GradientsParams::from_grads(loss.backward(), &self.online);
        self.online = self
            .optimizer
            .step(self.config.lr, self.online.clone(), grads);
        self.updates += 1;
        if self.config.target == TargetNetwork::Periodic
            && self
                .updates
                .is_multiple_of(self.config.target_sync_steps.max(1))
        {
            self.target = Some(self.online.clone());
        }
        value
    }
}

impl Agent for Dqn {
    /// Epsilon-greedy over `legal` (greedy when evaluating).
    fn act(
        &mut self,
        row: &[f32],
        legal: &[usize],
        epsilon: f64,
        greedy_only: bool,
        rng: &mut dyn Rng,
    ) -> usize {
        let q = self.q_values(row);
        if greedy_only {
            greedy(&q, legal)
        } else {
            epsilon_greedy(&q, legal, epsilon, rng)
        }
    }

    fn diverged(&self) -> bool {
        self.diverged.get()
    }

    fn learn(&mut self, transition: Transition, rng: &mut dyn Rng) {
        self.replay.push(transition);
        if self.replay.len() > self.config.batch_size {
            let batch = self.replay.sample(self.config.batch_size, rng);
            let targets = self.targets(&batch);
            self.update(&batch, &targets);
        }
    }
}
