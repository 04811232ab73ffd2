//! One side's seven selectors (a piece selector and a move selector per piece type):
//! batched inference and the study's masked MSE update.

use burn::module::Module;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::selfplay::FEATURES;
use burnmate_models::conv_selector::{CONV_CHANNELS, DENSE, IN_CHANNELS, KERNEL, OUTPUTS};
use burnmate_models::param_ids::{param_ids, with_param_ids};
use burnmate_models::{ConvSelector, ConvWeights, LayerWeights, SelectorPadding, SelectorWeights};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::error::AgentError;
use crate::optim::{adam_from_hex, optimizer_hex, pytorch_adam};

/// Selectors per side: the piece selector, then one move selector per piece type.
pub const SELECTORS: usize = 7;

/// How Adam is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdamMode {
    /// The study's code: a new Adam for every update, so each step is `lr * sign(g)`
    /// (up to epsilon) (default).
    Reference,
    /// One Adam per selector kept across updates (the usual algorithm).
    Persistent,
}

/// Network and optimiser settings of one side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetConfig {
    /// Convolution padding.
    pub padding: SelectorPadding,
    /// Adam learning rate (study: 0.01).
    pub lr: f64,
    /// Fresh or persistent Adam.
    pub adam: AdamMode,
    /// Pad every batch to the next power of two (padded rows weigh nothing), so a
    /// GPU backend sees few distinct shapes and reuses its autotuned, fused kernels.
    pub bucket_batches: bool,
}

/// One finished step of one side, ready for the update.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectorSample {
    /// The encoded board the move was chosen in (`FEATURES` values).
    pub board: Vec<f32>,
    /// Own pieces at that board.
    pub piece_mask: [f32; 64],
    /// Destinations per piece type at that board.
    pub move_masks: [[f32; 64]; 6],
    /// Square moved from.
    pub from: usize,
    /// Square moved to (as the move selectors see it).
    pub to: usize,
    /// Plane of the moved piece type.
    pub role: usize,
    /// Regression target of the piece value at `from`.
    pub piece_target: f32,
    /// Regression target of the move value at `to`.
    pub move_target: f32,
}

/// Outputs of the seven selectors for a batch of boards.
#[derive(Clone, Debug, PartialEq)]
pub struct Values {
    batch: usize,
    data: Vec<f32>,
}

impl Values {
    /// Piece values of board `i` (64).
    pub fn piece(&self, i: usize) -> &[f32] {
        &self.data[i * OUTPUTS..(i + 1) * OUTPUTS]
    }

    /// Move values of piece-type plane `role` for board `i` (64).
    pub fn moves(&self, i: usize, role: usize) -> &[f32] {
        let start = ((role + 1) * self.batch + i) * OUTPUTS;
        &self.data[start..start + OUTPUTS]
    }
}

/// The seven selectors of one side.
pub struct SelectorSet {
    config: NetConfig,
    device: Device,
    nets: Vec<ConvSelector>,
    optimizers: Vec<ModuleOptimizer>,
    updates: u64,
}

/// Fresh selector weights as the study's code draws them: convolution weights
/// uniform in +-1e-7 (first) and +-1e-6 (others); dense weights uniform
/// +-1/sqrt(fan_in) (PyTorch's default); every bias 0, dense layers included.
pub fn initial_weights(padding: SelectorPadding, rng: &mut impl Rng) -> SelectorWeights {
    let mut uniform = |n: usize, bound: f32| -> Vec<f32> {
        (0..n)
            .map(|_| (rng.random::<f32>() * 2.0 - 1.0) * bound)
            .collect()
    };
    let channels = [
        IN_CHANNELS,
        CONV_CHANNELS[0],
        CONV_CHANNELS[1],
        CONV_CHANNELS[2],
    ];
    let convs = (0..3)
        .map(|i| {
            let (inputs, outputs) = (channels[i], channels[i + 1]);
            let bound = if i == 0 { 1e-7 } else { 1e-6 };
            ConvWeights {
                inputs,
                outputs,
                weight: uniform(outputs * inputs * KERNEL * KERNEL, bound),
                bias: vec![0.0; outputs],
            }
        })
        .collect();
    let mut dense = |inputs: usize, outputs: usize| {
        let bound = 1.0 / (inputs as f32).sqrt();
        LayerWeights {
            inputs,
            outputs,
            weight: uniform(inputs * outputs, bound),
            bias: vec![0.0; outputs],
        }
    };
    let dense_layer = dense(padding.flattened(), DENSE);
    let output = dense(DENSE, OUTPUTS);
    SelectorWeights {
        padding,
        convs,
        dense: dense_layer,
        output,
    }
}

