//! The network, its forward passes on encoded rows, and the manual update.

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::queen4x4::{FEATURES, encode};
use burnmate_env::queen4x4::{ACTIONS, Position};
use burnmate_models::{MlpWeights, TwoLayerMlp, TwoLayerMlpConfig, TwoLayerOutput};
use rand::Rng;

use super::config::LuoConfig;
use super::update::{StepSignal, step_chosen_output};
use crate::error::AgentError;
use crate::exploration::greedy;
use crate::init::scaled_normal;

/// One forward pass over a batch of encoded states.
pub(crate) struct Forward {
    /// The encoded rows, `[batch, width]`.
    pub x: Tensor<2>,
    /// Hidden activations and outputs.
    pub parts: TwoLayerOutput,
    /// Host copy of the outputs, row-major `[batch, actions]`.
    pub q: Vec<f32>,
    /// Outputs per row.
    actions: usize,
}

impl Forward {
    /// Outputs of row `row`.
    pub fn q_row(&self, row: usize) -> &[f32] {
        &self.q[row * self.actions..(row + 1) * self.actions]
    }

    /// Input and hidden activations of row `row`, each `[1, n]`.
    pub fn row_tensors(&self, row: usize) -> (Tensor<2>, Tensor<2>) {
        let [batch, hidden] = self.parts.hidden.dims();
        if batch == 1 {
            return (self.x.clone(), self.parts.hidden.clone());
        }
        let width = self.x.dims()[1];
        (
            self.x.clone().slice([row..row + 1, 0..width]),
            self.parts.hidden.clone().slice([row..row + 1, 0..hidden]),
        )
    }
}

/// A one-output TD agent (the queen4x4 study's): a width-H-actions network on a Burn
/// device and its update rule. The study's shape is 58-200-32.
pub struct LuoAgent {
    /// Always `Some` between calls; taken out only while an update rebuilds it.
    net: Option<TwoLayerMlp>,
    pub(crate) config: LuoConfig,
    device: Device,
    width: usize,
    actions: usize,
    diverged: bool,
}

impl LuoAgent {
    /// A fresh agent for the queen4x4 study (58 features, 32 actions).
    pub fn new(
        config: LuoConfig,
        device: Device,
        rng: &mut impl Rng,
    ) -> Result<LuoAgent, AgentError> {
        LuoAgent::with_shape(config, FEATURES, ACTIONS, device, rng)
    }

    /// A fresh agent for `width` features and `actions` actions: weights
    /// `N(0,1) * sqrt(1/fan_in)` drawn from `rng`, biases 0.
    pub fn with_shape(
        config: LuoConfig,
        width: usize,
        actions: usize,
        device: Device,
        rng: &mut impl Rng,
    ) -> Result<LuoAgent, AgentError> {
        config.check()?;
        let h = config.hidden;
        let weights = MlpWeights {
            w1: scaled_normal(width * h, width, rng),
            b1: vec![0.0; h],
            w2: scaled_normal(h * actions, h, rng),
            b2: vec![0.0; actions],
        };
        LuoAgent::from_weights(config, &weights, device)
    }

    /// An agent with the given weights (e.g. from a checkpoint); the shape comes from
    /// the weights and `config.hidden`.
    pub fn from_weights(
        config: LuoConfig,
        weights: &MlpWeights,
        device: Device,
    ) -> Result<LuoAgent, AgentError> {
        config.check()?;
        let hidden = config.hidden;
        let (width, actions) = (weights.w1.len() / hidden.max(1), weights.b2.len());
        let net = TwoLayerMlpConfig::new(width, hidden, actions, config.activation)
            .init_with(weights, &device)
            .map_err(|reason| {
                AgentError::Shape(format!(
                    "checkpoint weights do not fit a {width}-{hidden}-{actions} network: {reason}"
                ))
            })?;
        Ok(LuoAgent {
            net: Some(net),
            config,
            device,
            width,
            actions,
            diverged: false,
        })
    }

    /// Whether a network output has become non-finite (NaN or infinite): training
    /// diverged, usually from too high a learning rate `eta`.
    pub fn diverged(&self) -> bool {
        self.diverged
    }

    /// The agent's hyper-parameters.
    pub fn config(&self) -> &LuoConfig {
        &self.config
    }

    /// Host copies of the network's weights.
    pub fn weights(&self) -> MlpWeights {
        self.net().weights()
    }

    /// The network's 32 outputs for the queen4x4 `position` (white to move).
    pub fn q_values(&mut self, position: &Position) -> Vec<f32> {
        self.forward(queen4x4_row(position)).q
    }

    /// The legal action with the highest output (first on ties).
    pub fn greedy_action(&mut self, position: &Position) -> usize {
        let q = self.q_values(position);
        greedy(&q, &position.legal_action_list())
    }

    /// The legal action with the highest output for an encoded state of any game
    /// (first on ties).
    pub fn greedy_in(&mut self, row: Vec<f32>, legal: &[usize]) -> usize {
        greedy(&self.forward(row).q, legal)
    }

    /// One semi-gradient TD step of output `action` at `position` towards `target`
    /// (the step every semi-gradient episode makes after a move).
    pub fn update_towards(&mut self, position: &Position, action: usize, target: f32) {
        let current = self.forward(queen4x4_row(position));
        self.semi_gradient_update(&current, 0, action, target);
    }

    fn net(&self) -> &TwoLayerMlp {
        self.net.as_ref().expect("network present between updates")
    }

    /// Runs the network once on the encoded states in `rows` (`width` floats each).
    pub(crate) fn forward(&mut self, rows: Vec<f32>) -> Forward {
        let batch = rows.len() / self.width;
        let x = Tensor::<2>::from_data(TensorData::new(rows, [batch, self.width]), &self.device);
        let parts = self.net().forward_parts(x.clone());
        let q = parts
            .output
            .clone()
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 outputs");
        self.diverged |= q.iter().any(|v| !v.is_finite());
        Forward {
            x,
            parts,
            q,
            actions: self.actions,
        }
    }

    /// One SGD step on output `action` (see [`step_chosen_output`]).
    pub(crate) fn apply(&mut self, x: Tensor<2>, h: Tensor<2>, action: usize, signal: StepSignal) {
        let net = self.net.take().expect("network present between updates");
        self.net = Some(step_chosen_output(
            net,
            x,
            h,
            action,
            signal,
            self.config.eta,
        ));
    }
}

/// The queen4x4 encoding of `position`, one row.
fn queen4x4_row(position: &Position) -> Vec<f32> {
    let mut row = vec![0.0; FEATURES];
    encode(position, &mut row);
    row
}
