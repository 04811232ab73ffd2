//! Trains the efficiently updatable net ([`burnmate_models::Nnue`]) on positions
//! labelled by search, as the NNUE trainers of chess engines do (Stockfish's
//! nnue-pytorch, bullet): the net's output is a logit of the side to move's expected
//! score, and its target blends the search's opinion with the game's result:
//!
//! ```text
//! target = (1 - λ) sigmoid(score / SCALE) + λ result      result: 1 win, ½ draw, 0 loss
//! loss   = mean over a minibatch of (sigmoid(out) - target)²
//! ```
//!
//! Adam with PyTorch's defaults; minibatches in a seeded order; the inputs go to the
//! device as dense 0/1 rows (768 a perspective).

use burn::module::Module as _;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::nnue::INPUTS;
use burnmate_models::{LayerWeights, Nnue};
use rand::Rng;
use rand::seq::SliceRandom;

use crate::engine::nnue::SCALE;
use crate::init::uniform_layers;
use crate::optim::pytorch_adam;

/// One training position: its features from the side to move's view and from the
/// other side's, the search's score (centipawns, side to move) and the game's result
/// for the side to move.
#[derive(Clone, Debug, PartialEq)]
pub struct Labelled {
    /// Set features from the side to move's perspective.
    pub us: Vec<u16>,
    /// Set features from the other side's perspective.
    pub them: Vec<u16>,
    /// The search's score.
    pub score: i32,
    /// 1 won, 0.5 drawn, 0 lost, for the side to move.
    pub result: f32,
}

impl Labelled {
    /// The training target with result weight `lambda`.
    pub fn target(&self, lambda: f32) -> f32 {
        let search = 1.0 / (1.0 + (-(self.score as f32) / SCALE).exp());
        (1.0 - lambda) * search + lambda * self.result
    }
}

/// The net, its optimiser and its learning rate.
pub struct NnueTrainer {
    net: Nnue,
    optimizer: ModuleOptimizer,
    device: Device,
    lr: f64,
}

/// Fresh weights for a `768 -> hidden` x 2 -> 1 net (PyTorch's default ranges).
pub fn fresh_weights(hidden: usize, rng: &mut impl Rng) -> [LayerWeights; 2] {
    let transformer = uniform_layers(&[INPUTS, hidden], rng).remove(0);
    let output = uniform_layers(&[2 * hidden, 1], rng).remove(0);
    [transformer, output]
}

/// The rate of step `step` of `steps`: from `start` to `end` along a cosine, or
/// `start` throughout without an `end`.
fn cosine_rate(start: f64, end: Option<f64>, step: usize, steps: usize) -> f64 {
    match end {
        None => start,
        Some(end) => {
            let progress = step as f64 / steps.max(1) as f64;
            end + 0.5 * (start - end) * (1.0 + (std::f64::consts::PI * progress).cos())
        }
    }
}

/// The one value of `tensor`.
fn scalar(tensor: Tensor<1>) -> f32 {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .expect("an f32 loss")[0]
}

/// Dense rows `[n, INPUTS]` of the features `sets` on `device`.
fn rows<'a>(sets: impl Iterator<Item = &'a [u16]>, n: usize, device: &Device) -> Tensor<2> {
    let mut data = vec![0.0f32; n * INPUTS];
    for (row, set) in data.chunks_mut(INPUTS).zip(sets) {
        for &f in set {
            row[usize::from(f)] = 1.0;
        }
    }
    Tensor::from_data(TensorData::new(data, [n, INPUTS]), device)
}

impl NnueTrainer {
    /// A trainer of the net `weights` on `device` (autodiff enabled).
    pub fn new(
        weights: &[LayerWeights; 2],
        lr: f64,
        device: Device,
    ) -> Result<NnueTrainer, String> {
        Ok(NnueTrainer {
            net: Nnue::from_weights(weights, &device)?,
            optimizer: pytorch_adam(),
            device,
            lr,
        })
    }