fn rows<const D: usize>(values: Vec<f32>, shape: [usize; D], device: &Device) -> Tensor<D> {
    Tensor::from_data(TensorData::new(values, shape), device)
}

/// A side's training state (see [`SelectorSet::snapshot`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SelectorSetState {
    /// The seven selectors.
    pub weights: Vec<SelectorWeights>,
    /// Each selector's parameter ids (they key its Adam state).
    pub param_ids: Vec<Vec<u64>>,
    /// Persistent Adam states as hex burnpack records.
    pub optimizers: Option<Vec<String>>,
    /// Updates applied.
    pub updates: u64,
}

impl SelectorSet {
    /// A side from host weights (seven: piece, then pawn .. king); `device` must
    /// have autodiff enabled.
    pub fn new(
        config: NetConfig,
        device: Device,
        weights: &[SelectorWeights],
    ) -> Result<SelectorSet, AgentError> {
        if weights.len() != SELECTORS {
            return Err(AgentError::Shape(format!(
                "{} selectors, expected {SELECTORS}",
                weights.len()
            )));
        }
        let nets = weights
            .iter()
            .map(|w| ConvSelector::from_weights(w, &device))
            .collect::<Result<Vec<_>, _>>()
            .map_err(AgentError::Shape)?;
        Ok(SelectorSet {
            config,
            device,
            nets,
            optimizers: (0..SELECTORS).map(|_| pytorch_adam()).collect(),
            updates: 0,
        })
    }

