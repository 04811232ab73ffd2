//! A multi-layer perceptron with ReLU between layers and a linear output, e.g. the
//! knight study's `4 -> 128 -> 128 -> 8` Q-network, actor and critic.

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
pub use burnmate_weights::LayerWeights;

use crate::sparse_input::{MAX_SPARSE_WIDTH, SparseRows};

/// The network: `Linear -> ReLU -> ... -> Linear`.
#[derive(Module, Debug)]
pub struct DeepMlp {
    /// The linear layers in order.
    pub layers: Vec<Linear>,
}

impl DeepMlp {
    /// Builds the network from host weights; errors name the mismatching layer.
    pub fn from_weights(layers: &[LayerWeights], device: &Device) -> Result<DeepMlp, String> {
        let mut built = Vec::with_capacity(layers.len());
        for (i, l) in layers.iter().enumerate() {
            if l.weight.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                return Err(format!(
                    "layer {i} does not hold {}x{} weights",
                    l.inputs, l.outputs
                ));
            }
            if i > 0 && layers[i - 1].outputs != l.inputs {
                return Err(format!(
                    "layer {i} takes {} inputs, the layer before gives {}",
                    l.inputs,
                    layers[i - 1].outputs
                ));
            }
            let mut layer = LinearConfig::new(l.inputs, l.outputs).init(device);
            layer.weight = Param::from_tensor(Tensor::from_data(
                TensorData::new(l.weight.clone(), [l.inputs, l.outputs]),
                device,
            ));
            layer.bias = Some(Param::from_tensor(Tensor::from_data(
                TensorData::new(l.bias.clone(), [l.outputs]),
                device,
            )));
            built.push(layer);
        }
        if built.is_empty() {
            return Err("a network needs at least one layer".into());
        }
        Ok(DeepMlp { layers: built })
    }

    /// Outputs for a batch of rows `[batch, inputs]` (sums in a fixed order:
    /// [`crate::fixed_order`]).
    pub fn forward(&self, x: Tensor<2>) -> Tensor<2> {
        let last = self.layers.len() - 1;
        crate::fixed_order::forward(&self.layers[last], self.hidden(x))
    }

    /// The last hidden layer's activations (after its ReLU) for a batch of rows; the
    /// rows themselves for a one-layer network.
    pub fn hidden(&self, x: Tensor<2>) -> Tensor<2> {
        let last = self.layers.len() - 1;
        self.layers[..last]
            .iter()
            .fold(x, |h, layer| relu(crate::fixed_order::forward(layer, h)))
    }

    /// [`DeepMlp::hidden`] for `rows` (`inputs` values each, on the host): rows that
    /// set at most [`MAX_SPARSE_WIDTH`] inputs go through the gathering first layer
    /// of [`crate::sparse_input`], denser ones through the dense product.
    pub fn hidden_of_rows(&self, rows: Vec<f32>) -> Tensor<2> {
        let weight = self.layers[0].weight.val();
        let inputs = weight.dims()[0];
        let last = self.layers.len() - 1;
        if last == 0 || SparseRows::widest(&rows, inputs) > MAX_SPARSE_WIDTH {
            let n = rows.len() / inputs;
            let x = TensorData::new(rows, [n, inputs]);
            return self.hidden(Tensor::from_data(x, &weight.device()));
        }
        let sparse = SparseRows::from_dense(&rows, inputs);
        let first = relu(crate::sparse_input::forward(&self.layers[0], &sparse));
        self.layers[1..last].iter().fold(first, |h, layer| {
            relu(crate::fixed_order::forward(layer, h))
        })
    }

    /// Host copies of all layers.
    pub fn weights(&self) -> Vec<LayerWeights> {
        self.layers
            .iter()
            .map(|l| {
                let [inputs, outputs] = l.weight.val().dims();
                LayerWeights {
                    inputs,
                    outputs,
                    weight: l
                        .weight
                        .val()
                        .into_data()
                        .try_into_vec::<f32>()
                        .expect("f32 weights"),
                    bias: l
                        .bias
                        .as_ref()
                        .expect("layers are built with biases")
                        .val()
                        .into_data()
                        .try_into_vec::<f32>()
                        .expect("f32 biases"),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_applies_relu_between_layers_only() {
        let layers = vec![
            LayerWeights {
                inputs: 1,
                outputs: 2,
                weight: vec![1.0, -1.0],
                bias: vec![0.0, 0.0],
            },
            LayerWeights {
                inputs: 2,
                outputs: 1,
                weight: vec![1.0, 1.0],
                bias: vec![-5.0],
            },
        ];
        let device = Device::flex();
        let net = DeepMlp::from_weights(&layers, &device).unwrap();
        let x = Tensor::<2>::from_data(TensorData::new(vec![3.0f32, -2.0], [2, 1]), &device);
        let y = net.forward(x).into_data().try_into_vec::<f32>().unwrap();
        // x = 3: h = [3, 0] -> 3 - 5 = -2 (no ReLU at the output); x = -2: h = [0, 2] -> -3.
        assert_eq!(y, vec![-2.0, -3.0]);
        assert_eq!(net.weights(), layers);
    }

    #[test]
    fn hidden_of_rows_gives_the_dense_hidden_layer_for_sparse_and_dense_rows() {
        let layer = |inputs: usize, outputs: usize, seed: f32| LayerWeights {
            inputs,
            outputs,
            weight: (0..inputs * outputs)
                .map(|i| ((i as f32 + seed) * 0.37).sin())
                .collect(),
            bias: (0..outputs).map(|i| (i as f32 * 0.11) - 0.2).collect(),
        };
        let inputs = 2 * MAX_SPARSE_WIDTH + 4;
        let layers = [layer(inputs, 6, 0.0), layer(6, 4, 1.0), layer(4, 3, 2.0)];
        let device = Device::flex();
        let net = DeepMlp::from_weights(&layers, &device).unwrap();
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
        // Rows setting 2 inputs (gathered) and 2 * MAX_SPARSE_WIDTH (dense product).
        for set in [2, 2 * MAX_SPARSE_WIDTH] {
            let rows: Vec<f32> = (0..3 * inputs)
                .map(|i| {
                    if i % inputs < set {
                        1.0 + (i % 3) as f32
                    } else {
                        0.0
                    }
                })
                .collect();
            let dense = Tensor::from_data(TensorData::new(rows.clone(), [3, inputs]), &device);
            let expected = host(net.hidden(dense));
            let got = host(net.hidden_of_rows(rows));
            assert_eq!(got.len(), 3 * 4);
            for (a, b) in got.iter().zip(&expected) {
                assert!((a - b).abs() < 1e-5, "{set} inputs set: {a} against {b}");
            }
        }
    }

    #[test]
    fn mismatched_layers_are_rejected() {
        let bad = vec![LayerWeights {
            inputs: 2,
            outputs: 2,
            weight: vec![0.0; 3],
            bias: vec![0.0; 2],
        }];
        assert!(DeepMlp::from_weights(&bad, &Device::flex()).is_err());
    }
}
