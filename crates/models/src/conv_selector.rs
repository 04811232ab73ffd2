//! The selfplay study's selector network: three 3x3 convolutions (6 -> 32 -> 128 ->
//! 32 channels, stride 1, ReLU, no pooling), flatten, dense 128 + ReLU, linear 64
//! (one value per square).
//!
//! Padding: the study's code uses none (8x8 -> 6x6 -> 4x4 -> 2x2, flatten 128 values),
//! which is also what its text's "flattened into 128 nodes" gives. "Same" padding
//! (8x8 throughout, flatten 2048) is an option of ours, neither the code nor the text.

use burn::module::{Module, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use crate::LayerWeights;

/// Input planes.
pub const IN_CHANNELS: usize = 6;
/// Channels of the three convolutions.
pub const CONV_CHANNELS: [usize; 3] = [32, 128, 32];
/// Kernel side.
pub const KERNEL: usize = 3;
/// Hidden dense units.
pub const DENSE: usize = 128;
/// Outputs: one per square.
pub const OUTPUTS: usize = 64;

/// Padding of the convolutions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectorPadding {
    /// No padding, as the study's code and text (default).
    Valid,
    /// Padding 1, keeping 8x8 (an option of ours).
    Same,
}

impl SelectorPadding {
    /// Values after flattening the last convolution.
    pub fn flattened(self) -> usize {
        let side = match self {
            SelectorPadding::Valid => 8 - 3 * (KERNEL - 1),
            SelectorPadding::Same => 8,
        };
        CONV_CHANNELS[2] * side * side
    }
}

/// Host copy of one convolution: weight `[out, in, 3, 3]` row-major, bias `[out]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvWeights {
    /// Input channels.
    pub inputs: usize,
    /// Output channels.
    pub outputs: usize,
    /// `outputs * inputs * 9` values.
    pub weight: Vec<f32>,
    /// `outputs` values.
    pub bias: Vec<f32>,
}

/// Host copy of a whole selector.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelectorWeights {
    /// Padding of the convolutions.
    pub padding: SelectorPadding,
    /// The three convolutions.
    pub convs: Vec<ConvWeights>,
    /// Flatten -> 128.
    pub dense: LayerWeights,
    /// 128 -> 64.
    pub output: LayerWeights,
}

impl SelectorWeights {
    /// Whether every weight and bias is a finite number (not NaN or infinite).
    pub fn is_finite(&self) -> bool {
        self.convs
            .iter()
            .all(|c| c.weight.iter().chain(&c.bias).all(|w| w.is_finite()))
            && self.dense.is_finite()
            && self.output.is_finite()
    }
}

/// The network.
#[derive(Module, Debug)]
pub struct ConvSelector {
    /// The three convolutions.
    pub convs: Vec<Conv2d>,
    /// Flatten -> 128, ReLU.
    pub dense: Linear,
    /// 128 -> 64, linear.
    pub output: Linear,
}

fn linear(w: &LayerWeights, device: &Device) -> Linear {
    let mut layer = LinearConfig::new(w.inputs, w.outputs).init(device);
    layer.weight = Param::from_tensor(Tensor::from_data(
        TensorData::new(w.weight.clone(), [w.inputs, w.outputs]),
        device,
    ));
    layer.bias = Some(Param::from_tensor(Tensor::from_data(
        TensorData::new(w.bias.clone(), [w.outputs]),
        device,
    )));
    layer
}

impl ConvSelector {
    /// Builds the network from host weights; errors name the mismatching layer.
    pub fn from_weights(w: &SelectorWeights, device: &Device) -> Result<ConvSelector, String> {
        let channels = [
            IN_CHANNELS,
            CONV_CHANNELS[0],
            CONV_CHANNELS[1],
            CONV_CHANNELS[2],
        ];
        if w.convs.len() != 3 {
            return Err(format!("{} convolutions, expected 3", w.convs.len()));
        }
        let padding = match w.padding {
            SelectorPadding::Valid => PaddingConfig2d::Valid,
            SelectorPadding::Same => PaddingConfig2d::Explicit(1, 1, 1, 1),
        };
        let mut convs = Vec::with_capacity(3);
        for (i, c) in w.convs.iter().enumerate() {
            let (inputs, outputs) = (channels[i], channels[i + 1]);
            if c.inputs != inputs
                || c.outputs != outputs
                || c.weight.len() != outputs * inputs * KERNEL * KERNEL
                || c.bias.len() != outputs
            {
                return Err(format!("convolution {i} is not {inputs} -> {outputs}"));
            }
            let mut conv = Conv2dConfig::new([inputs, outputs], [KERNEL, KERNEL])
                .with_padding(padding.clone())
                .init(device);
            conv.weight = Param::from_tensor(Tensor::from_data(
                TensorData::new(c.weight.clone(), [outputs, inputs, KERNEL, KERNEL]),
                device,
            ));
            conv.bias = Some(Param::from_tensor(Tensor::from_data(
                TensorData::new(c.bias.clone(), [outputs]),
                device,
            )));
            convs.push(conv);
        }
        let flat = w.padding.flattened();
        if w.dense.inputs != flat || w.dense.outputs != DENSE {
            return Err(format!("dense layer is not {flat} -> {DENSE}"));
        }
        if w.output.inputs != DENSE || w.output.outputs != OUTPUTS {
            return Err(format!("output layer is not {DENSE} -> {OUTPUTS}"));
        }
        for l in [&w.dense, &w.output] {
            if l.weight.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                return Err("a dense layer holds the wrong number of values".into());
            }
        }
        Ok(ConvSelector {
            convs,
            dense: linear(&w.dense, device),
            output: linear(&w.output, device),
        })
    }

    /// Values `[batch, 64]` for boards `[batch, 6, 8, 8]`.
    pub fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let h = self.convs.iter().fold(x, |h, conv| relu(conv.forward(h)));
        let h: Tensor<2> = h.flatten(1, 3);
        self.output
            .forward(relu(crate::fixed_order::forward(&self.dense, h)))
    }

    /// Host copies of all parameters.
    pub fn weights(&self, padding: SelectorPadding) -> SelectorWeights {
        let convs = self
            .convs
            .iter()
            .map(|c| {
                let [outputs, inputs, _, _] = c.weight.val().dims();
                ConvWeights {
                    inputs,
                    outputs,
                    weight: host(c.weight.val()),
                    bias: host(c.bias.as_ref().expect("built with biases").val()),
                }
            })
            .collect();
        let dense = |l: &Linear| {
            let [inputs, outputs] = l.weight.val().dims();
            LayerWeights {
                inputs,
                outputs,
                weight: host(l.weight.val()),
                bias: host(l.bias.as_ref().expect("built with biases").val()),
            }
        };
        SelectorWeights {
            padding,
            convs,
            dense: dense(&self.dense),
            output: dense(&self.output),
        }
    }
}

/// A parameter's values on the host.
fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec().expect("f32 parameters")
}