    /// Everything training has changed: the selectors with their parameter ids, the
    /// persistent Adam states (none with `adam = "reference"`, which starts a new
    /// Adam every update) and the update count.
    pub fn snapshot(&self) -> Result<SelectorSetState, AgentError> {
        let optimizers = match self.config.adam {
            AdamMode::Reference => None,
            AdamMode::Persistent => Some(
                self.optimizers
                    .iter()
                    .map(optimizer_hex)
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        Ok(SelectorSetState {
            weights: self.weights(),
            param_ids: self.nets.iter().map(param_ids).collect(),
            optimizers,
            updates: self.updates,
        })
    }

    /// The side of a [`SelectorSet::snapshot`]; `device` must have autodiff enabled.
    pub fn restore(
        config: NetConfig,
        device: Device,
        state: &SelectorSetState,
    ) -> Result<SelectorSet, AgentError> {
        let mut side = SelectorSet::new(config, device, &state.weights)?;
        if state.param_ids.len() != SELECTORS {
            return Err(AgentError::Shape(format!(
                "{} id lists, expected {SELECTORS}",
                state.param_ids.len()
            )));
        }
        let nets = std::mem::take(&mut side.nets);
        side.nets = nets
            .into_iter()
            .zip(&state.param_ids)
            .map(|(net, ids)| with_param_ids(net, ids))
            .collect::<Result<_, _>>()
            .map_err(AgentError::Shape)?;
        if let Some(optimizers) = &state.optimizers {
            side.optimizers = optimizers
                .iter()
                .map(|hex| adam_from_hex(hex))
                .collect::<Result<_, _>>()?;
        }
        side.updates = state.updates;
        Ok(side)
    }

    /// Host copies of the seven selectors.
    pub fn weights(&self) -> Vec<SelectorWeights> {
        self.nets
            .iter()
            .map(|n| n.weights(self.config.padding))
            .collect()
    }

    /// Updates applied so far.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The seven selectors' outputs for `batch` boards (`batch * FEATURES` values):
    /// one forward pass per selector without autodiff, one download.
    pub fn values(&self, mut boards: Vec<f32>, batch: usize) -> Values {
        let batch = self.padded(batch);
        boards.resize(batch * FEATURES, 0.0);
        let inference = self.device.clone().without_autodiff();
        let x: Tensor<4> = rows(boards, [batch, IN_CHANNELS, 8, 8], &inference);
        let outputs: Vec<Tensor<2>> = self
            .nets
            .iter()
            .map(|net| net.valid().forward(x.clone()))
            .collect();
        let data = Tensor::cat(outputs, 0)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 outputs");
        Values { batch, data }
    }

    fn padded(&self, batch: usize) -> usize {
        if self.config.bucket_batches {
            batch.next_power_of_two()
        } else {
            batch
        }
    }

    /// One Adam step of every selector on the batch: MSE over all 64 outputs
    /// against the current outputs with masked-out squares pulled to 0 and the
    /// chosen square pulled to its target. Returns the summed loss, left on the
    /// device (reading it is a sync).
    pub fn update(&mut self, batch: &[SelectorSample]) -> Tensor<1> {
        let real = batch.len();
        let n = self.padded(real);
        let d = &self.device;
        let mut boards: Vec<f32> = batch.iter().flat_map(|t| t.board.iter().copied()).collect();
        boards.resize(n * FEATURES, 0.0);
        let x: Tensor<4> = rows(boards, [n, IN_CHANNELS, 8, 8], d);
        let weights = (n != real).then(|| {
            let w: Vec<f32> = (0..n).map(|i| f32::from(u8::from(i < real))).collect();
            rows(w, [n, 1], d)
        });
        let mut total: Option<Tensor<1>> = None;
        for (k, net) in self.nets.iter().enumerate() {
            let mut mask = vec![0.0f32; n * OUTPUTS];
            let mut chosen = vec![0.0f32; n * OUTPUTS];
            let mut target = vec![0.0f32; n * OUTPUTS];
            for (i, t) in batch.iter().enumerate() {
                let row = i * OUTPUTS;
                if k == 0 {
                    mask[row..row + OUTPUTS].copy_from_slice(&t.piece_mask);
                    chosen[row + t.from] = 1.0;
                    target[row + t.from] = t.piece_target;
                } else {
                    mask[row..row + OUTPUTS].copy_from_slice(&t.move_masks[k - 1]);
                    if t.role == k - 1 {
                        chosen[row + t.to] = 1.0;
                        target[row + t.to] = t.move_target;
                    }
                }
            }
            let mask = rows(mask, [n, OUTPUTS], d);
            let chosen = rows(chosen, [n, OUTPUTS], d);
            let target = rows(target, [n, OUTPUTS], d);
            let prediction = net.forward(x.clone());
            let keep = mask.mul(chosen.clone().neg().add_scalar(1.0));
            let goal = prediction.clone().detach().mul(keep) + target.mul(chosen);
            let squared = (prediction - goal).powf_scalar(2.0);
            let loss = match &weights {
                None => squared.mean(),
                Some(w) => squared
                    .mul(w.clone())
                    .sum()
                    .div_scalar((real * OUTPUTS) as f32),
            };
            total = Some(match total {
                None => loss,
                Some(t) => t + loss,
            });
        }
        let total = total.expect("seven selectors");
        let mut grads = total.clone().backward();
        if self.config.adam == AdamMode::Reference {
            self.optimizers = (0..SELECTORS).map(|_| pytorch_adam()).collect();
        }
        let nets = std::mem::take(&mut self.nets);
        self.nets = nets
            .into_iter()
            .zip(self.optimizers.iter_mut())
            .map(|(net, optimizer)| {
                let g = GradientsParams::from_module(&mut grads, &net);
                optimizer.step(self.config.lr, net, g)
            })
            .collect();
        self.updates += 1;
        total.detach()
    }
}
