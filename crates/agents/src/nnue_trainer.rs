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
//! Adam with PyTorch's defaults; minibatches in a seeded order. The feature
//! transformer runs on the host as a sparse layer (bullet's sparse affine op): its
//! sums add the weight rows of a position's 2-32 set features of 768, and its weight
//! gradient adds each row's gradient to the rows of its set features; the device
//! computes the output layer and the loss and their gradients by autodiff:
//!
//! ```text
//! s_p      = b1 + sum of W1's rows f set from p's side, a_p = σ(s_p)      (host)
//! out      = W2[k] . [a_us, a_them] + b2[k], k the material's bucket      (device)
//! dL/ds_p  = dL/da_p σ'(s_p): σ' = 1 (CReLU) or 2 s_p (SCReLU) on [0, 1], else 0
//! dL/dW1_f = sum over positions and sides with f set of dL/ds_p
//! dL/db1   = sum over positions and sides of dL/ds_p
//! ```
//!
//! The dense product `[batch, 768] x [768, hidden]` it replaces costs 768 multiply-adds
//! an output where a position sets at most 32 (`benches/README.md`).

use burn::module::Module as _;
use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::nnue::{KingBuckets, output_bucket};
use burnmate_models::{Activation, LayerWeights, Nnue};
use rand::Rng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use std::ops::Range;

use crate::init::uniform_layers;
use crate::optim::pytorch_adam;
use burnmate_engine::nnue::{NnueForm, SCALE};
use burnmate_engine::packed::{PackedPosition, Perspective};

/// The training target of `position` with result weight `lambda`: the search's
/// score as a win probability blended with the game's result.
pub fn target(position: &PackedPosition, lambda: f32) -> f32 {
    let search = 1.0 / (1.0 + (-f32::from(position.score) / SCALE).exp());
    (1.0 - lambda) * search + lambda * position.result_value()
}

/// The net, its form, its optimiser and its learning rate.
pub struct NnueTrainer {
    net: Nnue,
    form: NnueForm,
    optimizer: ModuleOptimizer,
    device: Device,
    lr: f64,
}

/// Fresh weights for a `king_buckets.inputs() -> hidden` x 2 -> `buckets` net
/// (PyTorch's default ranges).
pub fn fresh_weights(
    king_buckets: KingBuckets,
    hidden: usize,
    buckets: usize,
    rng: &mut impl Rng,
) -> [LayerWeights; 2] {
    let transformer = uniform_layers(&[king_buckets.inputs(), hidden], rng).remove(0);
    let output = uniform_layers(&[2 * hidden, buckets], rng).remove(0);
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
    host(tensor)[0]
}

/// The host values of `tensor`.
fn host<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32 values")
}

/// The feature transformer's weights on the host (the factoriser merged in),
/// copied from the net once a step.
struct HostTransformer {
    /// `[inputs, hidden]` row-major: row `f` is input `f`'s column of `W1`.
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// Fewest hidden columns a part of the transformer's work takes: below it a thread's
/// share is not worth its start.
const MIN_PART_COLUMNS: usize = 16;

/// The ranges of hidden columns the transformer's work is split into, one a thread
/// of the current rayon pool (at most `hidden / 16`). Every column's sums and
/// gradients are computed whole by one part, position after position, as one
/// thread computes them: the result is the same bits on any number of threads.
fn column_parts(hidden: usize) -> Vec<Range<usize>> {
    let parts = rayon::current_num_threads()
        .min(hidden / MIN_PART_COLUMNS)
        .max(1);
    (0..parts)
        .map(|p| p * hidden / parts..(p + 1) * hidden / parts)
        .collect()
}

/// The transformer's sums of one part of the columns: `[sets, width]`.
struct PartSums {
    columns: Range<usize>,
    sums: Vec<f32>,
}

impl HostTransformer {
    fn of(net: &Nnue) -> HostTransformer {
        let [transformer, _] = net.weights();
        HostTransformer {
            weight: transformer.weight,
            bias: transformer.bias,
        }
    }