    /// The mean loss of `net` (on `device`) on `batch` as a tensor.
    fn batch_loss(net: &Nnue, device: &Device, batch: &[&Labelled], lambda: f32) -> Tensor<1> {
        let n = batch.len();
        let us = rows(batch.iter().map(|s| s.us.as_slice()), n, device);
        let them = rows(batch.iter().map(|s| s.them.as_slice()), n, device);
        let targets: Vec<f32> = batch.iter().map(|s| s.target(lambda)).collect();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), device);
        (sigmoid(net.forward(us, them)) - target)
            .powf_scalar(2.0)
            .mean()
    }

    /// The mean loss of the net on `data` (in minibatches of `batch`), no step taken:
    /// its error on positions it was not trained on.
    pub fn loss(&self, data: &[Labelled], batch: usize, lambda: f32) -> f32 {
        // Without autodiff: no graph is kept for a backward pass that never comes.
        let net = self.net.valid();
        let device = net.transformer.weight.device();
        let order: Vec<&Labelled> = data.iter().collect();
        let total: f32 = order
            .chunks(batch.max(1))
            .map(|chunk| {
                scalar(Self::batch_loss(&net, &device, chunk, lambda)) * chunk.len() as f32
            })
            .sum();
        total / data.len().max(1) as f32
    }

    /// One Adam step on `batch`; returns its loss.
    pub fn step(&mut self, batch: &[&Labelled], lambda: f32) -> f32 {
        let loss = Self::batch_loss(&self.net, &self.device, batch, lambda);
        let value = scalar(loss.clone());
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let net = self.net.clone();
        self.net = self.optimizer.step(self.lr, net, grads);
        value
    }

    /// `passes` passes over `data` in minibatches of `batch`, each in an order drawn
    /// from `rng`; the rate of step `i` of `n` falls from the trainer's `lr` to
    /// `final_lr` along a cosine (constant when `final_lr` is `None`):
    ///
    /// ```text
    /// rate_i = final_lr + ½ (lr - final_lr) (1 + cos(π i / n))
    /// ```
    ///
    /// Returns each pass's mean loss.
    pub fn train(
        &mut self,
        data: &[Labelled],
        passes: u32,
        batch: usize,
        lambda: f32,
        final_lr: Option<f64>,
        rng: &mut impl Rng,
    ) -> Vec<f32> {
        let batch = batch.max(1);
        let steps_a_pass = data.len().div_ceil(batch).max(1);
        let steps = steps_a_pass * passes as usize;
        let start = self.lr;
        let mut step = 0;
        let mut means = Vec::new();
        for _ in 0..passes {
            let mut order: Vec<&Labelled> = data.iter().collect();
            order.shuffle(rng);
            let mut total = 0.0;
            for chunk in order.chunks(batch) {
                self.lr = cosine_rate(start, final_lr, step, steps);
                total += self.step(chunk, lambda);
                step += 1;
            }
            means.push(total / steps_a_pass as f32);
        }
        self.lr = start;
        means
    }

    /// Host copies of the weights `[transformer, output]`.
    pub fn weights(&self) -> [LayerWeights; 2] {
        self.net.weights()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn sample(us: &[u16], score: i32, result: f32) -> Labelled {
        Labelled {
            us: us.to_vec(),
            them: us.iter().map(|f| (f + 384) % 768).collect(),
            score,
            result,
        }
    }

    #[test]
    fn targets_blend_the_search_score_and_the_result() {
        assert!((sample(&[1], 0, 1.0).target(0.3) - 0.65).abs() < 1e-6);
        // 400 cp is a logit of 1: sigmoid(1) = 0.731059.
        assert!((sample(&[1], 400, 0.0).target(0.0) - 0.731_059).abs() < 1e-6);
        assert!((sample(&[1], -400, 0.5).target(1.0) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_rate_falls_along_a_cosine() {
        assert_eq!(cosine_rate(1e-3, None, 7, 10), 1e-3);
        assert_eq!(cosine_rate(1e-3, Some(1e-5), 0, 10), 1e-3);
        assert!((cosine_rate(1e-3, Some(1e-5), 5, 10) - 5.05e-4).abs() < 1e-12);
        assert!((cosine_rate(1e-3, Some(1e-5), 10, 10) - 1e-5).abs() < 1e-12);
    }

    #[test]
    fn passes_fit_a_small_labelled_set() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let data: Vec<Labelled> = (0..64u16)
            .map(|i| sample(&[i, 100 + i], if i % 2 == 0 { 300 } else { -300 }, 0.5))
            .collect();
        let weights = fresh_weights(16, &mut rng);
        let mut trainer = NnueTrainer::new(&weights, 1e-2, Device::flex().autodiff()).unwrap();
        let losses = trainer.train(&data, 31, 16, 0.0, Some(1e-3), &mut rng);
        assert_eq!(losses.len(), 31);
        assert!(
            losses[30] < losses[0] * 0.2,
            "loss {} -> {}",
            losses[0],
            losses[30]
        );
        // The loss without a step is the mean of the per-position errors.
        let held_out = trainer.loss(&data, 7, 0.0);
        assert!((held_out - trainer.loss(&data, 64, 0.0)).abs() < 1e-6);
        assert!(held_out < losses[0] * 0.2, "{held_out}");
        assert_eq!(trainer.weights()[0].outputs, 16);
    }
}
