//! The network, its forward passes on positions, and the manual update.

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::queen4x4::{FEATURES, encode};
use burnmate_env::queen4x4::{ACTIONS, Position};
use burnmate_models::{MlpWeights, TwoLayerMlp, TwoLayerMlpConfig, TwoLayerOutput};
use rand::Rng;
use thiserror::Error;

use super::config::LuoConfig;
use super::update::{StepSignal, step_chosen_output};
use crate::exploration::greedy;
use crate::init::scaled_normal;

/// Why an agent could not be built.
#[derive(Debug, Error)]
pub enum AgentError {
    /// Loaded weights do not match the configured network shape.
    #[error("checkpoint weights do not fit a 58-{hidden}-32 network: {reason}")]
    Weights {
        /// Configured hidden units.
        hidden: usize,
        /// Which tensor mismatched.
        reason: String,
    },
}

/// One forward pass over a batch of positions.
pub(crate) struct Forward {
    /// The encoded rows, `[batch, 58]`.
    pub x: Tensor<2>,
    /// Hidden activations and outputs.
    pub parts: TwoLayerOutput,
    /// Host copy of the outputs, row-major `[batch, 32]`.
    pub q: Vec<f32>,
}

impl Forward {
    /// Outputs of row `row`.
    pub fn q_row(&self, row: usize) -> &[f32] {
        &self.q[row * ACTIONS..(row + 1) * ACTIONS]
    }

    /// Input and hidden activations of row `row`, each `[1, n]`.
    pub fn row_tensors(&self, row: usize) -> (Tensor<2>, Tensor<2>) {
        let [batch, hidden] = self.parts.hidden.dims();
        if batch == 1 {
            return (self.x.clone(), self.parts.hidden.clone());
        }
        (
            self.x.clone().slice([row..row + 1, 0..FEATURES]),
            self.parts.hidden.clone().slice([row..row + 1, 0..hidden]),
        )
    }
}

/// A queen4x4 TD agent: the 58-H-32 network on a Burn device and its update rule.
pub struct LuoAgent {
    /// Always `Some` between calls; taken out only while an update rebuilds it.
    net: Option<TwoLayerMlp>,
    pub(crate) config: LuoConfig,
    device: Device,
    rows: Vec<f32>,
}

impl LuoAgent {
    /// A fresh agent: weights `N(0,1) * sqrt(1/fan_in)` drawn from `rng`, biases 0.
    pub fn new(config: LuoConfig, device: Device, rng: &mut impl Rng) -> LuoAgent {
        let h = config.hidden;
        let weights = MlpWeights {
            w1: scaled_normal(FEATURES * h, FEATURES, rng),
            b1: vec![0.0; h],
            w2: scaled_normal(h * ACTIONS, h, rng),
            b2: vec![0.0; ACTIONS],
        };
        LuoAgent::from_weights(config, &weights, device).expect("weights built to shape")
    }

    /// An agent with the given weights (e.g. from a checkpoint).
    pub fn from_weights(
        config: LuoConfig,
        weights: &MlpWeights,
        device: Device,
    ) -> Result<LuoAgent, AgentError> {
        let net = TwoLayerMlpConfig::new(FEATURES, config.hidden, ACTIONS, config.activation)
            .init_with(weights, &device)
            .map_err(|reason| AgentError::Weights {
                hidden: config.hidden,
                reason,
            })?;
        Ok(LuoAgent {
            net: Some(net),
            config,
            device,
            rows: Vec::with_capacity(2 * FEATURES),
        })
    }

    /// The agent's hyper-parameters.
    pub fn config(&self) -> &LuoConfig {
        &self.config
    }

    /// Host copies of the network's weights.
    pub fn weights(&self) -> MlpWeights {
        self.net().weights()
    }

    /// The network's 32 outputs for `position` (white to move).
    pub fn q_values(&mut self, position: &Position) -> Vec<f32> {
        self.forward(&[position]).q
    }

    /// The legal action with the highest output (first on ties).
    pub fn greedy_action(&mut self, position: &Position) -> usize {
        let q = self.q_values(position);
        greedy(&q, &position.legal_action_list())
    }

    /// One semi-gradient TD step of output `action` at `position` towards `target`
    /// (the step every semi-gradient episode makes after a move).
    pub fn update_towards(&mut self, position: &Position, action: usize, target: f32) {
        let current = self.forward(&[position]);
        self.semi_gradient_update(&current, 0, action, target);
    }

    fn net(&self) -> &TwoLayerMlp {
        self.net.as_ref().expect("network present between updates")
    }

    /// Encodes `positions` into one batch and runs the network once.
    pub(crate) fn forward(&mut self, positions: &[&Position]) -> Forward {
        self.rows.resize(positions.len() * FEATURES, 0.0);
        for (row, position) in self.rows.chunks_exact_mut(FEATURES).zip(positions) {
            encode(position, row);
        }
        let x = Tensor::<2>::from_data(
            TensorData::new(self.rows.clone(), [positions.len(), FEATURES]),
            &self.device,
        );
        let parts = self.net().forward_parts(x.clone());
        let q = parts
            .output
            .clone()
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 outputs");
        Forward { x, parts, q }
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
