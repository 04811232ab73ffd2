//! An efficiently updatable network (NNUE) as a Burn module, for training: one
//! feature transformer shared by two perspectives (the side to move's inputs and the
//! other side's), each through an activation `σ`, then one linear output of `B`
//! buckets, of which each row's bucket `k` (chosen by the caller: the encoder's
//! business) is the output:
//!
//! ```text
//! a_us   = σ(W1 x_us + b1)                    x: sparse 0/1 rows (set features)
//! a_them = σ(W1 x_them + b1)
//! out    = W2[k] . [a_us, a_them] + b2[k]     W2: [B, 2 hidden], B = 1: one output
//! σ(s)   = clamp(s, 0, 1)  (CReLU)  or  clamp(s, 0, 1)²  (SCReLU, bullet's default)
//! ```
//!
//! Inputs in blocks (king buckets) may train with a factoriser `F`, rows shared by
//! every block (`W1 x + F x_shared`, `x_shared` the row's blocks added together),
//! merged into each block's rows when the weights are copied out.
//!
//! The host search evaluates the same weights incrementally (the first layer's sums
//! kept per perspective and changed by the few columns a move changes). It knows
//! nothing of chess: what the inputs mean is the encoder's business.

use burn::module::{Module, Param};
use burn::nn::{Linear, LinearConfig};
use burn::tensor::{Device, Tensor, TensorData};
pub use burnmate_weights::Activation;

use crate::deep_mlp::{DeepMlp, LayerWeights};

/// `σ` of every element of `s`.
pub fn activate<const D: usize>(activation: Activation, s: Tensor<D>) -> Tensor<D> {
    let c = s.clamp(0.0, 1.0);
    match activation {
        Activation::Crelu => c,
        Activation::Screlu => c.clone() * c,
    }
}

/// The network.
#[derive(Module, Debug)]
pub struct Nnue {
    /// The feature transformer `inputs -> hidden`, shared by both perspectives.
    pub transformer: Linear,
    /// The output `2 hidden -> buckets`.
    pub output: Linear,
    /// While training inputs in blocks (one per king bucket), rows `[inputs / blocks,
    /// hidden]` added to every block's rows (bullet's factoriser): what the blocks
    /// share is learned from every position. [`Nnue::weights`] merges it in.
    pub factoriser: Option<Param<Tensor<2>>>,
}

impl Nnue {
    /// A network of `inputs -> hidden` per perspective and `buckets` outputs with
    /// burn's default initialisation.
    pub fn new(inputs: usize, hidden: usize, buckets: usize, device: &Device) -> Nnue {
        Nnue {
            transformer: LinearConfig::new(inputs, hidden).init(device),
            output: LinearConfig::new(2 * hidden, buckets).init(device),
            factoriser: None,
        }
    }

    /// This network with a zero factoriser shared by `blocks` blocks of inputs (the
    /// same outputs until it learns); one block: unchanged.
    pub fn with_factoriser(mut self, blocks: usize) -> Nnue {
        let [inputs, hidden] = self.transformer.weight.dims();
        if blocks > 1 {
            let device = self.transformer.weight.device();
            let zeros = Tensor::<2>::zeros([inputs / blocks, hidden], &device);
            self.factoriser = Some(Param::from_tensor(zeros));
        }
        self
    }

    /// The transformer's outputs `W1 x + b1 (+ F x_shared)` for rows `x`
    /// (`[batch, inputs]`), `x_shared` each row's blocks added together.
    fn transform(&self, x: Tensor<2>) -> Tensor<2> {
        let sums = crate::fixed_order::forward(&self.transformer, x.clone());
        match &self.factoriser {
            None => sums,
            Some(factoriser) => {
                let [n, inputs] = x.dims();
                let rows = factoriser.dims()[0];
                let shared = x.reshape([n, inputs / rows, rows]).sum_dim(1);
                sums + shared.reshape([n, rows]).matmul(factoriser.val())
            }
        }
    }

    /// The network of host weights `[transformer, output]`; errors name the mismatch.
    pub fn from_weights(layers: &[LayerWeights; 2], device: &Device) -> Result<Nnue, String> {
        if layers[1].inputs != 2 * layers[0].outputs || layers[1].outputs == 0 {
            return Err(format!(
                "the output takes {} inputs to {} buckets, the transformer gives {} a side",
                layers[1].inputs, layers[1].outputs, layers[0].outputs
            ));
        }
        let mut built = DeepMlp::from_weights(&layers[..1], device)?.layers;
        let transformer = built.remove(0);
        let mut built = DeepMlp::from_weights(&layers[1..], device)?.layers;
        Ok(Nnue {
            transformer,
            output: built.remove(0),
            factoriser: None,
        })
    }

    /// The number of output buckets.
    pub fn buckets(&self) -> usize {
        self.output.weight.dims()[1]
    }

    /// Outputs `[batch, 1]` for the side to move's rows `us` and the other side's
    /// rows `them` (`[batch, inputs]` each) through `activation`, row `i` from output
    /// bucket `buckets[i]`.
    pub fn forward(
        &self,
        us: Tensor<2>,
        them: Tensor<2>,
        activation: Activation,
        buckets: &[usize],
    ) -> Tensor<2> {
        let side = |x| activate(activation, self.transform(x));
        self.head(Tensor::cat(vec![side(us), side(them)], 1), buckets)
    }

    /// Outputs `[batch, 1]` from the activated transformer sums of both perspectives,
    /// `[σ(W1 x_us + b1), σ(W1 x_them + b1)]` (`[batch, 2 hidden]`), computed
    /// elsewhere (a trainer that sums the set inputs' columns itself), row `i` from
    /// output bucket `buckets[i]`: all buckets' outputs, times a one-hot mask, summed
    /// (the other buckets add exact zeros).
    pub fn head(&self, activations: Tensor<2>, buckets: &[usize]) -> Tensor<2> {
        let count = self.buckets();
        let mut mask = vec![0.0f32; buckets.len() * count];
        for (row, &k) in mask.chunks_exact_mut(count).zip(buckets) {
            row[k] = 1.0;
        }
        let mask = TensorData::new(mask, [buckets.len(), count]);
        let mask = Tensor::<2>::from_data(mask, &activations.device());
        (crate::fixed_order::forward(&self.output, activations) * mask).sum_dim(1)
    }

    /// Host copies `[transformer, output]`, the factoriser's rows added to each
    /// block of the transformer's.
    pub fn weights(&self) -> [LayerWeights; 2] {
        let mut copies = DeepMlp {
            layers: vec![self.transformer.clone(), self.output.clone()],
        }
        .weights();
        let output = copies.pop().expect("two layers");
        let mut transformer = copies.pop().expect("two layers");
        if let Some(factoriser) = &self.factoriser {
            let shared: Vec<f32> = factoriser
                .val()
                .into_data()
                .try_into_vec()
                .expect("f32 weights");
            for block in transformer.weight.chunks_exact_mut(shared.len()) {
                for (w, f) in block.iter_mut().zip(&shared) {
                    *w += f;
                }
            }
        }
        [transformer, output]
    }
}
