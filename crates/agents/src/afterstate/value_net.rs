//! The afterstate value network `V`: an MLP from the side-to-move encoding to one
//! value, trained by Adam (kept across updates) on the mean squared error.

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::side_to_move::FEATURES;
use burnmate_models::{DeepMlp, LayerWeights};

use crate::adam::Adam;
use crate::error::AgentError;
use crate::optim::TrainedNet;

/// `V` and its optimiser.
pub struct ValueNet {
    net: DeepMlp,
    optimizer: Adam,
    device: Device,
    lr: f64,
}

impl ValueNet {
    /// A fresh network from `layers` (`FEATURES` inputs, one output); `device` must
    /// have autodiff enabled.
    pub fn new(layers: &[LayerWeights], lr: f64, device: Device) -> Result<ValueNet, AgentError> {
        Self::check_shape(layers)?;
        let net = DeepMlp::from_weights(layers, &device).map_err(AgentError::Shape)?;
        Ok(ValueNet {
            optimizer: Adam::new(&net, &device),
            net,
            device,
            lr,
        })
    }

    /// A network and its Adam state from [`ValueNet::snapshot`].
    pub fn restore(state: &TrainedNet, lr: f64, device: Device) -> Result<ValueNet, AgentError> {
        Self::check_shape(&state.layers)?;
        let (net, optimizer) = state.restore(&device)?;
        Ok(ValueNet {
            net,
            optimizer,
            device,
            lr,
        })
    }

    fn check_shape(layers: &[LayerWeights]) -> Result<(), AgentError> {
        let (first, last) = (layers.first(), layers.last());
        if first.map(|l| l.inputs) != Some(FEATURES) || last.map(|l| l.outputs) != Some(1) {
            return Err(AgentError::Shape(format!(
                "an afterstate value network maps {FEATURES} inputs to 1 output"
            )));
        }
        Ok(())
    }

    /// The weights and Adam state (to continue exactly).
    pub fn snapshot(&self) -> TrainedNet {
        TrainedNet::of(&self.net, &self.optimizer)
    }

    /// Host copies of the layers.
    pub fn weights(&self) -> Vec<LayerWeights> {
        self.net.weights()
    }

    fn rows(&self, rows: Vec<f32>) -> Tensor<2> {
        let n = rows.len() / FEATURES;
        Tensor::from_data(TensorData::new(rows, [n, FEATURES]), &self.device)
    }

    /// `V` of each encoded position in `rows` (`FEATURES` floats each): one forward
    /// pass without autodiff (a tracked forward pass would grow the parameters'
    /// graph until the next backward pass: gigabytes over an evaluation) and one
    /// download.
    pub fn values(&self, rows: Vec<f32>) -> Vec<f32> {
        let n = rows.len() / FEATURES;
        if n == 0 {
            return Vec::new();
        }
        let inference = self.device.clone().without_autodiff();
        let x = Tensor::from_data(TensorData::new(rows, [n, FEATURES]), &inference);
        self.net
            .valid()
            .forward(x)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 values")
    }

    /// ALGO: one Adam step on `mean (V(s) - target)^2` over the batch; returns the
    /// loss before the step.
    pub fn update(&mut self, rows: Vec<f32>, targets: Vec<f32>) -> f32 {
        let n = targets.len();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), &self.device);
        let loss = (self.net.forward(self.rows(rows)) - target)
            .powf_scalar(2.0)
            .mean();
        let value = loss
            .clone()
            .detach()
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 loss")[0];
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        self.optimizer.step(self.lr, &mut self.net, grads);
        value
    }
}