    /// `b1` plus the rows of each set's features, `sets` alternating the side to
    /// move's and the other side's of each position, in column parts (on every
    /// thread of the pool).
    fn sums(&self, sets: &[&[u16]]) -> Vec<PartSums> {
        let hidden = self.bias.len();
        column_parts(hidden)
            .into_par_iter()
            .map(|columns| {
                let width = columns.len();
                let mut sums = vec![0.0f32; width * sets.len()];
                for (row, set) in sums.chunks_exact_mut(width).zip(sets) {
                    row.copy_from_slice(&self.bias[columns.clone()]);
                    for &f in *set {
                        let column =
                            &self.weight[usize::from(f) * hidden + columns.start..][..width];
                        for (s, w) in row.iter_mut().zip(column) {
                            *s += w;
                        }
                    }
                }
                PartSums { columns, sums }
            })
            .collect()
    }
}

/// `σ` of the parts' sums, laid out `[n, 2 hidden]`: each position's two halves
/// side by side (rows in parallel).
fn activated(parts: &[PartSums], activation: Activation, hidden: usize, sets: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; sets * hidden];
    out.par_chunks_exact_mut(hidden)
        .enumerate()
        .for_each(|(i, row)| {
            for part in parts {
                let width = part.columns.len();
                let sums = &part.sums[i * width..][..width];
                for (o, s) in row[part.columns.clone()].iter_mut().zip(sums) {
                    *o = activation.apply(*s);
                }
            }
        });
    out
}

/// The transformer's gradients `(dW1 [inputs, hidden], db1 [hidden])` from the
/// activations' gradients `[n, 2 hidden]` and the sums `activation` took them of
/// (in parts) of the sets of features `sets` (alternating the side to move's and
/// the other side's): each half row's gradient times the activation's slope at its
/// sum (zero where the sum was clamped), added to the rows of its set features and
/// to the bias, set after set; each part of the columns on a thread of its own.
fn transformer_gradients(
    [inputs, hidden]: [usize; 2],
    activation: Activation,
    sets: &[&[u16]],
    parts: &[PartSums],
    activation_gradients: &[f32],
) -> (Vec<f32>, Vec<f32>) {
    let computed: Vec<(Vec<f32>, Vec<f32>)> = parts
        .par_iter()
        .map(|part| {
            let width = part.columns.len();
            let mut weight = vec![0.0f32; inputs * width];
            let mut bias = vec![0.0f32; width];
            let mut gradient = vec![0.0f32; width];
            let rows = part
                .sums
                .chunks_exact(width)
                .zip(activation_gradients.chunks_exact(hidden));
            for ((sum, upstream), set) in rows.zip(sets) {
                let upstream = &upstream[part.columns.clone()];
                for ((g, s), u) in gradient.iter_mut().zip(sum).zip(upstream) {
                    *g = *u * activation.slope(*s);
                }
                for &f in *set {
                    let row = &mut weight[usize::from(f) * width..][..width];
                    for (w, g) in row.iter_mut().zip(&gradient) {
                        *w += g;
                    }
                }
                for (b, g) in bias.iter_mut().zip(&gradient) {
                    *b += g;
                }
            }
            (weight, bias)
        })
        .collect();
    let mut weight = vec![0.0f32; inputs * hidden];
    let mut bias = vec![0.0f32; hidden];
    for (part, (part_weight, part_bias)) in parts.iter().zip(computed) {
        let width = part.columns.len();
        for (row, from) in weight
            .chunks_exact_mut(hidden)
            .zip(part_weight.chunks_exact(width))
        {
            row[part.columns.clone()].copy_from_slice(from);
        }
        bias[part.columns.clone()].copy_from_slice(&part_bias);
    }
    (weight, bias)
}

/// The factoriser's gradient from the transformer's `weight` gradient: the shared
/// rows (`len` values) are in every block, so theirs is the blocks' sum.
fn shared_gradient(weight: &[f32], len: usize) -> Vec<f32> {
    let mut shared = vec![0.0f32; len];
    for block in weight.chunks_exact(len) {
        for (s, g) in shared.iter_mut().zip(block) {
            *s += g;
        }
    }
    shared
}

