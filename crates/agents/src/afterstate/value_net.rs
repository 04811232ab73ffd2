//! The afterstate value network `V`: an MLP from the side-to-move encoding to one
//! value, trained by Adam (kept across updates) on the mean squared error.

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::side_to_move::FEATURES;
use burnmate_models::{DeepMlp, LayerWeights};
use shakmaty::Chess;

use super::rows::EncodedRows;
use crate::adam::Adam;
use crate::error::AgentError;
use crate::host_memory::{host, in_host_memory};
use crate::optim::TrainedNet;

/// `V` and its optimiser.
pub struct ValueNet {
    net: DeepMlp,
    optimizer: Adam,
    device: Device,
    lr: f64,
    /// Whether the tensors live in host memory: positions go there as dense rows,
    /// to a GPU as their set values.
    host_memory: bool,
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
            host_memory: in_host_memory(&device),
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
            host_memory: in_host_memory(&device),
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

    /// Whether the net's tensors live in host memory (a CPU backend): there the cores
    /// are the tensor work's, and game logic beside it runs on one thread.
    pub fn in_host_memory(&self) -> bool {
        self.host_memory
    }

    /// `positions` encoded in the form this net's device takes best.
    pub fn encode(&self, positions: &[&Chess]) -> EncodedRows {
        if self.host_memory {
            EncodedRows::dense(positions)
        } else {
            EncodedRows::set_entries(positions)
        }
    }

    /// `V` of each encoded position: one forward pass without autodiff (a tracked
    /// forward pass would grow the parameters' graph until the next backward pass:
    /// gigabytes over an evaluation) and one download.
    pub fn values(&self, rows: EncodedRows) -> Vec<f32> {
        if rows.is_empty() {
            return Vec::new();
        }
        let inference = self.device.clone().without_autodiff();
        host(self.net.valid().forward(rows.tensor(&inference)))
    }

    /// ALGO: one Adam step on `mean (V(s) - target)^2` over the batch; returns the
    /// loss before the step, left on the device (reading it waits for the step).
    pub fn update(&mut self, rows: EncodedRows, targets: Vec<f32>) -> Tensor<1> {
        let n = targets.len();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), &self.device);
        let loss = (self.net.forward(rows.tensor(&self.device)) - target)
            .powf_scalar(2.0)
            .mean();
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        self.optimizer.step(self.lr, &mut self.net, grads);
        loss.detach()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::uniform_layers;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn set_entries_give_the_dense_rows_values_and_updates() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let layers = uniform_layers(&[FEATURES, 16, 8, 1], &mut rng);
        let [mut dense, mut sparse] = [true, false].map(|host_memory| ValueNet {
            host_memory,
            ..ValueNet::new(&layers, 1e-2, Device::flex().autodiff()).unwrap()
        });
        let mut positions = vec![Chess::default()];
        for fen in [
            "4k3/8/8/n2q2p1/1P2P2R/P7/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2r w - - 0 1",
            "8/8/2k5/8/4N3/8/1B6/6K1 b - - 0 1",
        ] {
            positions.push(burnmate_env::fen::position(fen).unwrap());
        }
        let refs: Vec<&Chess> = positions.iter().collect();
        assert!(matches!(sparse.encode(&refs), EncodedRows::SetEntries(_)));
        let gap = |a: &[f32], b: &[f32]| {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        let targets = vec![1.0, -0.5, 0.25, 0.0];
        for step in 0..3 {
            let values = [&dense, &sparse].map(|net| net.values(net.encode(&refs)));
            assert!(gap(&values[0], &values[1]) < 1e-6, "values, step {step}");
            let losses = [&mut dense, &mut sparse]
                .map(|net| host(net.update(net.encode(&refs), targets.clone()))[0]);
            assert!((losses[0] - losses[1]).abs() < 1e-6, "loss, step {step}");
            assert!(losses[0] > 0.0, "a loss to learn from");
        }
        let flat = |layers: Vec<LayerWeights>| -> Vec<f32> {
            layers
                .into_iter()
                .flat_map(|l| l.weight.into_iter().chain(l.bias))
                .collect()
        };
        let after = flat(dense.weights());
        assert!(
            gap(&after, &flat(sparse.weights())) < 1e-6,
            "weights after 3 steps"
        );
        assert_ne!(after, flat(layers), "the steps moved the weights");
    }
}
