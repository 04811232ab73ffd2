//! DQN (Mnih et al.) over any encoded game, as the knight study runs it: an MLP
//! Q-network, a replay buffer, one minibatch update after every step once more than
//! a minibatch is stored, Adam on the mean squared error to
//!
//! ```text
//! y = r + gamma * max_a' Q_target(s', a')      (y = r after a terminal step)
//! ```
//!
//! The max runs over the legal actions of `s'` (the knight game has no illegal
//! actions, so there it is every action).

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_models::{DeepMlp, LayerWeights};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::adam::Adam;
use crate::agent::Agent;
use crate::beside::Beside;
use crate::error::{AgentError, unit_interval};
use crate::exploration::{epsilon_greedy, greedy};
use crate::host_memory::{host, in_host_memory};
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

impl Default for DqnConfig {
    /// The knight study's DQN (Solime): 4-128-128-8, Adam 1e-4, gamma 0.99, replay
    /// 1000, minibatch 64, target refreshed every 500 updates.
    fn default() -> DqnConfig {
        DqnConfig {
            sizes: vec![4, 128, 128, 8],
            lr: 1e-4,
            gamma: 0.99,
            replay_capacity: 1000,
            batch_size: 64,
            target: TargetNetwork::Periodic,
            target_sync_steps: 500,
        }
    }
}

impl DqnConfig {
    /// Checks the settings; the error names the setting. [`Dqn::new`] and
    /// [`Dqn::restore`] call it, so a library caller cannot skip it.
    pub fn check(&self) -> Result<(), AgentError> {
        if self.sizes.len() < 2 || self.sizes.contains(&0) {
            return Err(AgentError::Setting(format!(
                "layer sizes must be 2 or more positive numbers, not {:?}",
                self.sizes
            )));
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(AgentError::Setting(format!(
                "lr must be a positive number, not {}",
                self.lr
            )));
        }
        unit_interval("gamma", self.gamma)?;
        if self.batch_size == 0 || self.replay_capacity <= self.batch_size {
            return Err(AgentError::Setting(format!(
                "replay_capacity ({}) must exceed a positive batch_size ({})",
                self.replay_capacity, self.batch_size
            )));
        }
        if self.target == TargetNetwork::Periodic && self.target_sync_steps == 0 {
            return Err(AgentError::Setting(
                "target_sync_steps must be positive with a periodic target".into(),
            ));
        }
        Ok(())
    }
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
    /// Runs the targets' forward pass beside the update (CPU backends, spare core).
    beside: Option<Beside>,
    replay: ReplayBuffer,
    updates: u64,
    /// Set once a Q-value read to the host is not finite.
    diverged: std::cell::Cell<bool>,
}

/// `rows` (`width` floats each) as a `[n, width]` tensor on `device`.
fn rows_tensor(rows: Vec<f32>, width: usize, device: &Device) -> Tensor<2> {
    let n = rows.len() / width;
    Tensor::from_data(TensorData::new(rows, [n, width]), device)
}

/// The outputs of the inference network `net` for `rows` (`width` floats each) on the
/// inference `device`.
fn outputs(net: &DeepMlp, rows: Vec<f32>, width: usize, device: &Device) -> Vec<f32> {
    host(net.forward(rows_tensor(rows, width, device)))
}

/// A helper thread for the targets, on CPU backends with a core to spare.
fn spare_core(device: &Device) -> Option<Beside> {
    in_host_memory(device).then(Beside::on_spare_core).flatten()
}

/// The next states of `batch`, one row each.
fn next_rows(batch: &[Transition]) -> Vec<f32> {
    batch
        .iter()
        .flat_map(|t| t.next_state.iter().copied())
        .collect()
}

impl Dqn {
    /// A fresh agent; `device` must have autodiff enabled.
    pub fn new(
        config: DqnConfig,
        device: Device,
        layers: &[LayerWeights],
    ) -> Result<Dqn, AgentError> {
        config.check()?;
        let online = DeepMlp::from_weights(layers, &device).map_err(AgentError::Shape)?;
        let target = (config.target != TargetNetwork::None).then(|| online.clone());
        Ok(Dqn {
            replay: ReplayBuffer::new(config.replay_capacity),
            diverged: std::cell::Cell::new(false),
            optimizer: Adam::new(&online, &device),
            beside: spare_core(&device),
            config,
            device,
            online,
            target,
            updates: 0,
        })
    }

