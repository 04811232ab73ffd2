//! A two-layer perceptron `inputs -> hidden (ReLU) -> outputs (activation)`, the
//! network of the queen4x4 study (58 -> 200 -> 32).

use burn::config::Config;
use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::{relu, sigmoid};
use burn::tensor::{Device, Tensor, TensorData};
use serde::{Deserialize, Serialize};

/// The output layer's activation.
#[derive(Config, Debug, Copy, PartialEq, Eq)]
pub enum OutputActivation {
    /// `max(0, z)`: the study's SARSA network.
    Relu,
    /// `1 / (1 + e^-z)`: the study's Q-learning network.
    Sigmoid,
    /// Identity: the study's impatient network.
    Linear,
}

impl OutputActivation {
    fn apply<const D: usize>(self, z: Tensor<D>) -> Tensor<D> {
        match self {
            OutputActivation::Relu => relu(z),
            OutputActivation::Sigmoid => sigmoid(z),
            OutputActivation::Linear => z,
        }
    }

    /// The derivative of the activation, given its output value `y`.
    pub fn derivative_from_output(self, y: f32) -> f32 {
        match self {
            OutputActivation::Relu => f32::from(y > 0.0),
            OutputActivation::Sigmoid => y * (1.0 - y),
            OutputActivation::Linear => 1.0,
        }
    }
}

/// Shape and output activation of a [`TwoLayerMlp`].
#[derive(Config, Debug)]
pub struct TwoLayerMlpConfig {
    /// Input features.
    pub inputs: usize,
    /// Hidden ReLU units.
    pub hidden: usize,
    /// Outputs (one per action).
    pub outputs: usize,
    /// Output activation.
    pub activation: OutputActivation,
}

/// Host copies of all parameters, row-major; `w1` is `[inputs, hidden]` and `w2`
/// is `[hidden, outputs]` (Burn's row layout, `y = x W + b`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpWeights {
    /// Input-to-hidden weights, `inputs * hidden` values.
    pub w1: Vec<f32>,
    /// Hidden biases.
    pub b1: Vec<f32>,
    /// Hidden-to-output weights, `hidden * outputs` values.
    pub w2: Vec<f32>,
    /// Output biases.
    pub b2: Vec<f32>,
}

/// The network: one hidden ReLU layer and an output layer.
#[derive(Module, Debug)]
pub struct TwoLayerMlp {
    /// Input to hidden layer.
    pub hidden: Linear,
    /// Hidden to output layer.
    pub output: Linear,
    /// Output activation.
    #[module(skip)]
    pub activation: OutputActivation,
}

/// Hidden activations and outputs of one forward pass.
#[derive(Clone, Debug)]
pub struct TwoLayerOutput {
    /// Hidden ReLU activations, `[batch, hidden]`.
    pub hidden: Tensor<2>,
    /// Outputs after the output activation, `[batch, outputs]`.
    pub output: Tensor<2>,
}

impl TwoLayerMlpConfig {
    /// Builds the network from host weights; errors name the mismatching tensor.
    pub fn init_with(&self, weights: &MlpWeights, device: &Device) -> Result<TwoLayerMlp, String> {
        let (i, h, o) = (self.inputs, self.hidden, self.outputs);
        for (name, len, want) in [
            ("w1", weights.w1.len(), i * h),
            ("b1", weights.b1.len(), h),
            ("w2", weights.w2.len(), h * o),
            ("b2", weights.b2.len(), o),
        ] {
            if len != want {
                return Err(format!("{name} holds {len} values, expected {want}"));
            }
        }
        let linear = |w: &[f32], b: &[f32], d_in: usize, d_out: usize| {
            let mut layer = LinearConfig::new(d_in, d_out).init(device);
            layer.weight = Param::from_tensor(Tensor::from_data(
                TensorData::new(w.to_vec(), [d_in, d_out]),
                device,
            ));
            layer.bias = Some(Param::from_tensor(Tensor::from_data(
                TensorData::new(b.to_vec(), [d_out]),
                device,
            )));
            layer
        };
        Ok(TwoLayerMlp {
            hidden: linear(&weights.w1, &weights.b1, i, h),
            output: linear(&weights.w2, &weights.b2, h, o),
            activation: self.activation,
        })
    }
}

impl TwoLayerMlp {
    /// Outputs for a batch of rows `[batch, inputs]`.
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        self.forward_parts(x).output
    }

    /// Hidden activations and outputs for a batch of rows.
    pub fn forward_parts(&self, x: Tensor<2>) -> TwoLayerOutput {
        let hidden = relu(self.hidden.forward(x));
        let output = self.activation.apply(self.output.forward(hidden.clone()));
        TwoLayerOutput { hidden, output }
    }

    /// Host copies of all parameters.
    pub fn weights(&self) -> MlpWeights {
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().expect("f32 weights");
        let host1 = |t: Tensor<1>| t.into_data().try_into_vec::<f32>().expect("f32 biases");
        let bias = |l: &Linear| l.bias.as_ref().expect("layers are built with biases").val();
        MlpWeights {
            w1: host(self.hidden.weight.val()),
            b1: host1(bias(&self.hidden)),
            w2: host(self.output.weight.val()),
            b2: host1(bias(&self.output)),
        }
    }
}