/// The side to move's and the other side's inputs of `batch`: each set feature
/// placed by its perspective's king ([`KingBuckets`]).
fn placed_sets(batch: &[&PackedPosition], king_buckets: KingBuckets) -> [Vec<Vec<u16>>; 2] {
    let place = |position: &PackedPosition, perspective: Perspective| -> Vec<u16> {
        let set: Vec<u16> = position.features(perspective).collect();
        let view = king_buckets.view_of_set(&set);
        set.iter()
            .map(|&f| view.input(usize::from(f)) as u16)
            .collect()
    };
    [
        batch
            .par_iter()
            .map(|p| place(p, Perspective::Us))
            .collect(),
        batch
            .par_iter()
            .map(|p| place(p, Perspective::Them))
            .collect(),
    ]
}

/// The sets of `placed` alternating the side to move's and the other side's of each
/// position, as the transformer's rows lie.
fn interleaved(placed: &[Vec<Vec<u16>>; 2]) -> Vec<&[u16]> {
    placed[0]
        .iter()
        .zip(&placed[1])
        .flat_map(|(us, them)| [us.as_slice(), them.as_slice()])
        .collect()
}

impl NnueTrainer {
    /// A trainer of the net `weights` of `form` on `device` (autodiff enabled); with
    /// king buckets, a zero factoriser shared by their blocks.
    pub fn new(
        weights: &[LayerWeights; 2],
        form: NnueForm,
        lr: f64,
        device: Device,
    ) -> Result<NnueTrainer, String> {
        let inputs = form.king_buckets.inputs();
        if weights[0].inputs != inputs {
            return Err(format!(
                "{:?} king buckets take {inputs} inputs, the net {}",
                form.king_buckets, weights[0].inputs
            ));
        }
        let net = Nnue::from_weights(weights, &device)?;
        Ok(NnueTrainer {
            net: net.with_factoriser(form.king_buckets.blocks()),
            form,
            optimizer: pytorch_adam(),
            device,
            lr,
        })
    }