    /// Everything training has changed: the networks, Adam's state, the replay
    /// buffer and the update count (a checkpoint to continue from exactly).
    pub fn snapshot(&self) -> Result<DqnState, AgentError> {
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
    pub fn restore(config: DqnConfig, device: Device, state: DqnState) -> Result<Dqn, AgentError> {
        config.check()?;
        let (online, optimizer) = state.online.restore(&device)?;
        let target = match (&state.target, config.target) {
            (Some(layers), TargetNetwork::Periodic | TargetNetwork::Reference) => {
                Some(DeepMlp::from_weights(layers, &device).map_err(AgentError::Shape)?)
            }
            (None, TargetNetwork::None) => None,
            _ => {
                return Err(AgentError::Shape(
                    "the saved target network does not fit the config".into(),
                ));
            }
        };
        Ok(Dqn {
            replay: ReplayBuffer::from_parts(
                config.replay_capacity,
                state.replay,
                state.replay_next,
            )?,
            diverged: std::cell::Cell::new(false),
            optimizer,
            beside: spare_core(&device),
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

    /// The outputs of `net` for `rows`, without autodiff (a tracked forward pass
    /// would grow the parameters' graph until the next backward pass: without
    /// updates, as in an evaluation, memory grows with every step).
    fn infer(&self, net: &DeepMlp, rows: Vec<f32>) -> Vec<f32> {
        let inference = self.device.clone().without_autodiff();
        outputs(&net.valid(), rows, self.width(), &inference)
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
            self.learn_from_replay(rng);
        }
    }

    /// ALGO: the regression targets `r + gamma * max over legal a' of Q_target(s', a')`
    /// (or `r` when done).
    pub fn targets(&self, batch: &[Transition]) -> Vec<f32> {
        let next_q = self.infer(self.bootstrap_net(), next_rows(batch));
        self.bootstrap(batch, &next_q)
    }

    /// The network that values next states: the target network, or the online one.
    fn bootstrap_net(&self) -> &DeepMlp {
        self.target.as_ref().unwrap_or(&self.online)
    }

    /// The targets from the next states' Q-values `next_q`.
    fn bootstrap(&self, batch: &[Transition], next_q: &[f32]) -> Vec<f32> {
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
        let q = self.chosen_q(batch);
        self.fit(q, targets)
    }

    /// One minibatch update from the replay buffer. With a helper thread, the targets'
    /// forward pass runs on it beside the tracked pass (the same operations on the
    /// same values: the same numbers as [`Dqn::targets`] then [`Dqn::update`]).
    fn learn_from_replay(&mut self, rng: &mut dyn Rng) {
        let batch = self.replay.sample(self.config.batch_size, rng);
        let Some(beside) = &self.beside else {
            let targets = self.targets(&batch);
            self.update(&batch, &targets);
            return;
        };
        let (net, rows) = (self.bootstrap_net().valid(), next_rows(&batch));
        let (width, device) = (self.width(), self.device.clone().without_autodiff());
        beside.start(move || outputs(&net, rows, width, &device));
        let q = self.chosen_q(&batch);
        let targets = self.bootstrap(&batch, &beside.finish());
        if beside.starved() {
            self.beside = None;
        }
        self.fit(q, &targets);
    }

    /// Tracked `Q(s, a)` of the batch's chosen actions, `[n, 1]`.
    fn chosen_q(&self, batch: &[Transition]) -> Tensor<2> {
        let (n, actions) = (batch.len(), self.actions());
        let rows: Vec<f32> = batch.iter().flat_map(|t| t.state.iter().copied()).collect();
        let mut chosen = vec![0.0f32; n * actions];
        for (i, t) in batch.iter().enumerate() {
            chosen[i * actions + t.action] = 1.0;
        }
        let mask = Tensor::<2>::from_data(TensorData::new(chosen, [n, actions]), &self.device);
        // ALGO: Q(s, a) of the chosen actions,
        self.online
            .forward(rows_tensor(rows, self.width(), &self.device))
            .mul(mask)
            .sum_dim(1)
    }

    /// ALGO: ... their mean squared error to the targets, one Adam step.
    fn fit(&mut self, q: Tensor<2>, targets: &[f32]) -> Tensor<1> {
        let shape = [targets.len(), 1];
        let target = Tensor::<2>::from_data(TensorData::new(targets.to_vec(), shape), &self.device);
        let loss = (q - target).powf_scalar(2.0).mean();
        let value = loss.clone().detach();
        let grads = GradientsParams::from_grads(loss.backward(), &self.online);
        self.optimizer.step(self.config.lr, &mut self.online, grads);
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
            self.learn_from_replay(rng);
        }
    }
}
