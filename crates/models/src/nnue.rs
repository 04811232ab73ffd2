//! An efficiently updatable network (NNUE) as a Burn module, for training: one
//! feature transformer shared by two perspectives (the side to move's inputs and the
//! other side's), each clipped to [0, 1], then one linear output:
//!
//! ```text
//! a_us   = clamp(W1 x_us + b1, 0, 1)          x: sparse 0/1 rows (set features)
//! a_them = clamp(W1 x_them + b1, 0, 1)
//! out    = w2 . [a_us, a_them] + b2
//! ```
//!
//! The host search evaluates the same weights incrementally (the first layer's sums
//! kept per perspective and changed by the few columns a move changes). It knows
//! nothing of chess: what the inputs mean is the encoder's business.

use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor};

use crate::deep_mlp::{DeepMlp, LayerWeights};

/// The network.
#[derive(Module, Debug)]
pub struct Nnue {
    /// The feature transformer `inputs -> hidden`, shared by both perspectives.
    pub transformer: Linear,
    /// The output `2 hidden -> 1`.
    pub output: Linear,
}

impl Nnue {
    /// A network of `inputs -> hidden` per perspective with burn's default
    /// initialisation.
    pub fn new(inputs: usize, hidden: usize, device: &Device) -> Nnue {
        Nnue {
            transformer: LinearConfig::new(inputs, hidden).init(device),
            output: LinearConfig::new(2 * hidden, 1).init(device),
        }
    }

    /// The network of host weights `[transformer, output]`; errors name the mismatch.
    pub fn from_weights(layers: &[LayerWeights; 2], device: &Device) -> Result<Nnue, String> {
        if layers[1].inputs != 2 * layers[0].outputs || layers[1].outputs != 1 {
            return Err(format!(
                "the output takes {} inputs to {}, the transformer gives {} a side",
                layers[1].inputs, layers[1].outputs, layers[0].outputs
            ));
        }
        let mut built = DeepMlp::from_weights(&layers[..1], device)?.layers;
        let transformer = built.remove(0);
        let mut built = DeepMlp::from_weights(&layers[1..], device)?.layers;
        Ok(Nnue {
            transformer,
            output: built.remove(0),
        })
    }

    /// Outputs `[batch, 1]` for the side to move's rows `us` and the other side's
    /// rows `them` (`[batch, inputs]` each).
    pub fn forward(&self, us: Tensor<2>, them: Tensor<2>) -> Tensor<2> {
        let side = |x| crate::fixed_order::forward(&self.transformer, x).clamp(0.0, 1.0);
        self.head(Tensor::cat(vec![side(us), side(them)], 1))
    }

    /// Outputs `[batch, 1]` from the clamped transformer sums of both perspectives,
    /// `[clamp(W1 x_us + b1, 0, 1), clamp(W1 x_them + b1, 0, 1)]` (`[batch, 2 hidden]`),
    /// computed elsewhere (a trainer that sums the set inputs' columns itself).
    pub fn head(&self, activations: Tensor<2>) -> Tensor<2> {
        crate::fixed_order::forward(&self.output, activations)
    }

    /// Host copies `[transformer, output]`.
    pub fn weights(&self) -> [LayerWeights; 2] {
        let mut copies = DeepMlp {
            layers: vec![self.transformer.clone(), self.output.clone()],
        }
        .weights();
        let output = copies.pop().expect("two layers");
        [copies.pop().expect("two layers"), output]
    }
}