    /// The mean loss of `net` with `activation` (on `device`) on `batch`, whose
    /// inputs are `placed` ([`placed_sets`]), as a tensor, with the transformer's
    /// sums (host, `[n, 2 hidden]`) and their activations (tracked for their
    /// gradient with `track`).
    fn batch_loss(
        net: &Nnue,
        activation: Activation,
        device: &Device,
        (batch, placed): (&[&PackedPosition], &[Vec<Vec<u16>>; 2]),
        lambda: f32,
        track: bool,
    ) -> (Tensor<1>, Vec<PartSums>, Tensor<2>) {
        let n = batch.len();
        let transformer = HostTransformer::of(net);
        let hidden = transformer.bias.len();
        let sets = interleaved(placed);
        let sums = transformer.sums(&sets);
        let activated = activated(&sums, activation, hidden, sets.len());
        let activations =
            Tensor::<2>::from_data(TensorData::new(activated, [n, 2 * hidden]), device);
        let activations = if track {
            activations.require_grad()
        } else {
            activations
        };
        let targets: Vec<f32> = batch.iter().map(|p| target(p, lambda)).collect();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), device);
        // A position sets one feature a piece: its material picks the bucket.
        let buckets: Vec<usize> = batch
            .iter()
            .map(|p| output_bucket(p.piece_count(), net.buckets()))
            .collect();
        let out = net.head(activations.clone(), &buckets);
        let loss = (sigmoid(out) - target).powf_scalar(2.0).mean();
        (loss, sums, activations)
    }

    /// The mean loss of the net on `data` (in minibatches of `batch`), no step taken:
    /// its error on positions it was not trained on.
    pub fn loss(&self, data: &[PackedPosition], batch: usize, lambda: f32) -> f32 {
        // Without autodiff: no graph is kept for a backward pass that never comes.
        let net = self.net.valid();
        let device = net.transformer.weight.device();
        let order: Vec<&PackedPosition> = data.iter().collect();
        let total: f32 = order
            .chunks(batch.max(1))
            .map(|chunk| {
                let placed = placed_sets(chunk, self.form.king_buckets);
                let activation = self.form.activation;
                let loss =
                    Self::batch_loss(&net, activation, &device, (chunk, &placed), lambda, false);
                scalar(loss.0) * chunk.len() as f32
            })
            .sum();
        total / data.len().max(1) as f32
    }

    /// One Adam step on `batch`; returns its loss.
    pub fn step(&mut self, batch: &[&PackedPosition], lambda: f32) -> f32 {
        let placed = placed_sets(batch, self.form.king_buckets);
        let (loss, sums, activations) = Self::batch_loss(
            &self.net,
            self.form.activation,
            &self.device,
            (batch, &placed),
            lambda,
            true,
        );
        let value = scalar(loss.clone());
        let grads = loss.backward();
        let upstream = host(
            activations
                .grad(&grads)
                .expect("the activations are tracked"),
        );
        let shape = self.net.transformer.weight.dims();
        let (weight, bias) = transformer_gradients(
            shape,
            self.form.activation,
            &interleaved(&placed),
            &sums,
            &upstream,
        );
        let mut params = GradientsParams::from_grads(grads, &self.net);
        let inner = self.device.clone().inner();
        if let Some(factoriser) = &self.net.factoriser {
            let rows = factoriser.dims()[0];
            let shared =
                TensorData::new(shared_gradient(&weight, rows * shape[1]), [rows, shape[1]]);
            params.register(factoriser.id, Tensor::<2>::from_data(shared, &inner));
        }
        let transformer = &self.net.transformer;
        let hidden = shape[1];
        let weight = TensorData::new(weight, shape);
        params.register(
            transformer.weight.id,
            Tensor::<2>::from_data(weight, &inner),
        );
        let bias_id = transformer.bias.as_ref().expect("a bias").id;
        let bias = TensorData::new(bias, [hidden]);
        params.register(bias_id, Tensor::<1>::from_data(bias, &inner));
        let net = self.net.clone();
        self.net = self.optimizer.step(self.lr, net, params);
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
        data: &[PackedPosition],
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
            let mut order: Vec<&PackedPosition> = data.iter().collect();
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

    /// Fresh weights of a plain `hidden`-wide net with one output, and a trainer of
    /// them at rate 1e-2.
    fn plain_trainer(hidden: usize, rng: &mut ChaCha8Rng) -> ([LayerWeights; 2], NnueTrainer) {
        let weights = fresh_weights(KingBuckets::Plain, hidden, 1, rng);
        let device = Device::flex().autodiff();
        let trainer = NnueTrainer::new(&weights, NnueForm::default(), 1e-2, device).unwrap();
        (weights, trainer)
    }

    /// The position whose side to move's features are `us`.
    fn sample(us: &[u16], score: i32, result: f32) -> PackedPosition {
        PackedPosition::from_features(us, score, (result * 2.0) as u8).expect("a position")
    }

    #[test]
    fn targets_blend_the_search_score_and_the_result() {
        assert!((target(&sample(&[1], 0, 1.0), 0.3) - 0.65).abs() < 1e-6);
        // 400 cp is a logit of 1: sigmoid(1) = 0.731059.
        assert!((target(&sample(&[1], 400, 0.0), 0.0) - 0.731_059).abs() < 1e-6);
        assert!((target(&sample(&[1], -400, 0.5), 1.0) - 0.5).abs() < 1e-6);
    }

    #[test]
    fn the_rate_falls_along_a_cosine() {
        assert_eq!(cosine_rate(1e-3, None, 7, 10), 1e-3);
        assert_eq!(cosine_rate(1e-3, Some(1e-5), 0, 10), 1e-3);
        assert!((cosine_rate(1e-3, Some(1e-5), 5, 10) - 5.05e-4).abs() < 1e-12);
        assert!((cosine_rate(1e-3, Some(1e-5), 10, 10) - 1e-5).abs() < 1e-12);
    }

    #[test]
    fn the_host_transformer_gives_the_dense_forward_pass_and_its_gradients() {
        let plain = NnueForm::default();
        let four = NnueForm {
            activation: Activation::Screlu,
            king_buckets: KingBuckets::Four,
        };
        for form in [plain, four] {
            host_transformer_matches_the_dense_pass(form);
        }
    }

    fn host_transformer_matches_the_dense_pass(form: NnueForm) {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // Eight material buckets: 2-5 pieces use bucket 0, 14 pieces bucket 3.
        let weights = fresh_weights(form.king_buckets, 8, 8, &mut rng);
        let inputs = form.king_buckets.inputs();
        let device = Device::flex().autodiff();
        let mut net = Nnue::from_weights(&weights, &device).unwrap();
        let blocks = form.king_buckets.blocks();
        if blocks > 1 {
            // A factoriser that is not zero, so its part in the sums shows.
            let shared: Vec<f32> = (0..768 * 8)
                .map(|i| (i as f32 * 0.7).sin() * 0.05)
                .collect();
            let shared = Tensor::<2>::from_data(TensorData::new(shared, [768, 8]), &device);
            net.factoriser = Some(burn::module::Param::from_tensor(shared));
        }
        // Our king on g1 (feature 326: mirrored, block 0) and on e2 (332: mirrored,
        // block 2 of four).
        let fourteen: Vec<u16> = (0..14).map(|i| 50 * i + 7).collect();
        let data = [
            sample(&[0, 5, 326, 700], 120, 1.0),
            sample(&[5, 332], -40, 0.0),
            sample(&[3, 64, 65, 66, 400], 0, 0.5),
            sample(&fourteen, 250, 1.0),
        ];
        let buckets = [0, 0, 0, 3];
        let batch: Vec<&PackedPosition> = data.iter().collect();
        let placed = placed_sets(&batch, form.king_buckets);
        // The reference: dense 0/1 rows of the placed inputs through burn's autodiff.
        let dense = |sets: &Vec<Vec<u16>>| {
            let mut rows = vec![0.0f32; sets.len() * inputs];
            for (row, set) in rows.chunks_mut(inputs).zip(sets) {
                for &f in set {
                    row[usize::from(f)] = 1.0;
                }
            }
            Tensor::<2>::from_data(TensorData::new(rows, [4, inputs]), &device)
        };
        let targets: Vec<f32> = data.iter().map(|p| target(p, 0.3)).collect();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [4, 1]), &device);
        let out = net.forward(
            dense(&placed[0]),
            dense(&placed[1]),
            form.activation,
            &buckets,
        );
        let expected = (sigmoid(out) - target).powf_scalar(2.0).mean();
        let grads = expected.backward();
        let expected_weight = host(net.transformer.weight.val().grad(&grads).unwrap());
        let bias = net.transformer.bias.as_ref().unwrap();
        let expected_bias = host(bias.val().grad(&grads).unwrap());
        let expected_output = host(net.output.weight.val().grad(&grads).unwrap());
        let expected_shared = net
            .factoriser
            .as_ref()
            .map(|f| host(f.val().grad(&grads).unwrap()));
        // The trainer's: host sums, device head, host scatter.
        let (loss, sums, activations) =
            NnueTrainer::batch_loss(&net, form.activation, &device, (&batch, &placed), 0.3, true);
        let grads = loss.backward();
        assert!((scalar(loss) - scalar(expected)).abs() < 1e-7, "{form:?}");
        let upstream = host(activations.grad(&grads).unwrap());
        let shape = [inputs, 8];
        let (weight, bias) = transformer_gradients(
            shape,
            form.activation,
            &interleaved(&placed),
            &sums,
            &upstream,
        );
        let gap = |a: &[f32], b: &[f32]| {
            assert_eq!(a.len(), b.len());
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        assert!(expected_weight.iter().any(|&g| g.abs() > 1e-4));
        assert!(
            gap(&weight, &expected_weight) < 1e-7,
            "{form:?}: {}",
            gap(&weight, &expected_weight)
        );
        assert!(gap(&bias, &expected_bias) < 1e-7);
        if let Some(expected_shared) = expected_shared {
            let shared = shared_gradient(&weight, 768 * 8);
            assert!(
                gap(&shared, &expected_shared) < 1e-6,
                "{}",
                gap(&shared, &expected_shared)
            );
            // Positions 0 and 1 put their inputs in blocks 0 and 2 of four, position 3
            // (its king's feature 357: f5, mirrored c5) in block 3.
            let block_moves = |b: usize| {
                weight[b * 768 * 8..(b + 1) * 768 * 8]
                    .iter()
                    .any(|&g| g != 0.0)
            };
            assert_eq!(
                (0..4).map(block_moves).collect::<Vec<_>>(),
                [true, false, true, true]
            );
        }
        let output = host(net.output.weight.val().grad(&grads).unwrap());
        assert!(gap(&output, &expected_output) < 1e-7);
        // `[16 inputs, 8 buckets]`: only buckets 0 and 3 were used, so only their
        // columns have a gradient.
        let column_moves = |k: usize| output.iter().skip(k).step_by(8).any(|&g| g != 0.0);
        let moved: Vec<bool> = (0..8).map(column_moves).collect();
        assert_eq!(
            moved,
            [true, false, false, true, false, false, false, false]
        );
    }

    #[test]
    fn a_step_moves_the_columns_of_the_features_it_saw_and_no_other() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (weights, mut trainer) = plain_trainer(8, &mut rng);
        let data = [sample(&[10, 20], 300, 1.0), sample(&[20, 30], -300, 0.0)];
        trainer.step(&data.iter().collect::<Vec<_>>(), 0.3);
        let after = trainer.weights();
        let column = |w: &LayerWeights, f: usize| w.weight[f * 8..(f + 1) * 8].to_vec();
        // Our pawns on c2, e3, g4 (features 10, 20, 30) are their pawns on c7, e6,
        // g5 from the other side (384 + 50, 44, 38): those columns move.
        for f in [10, 20, 30, 434, 428, 422] {
            assert_ne!(column(&after[0], f), column(&weights[0], f), "feature {f}");
        }
        for f in [0, 11, 383, 767] {
            assert_eq!(column(&after[0], f), column(&weights[0], f), "feature {f}");
        }
        assert_ne!(after[0].bias, weights[0].bias);
        assert_ne!(after[1].weight, weights[1].weight);
    }

    #[test]
    fn passes_fit_a_small_labelled_set() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let data: Vec<PackedPosition> = (0..64u16)
            .map(|i| sample(&[i, 100 + i], if i % 2 == 0 { 300 } else { -300 }, 0.5))
            .collect();
        let (_, mut trainer) = plain_trainer(16, &mut rng);
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

    #[test]
    fn a_step_on_any_number_of_threads_gives_the_same_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let form = NnueForm {
            activation: Activation::Screlu,
            king_buckets: KingBuckets::Four,
        };
        let weights = fresh_weights(form.king_buckets, 64, 2, &mut rng);
        // The positions of random games from the start, either side to move.
        let mut position = shakmaty::Chess::default();
        let data: Vec<PackedPosition> = (0..48i32)
            .map(|i| {
                use rand::RngExt;
                use shakmaty::Position;
                let moves = position.legal_moves();
                if moves.is_empty() {
                    position = shakmaty::Chess::default();
                } else {
                    position.play_unchecked(moves[rng.random_range(0..moves.len())]);
                }
                let (board, turn) = (position.board(), position.turn());
                PackedPosition::new(board, turn, i * 20 - 400, (i % 3) as u8).unwrap()
            })
            .collect();
        let batch: Vec<&PackedPosition> = data.iter().collect();
        let stepped = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                assert_eq!(column_parts(64).len(), threads.min(4));
                let device = Device::flex().autodiff();
                let mut trainer = NnueTrainer::new(&weights, form, 1e-2, device).unwrap();
                let losses = [trainer.step(&batch, 0.3), trainer.step(&batch, 0.3)];
                (losses, trainer.weights())
            })
        };
        let one = stepped(1);
        assert_ne!(one.1, weights, "the steps moved the net");
        for threads in [2, 3, 4] {
            assert_eq!(stepped(threads), one, "{threads} threads");
        }
    }
}
