//! The afterstate value network evaluated on the host, one position at a time, for
//! search at play time: an alpha-beta search asks for one leaf after another, where a
//! tensor call per leaf would cost more than the arithmetic. The first layer adds up
//! only the weight rows of the inputs that are set (a position sets about 32 of the
//! 779), the other layers are dense; ReLU between layers, none after the last.

use burnmate_models::LayerWeights;

/// `V` as plain host arrays (weights `[inputs][outputs]`, as [`LayerWeights`]).
#[derive(Clone, Debug)]
pub struct HostValueNet {
    layers: Vec<LayerWeights>,
}

impl HostValueNet {
    /// The network of `layers` (a [`crate::afterstate::value_net::ValueNet`]'s
    /// weights: its last layer has one output).
    ///
    /// # Panics
    /// If `layers` is empty or the last layer has more than one output.
    pub fn new(layers: Vec<LayerWeights>) -> HostValueNet {
        assert_eq!(
            layers.last().map(|l| l.outputs),
            Some(1),
            "a value network ends in one output"
        );
        HostValueNet { layers }
    }

    /// Inputs the network reads.
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    /// `V` of one encoded row.
    pub fn value(&self, row: &[f32]) -> f32 {
        let first = &self.layers[0];
        let mut h = first.bias.clone();
        for (i, &x) in row[..first.inputs].iter().enumerate() {
            if x != 0.0 {
                let weights = &first.weight[i * first.outputs..(i + 1) * first.outputs];
                h.iter_mut().zip(weights).for_each(|(a, w)| *a += x * w);
            }
        }
        for layer in &self.layers[1..] {
            h.iter_mut().for_each(|a| *a = a.max(0.0));
            let mut next = layer.bias.clone();
            for (i, &x) in h.iter().enumerate() {
                let weights = &layer.weight[i * layer.outputs..(i + 1) * layer.outputs];
                next.iter_mut().zip(weights).for_each(|(a, w)| *a += x * w);
            }
            h = next;
        }
        h[0]
    }
}
