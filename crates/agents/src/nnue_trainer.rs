//! Trains the efficiently updatable net (the weights of [`burnmate_models::Nnue`])
//! on positions labelled by search, as the NNUE trainers of chess engines do
//! (Stockfish's nnue-pytorch, bullet): the net's output is a logit of the side to
//! move's expected score, and its target blends the search's opinion with the
//! game's result:
//!
//! ```text
//! target = (1 - λ) sigmoid(score / SCALE) + λ result      result: 1 win, ½ draw, 0 loss
//! loss   = mean over a minibatch of (sigmoid(out) - target)²
//! ```
//!
//! The whole step runs on the host's cores, as bullet's CPU backend runs it: the
//! feature transformer as a sparse layer ([`transformer`]: a position sets at most
//! 32 of its 768 inputs), the output layer and the loss ([`head`]), and PyTorch's
//! Adam on each tensor, every part split over the threads of the rayon pool so that
//! each value is summed in the same order on any number of threads (the same bits
//! on 1, 2 or 64 cores). Inputs in blocks (king buckets) train with a factoriser
//! `F` shared by every block, merged into each block's rows when the weights are
//! copied out (`W1 + F` a block; `dL/dF` is the blocks' gradients summed).
//! Minibatches in a seeded order.

mod device;
mod head;
mod transformer;
mod widest;

use std::borrow::Cow;

use burnmate_encode::nnue::{KingBuckets, output_bucket};
use burnmate_engine::nnue::{NnueForm, SCALE};
use burnmate_engine::packed::PackedPosition;
use burnmate_models::LayerWeights;
use rand::Rng;
use rand::seq::SliceRandom;

use crate::adam::HostMoments;
use crate::init::uniform_layers;
pub use device::DeviceNnueTrainer;
use head::HeadGradients;
use rayon::prelude::*;
use transformer::{HostTransformer, placed_sets, shared_gradient, sum_gradients, weight_gradient};

/// Positions a part of a step's pass takes (sums, output layer, loss): a fixed
/// count, so a step gives the same bits on any number of threads.
const POSITIONS_A_PART: usize = 64;

/// A part's forward pass ([`NnueTrainer::forward`]).
struct Forward {
    /// Each position's feature sets, the side to move's then the other side's.
    sets: Vec<Vec<u16>>,
    /// The transformer's sums, `[2 positions, hidden]`.
    sums: Vec<f32>,
    /// Their activations.
    activated: Vec<f32>,
    /// The training targets.
    targets: Vec<f32>,
    /// The output buckets.
    buckets: Vec<usize>,
}

/// One part's pass ([`NnueTrainer::position_part`]).
struct PositionPart {
    /// Each position's feature sets, the side to move's then the other side's.
    sets: Vec<Vec<u16>>,
    /// Their share of `dL/db1`.
    transformer_bias: Vec<f32>,
    /// Their share of the output layer's gradients; `upstream` holds the sums'
    /// gradients `dL/ds` (`[2 positions, hidden]`).
    head: HeadGradients,
}

/// The training target of `position` with result weight `lambda`: the search's
/// score as a win probability blended with the game's result.
pub fn target(position: &PackedPosition, lambda: f32) -> f32 {
    let search = 1.0 / (1.0 + (-f32::from(position.score) / SCALE).exp());
    (1.0 - lambda) * search + lambda * position.result_value()
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

/// Adam's state, one a tensor.
struct Moments {
    transformer: HostMoments,
    transformer_bias: HostMoments,
    factoriser: Option<HostMoments>,
    output: HostMoments,
    output_bias: HostMoments,
}

/// Every gradient of one step.
struct Gradients {
    transformer: Vec<f32>,
    transformer_bias: Vec<f32>,
    factoriser: Option<Vec<f32>>,
    output: Vec<f32>,
    output_bias: Vec<f32>,
}

/// One Adam step on a minibatch at a given rate, on the host ([`NnueTrainer`]) or on
/// a Burn device ([`DeviceNnueTrainer`]); [`train_passes`] drives either.
pub trait MinibatchStep {
    /// A step's loss as the trainer holds it: a device's stays on the device until
    /// [`MinibatchStep::total`] reads a pass's losses at once, so the host prepares
    /// the next batch while the device works.
    type Loss;
    /// One Adam step at rate `lr` on `batch` with result weight `lambda`; the
    /// batch's mean loss before the step.
    fn step_at(&mut self, lr: f64, batch: &[&PackedPosition], lambda: f32) -> Self::Loss;
    /// The sum of `losses`, on the host.
    fn total(&self, losses: Vec<Self::Loss>) -> f32;
    /// Host copies of the weights `[transformer, output]`, the factoriser merged
    /// into the transformer.
    fn weights(&self) -> [LayerWeights; 2];
}

/// `passes` passes over `data` in minibatches of `batch`, each in an order drawn
/// from `rng`; the rate of step `i` of `n` falls from `lr` to `final_lr` along a
/// cosine (constant when `final_lr` is `None`):
///
/// ```text
/// rate_i = final_lr + ½ (lr - final_lr) (1 + cos(π i / n))
/// ```
///
/// Returns each pass's mean loss.
#[allow(clippy::too_many_arguments)] // the loop's settings, each named at the call
pub fn train_passes(
    trainer: &mut impl MinibatchStep,
    lr: f64,
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
    let mut step = 0;
    let mut means = Vec::new();
    for _ in 0..passes {
        let mut order: Vec<&PackedPosition> = data.iter().collect();
        order.shuffle(rng);
        let mut losses = Vec::with_capacity(steps_a_pass);
        for chunk in order.chunks(batch) {
            losses.push(trainer.step_at(cosine_rate(lr, final_lr, step, steps), chunk, lambda));
            step += 1;
        }
        means.push(trainer.total(losses) / steps_a_pass as f32);
    }
    means
}

/// The net, its form, its optimiser's state and its learning rate.
pub struct NnueTrainer {
    /// `W1` (block rows without the factoriser) and `b1`.
    transformer: LayerWeights,
    /// `F`, `[768, hidden]`, with king buckets in blocks.
    factoriser: Option<Vec<f32>>,
    /// `W2` (`[2 hidden, buckets]`) and `b2`.
    output: LayerWeights,
    moments: Moments,
    form: NnueForm,
    lr: f64,
}

/// Refuses weights that are not an NNUE of `form`'s inputs, in one line.
fn check_shapes(weights: &[LayerWeights; 2], form: NnueForm) -> Result<(), String> {
    let [transformer, output] = weights;
    let inputs = form.king_buckets.inputs();
    if transformer.inputs != inputs {
        return Err(format!(
            "{:?} king buckets take {inputs} inputs, the net {}",
            form.king_buckets, transformer.inputs
        ));
    }
    let hidden = transformer.outputs;
    let fits =
        |l: &LayerWeights| l.weight.len() == l.inputs * l.outputs && l.bias.len() == l.outputs;
    if !fits(transformer) || !fits(output) || output.inputs != 2 * hidden || output.outputs == 0 {
        return Err(format!(
            "an NNUE needs {inputs} -> N and 2N -> B layers, not {} -> {} and {} -> {}",
            transformer.inputs, transformer.outputs, output.inputs, output.outputs
        ));
    }
    Ok(())
}

impl MinibatchStep for NnueTrainer {
    type Loss = f32;

    fn step_at(&mut self, lr: f64, batch: &[&PackedPosition], lambda: f32) -> f32 {
        self.lr = lr;
        self.step(batch, lambda)
    }

    fn total(&self, losses: Vec<f32>) -> f32 {
        losses.iter().sum()
    }

    fn weights(&self) -> [LayerWeights; 2] {
        let transformer = LayerWeights {
            weight: self.merged().into_owned(),
            ..self.transformer.clone()
        };
        [transformer, self.output.clone()]
    }
}

/// The output bucket of each position (its material).
fn buckets(batch: &[&PackedPosition], count: usize) -> Vec<usize> {
    batch
        .iter()
        .map(|p| output_bucket(p.piece_count(), count))
        .collect()
}

impl NnueTrainer {
    /// A trainer of the net `weights` of `form` at rate `lr`; with king buckets, a
    /// zero factoriser shared by their blocks.
    pub fn new(
        weights: &[LayerWeights; 2],
        form: NnueForm,
        lr: f64,
    ) -> Result<NnueTrainer, String> {
        check_shapes(weights, form)?;
        let [transformer, output] = weights;
        let (inputs, hidden) = (transformer.inputs, transformer.outputs);
        let blocks = form.king_buckets.blocks();
        let factoriser = (blocks > 1).then(|| vec![0.0f32; inputs / blocks * hidden]);
        Ok(NnueTrainer {
            moments: Moments {
                transformer: HostMoments::new(transformer.weight.len()),
                transformer_bias: HostMoments::new(hidden),
                factoriser: factoriser.as_ref().map(|f| HostMoments::new(f.len())),
                output: HostMoments::new(output.weight.len()),
                output_bias: HostMoments::new(output.outputs),
            },
            transformer: transformer.clone(),
            factoriser,
            output: output.clone(),
            form,
            lr,
        })
    }

    /// `W1` with the factoriser's rows added to each block's.
    fn merged(&self) -> Cow<'_, [f32]> {
        match &self.factoriser {
            None => Cow::Borrowed(&self.transformer.weight),
            Some(shared) => Cow::Owned(
                self.transformer
                    .weight
                    .chunks_exact(shared.len())
                    .flat_map(|block| block.iter().zip(shared).map(|(w, f)| w + f))
                    .collect(),
            ),
        }
    }

    /// The forward pass of `positions` up to the output layer: their feature sets,
    /// the transformer's sums and activations, targets and output buckets.
    fn forward(
        &self,
        transformer: &HostTransformer,
        positions: &[&PackedPosition],
        lambda: f32,
    ) -> Forward {
        let sets = placed_sets(positions, self.form.king_buckets);
        let sums = transformer.sums(&sets);
        let activation = self.form.activation;
        Forward {
            activated: sums.iter().map(|&s| activation.apply(s)).collect(),
            targets: positions.iter().map(|p| target(p, lambda)).collect(),
            buckets: buckets(positions, self.output.outputs),
            sets,
            sums,
        }
    }

    /// The pass of one part of a batch of `batch` positions: their feature sets,
    /// sums and activations, their share of the loss and of every gradient but
    /// `dW1`, and the sums' gradients `dW1` is summed from.
    fn position_part(
        &self,
        transformer: &HostTransformer,
        columns: &[Vec<f32>],
        positions: &[&PackedPosition],
        lambda: f32,
        batch: usize,
    ) -> PositionPart {
        let Forward {
            sets,
            sums,
            activated,
            targets,
            buckets,
        } = self.forward(transformer, positions, lambda);
        let mut head =
            head::gradients(&self.output, columns, &activated, &buckets, &targets, batch);
        sum_gradients(self.form.activation, &sums, &mut head.upstream);
        let mut transformer_bias = vec![0.0f32; self.transformer.outputs];
        for row in head.upstream.chunks_exact(self.transformer.outputs) {
            for (b, g) in transformer_bias.iter_mut().zip(row) {
                *b += g;
            }
        }
        PositionPart {
            sets,
            transformer_bias,
            head,
        }
    }

    /// `W1` with the factoriser merged in, borrowed as the transformer's weights.
    fn with_transformer<R>(&self, work: impl FnOnce(&HostTransformer) -> R) -> R {
        let merged = self.merged();
        work(&HostTransformer {
            weight: &merged,
            bias: &self.transformer.bias,
        })
    }

    /// The mean loss on `batch` and every gradient of it: parts of
    /// [`POSITIONS_A_PART`] positions in parallel, their shares summed in order,
    /// then `dW1` in groups of parts ([`weight_gradient`]).
    fn gradients(&self, batch: &[&PackedPosition], lambda: f32) -> (f32, Gradients) {
        let columns = head::columns(&self.output);
        let parts: Vec<PositionPart> = self.with_transformer(|transformer| {
            batch
                .par_chunks(POSITIONS_A_PART)
                .map(|positions| {
                    self.position_part(transformer, &columns, positions, lambda, batch.len())
                })
                .collect()
        });
        let shape = [self.transformer.inputs, self.transformer.outputs];
        let sets: Vec<&[Vec<u16>]> = parts.iter().map(|p| p.sets.as_slice()).collect();
        let sum_gradients: Vec<&[f32]> = parts.iter().map(|p| p.head.upstream.as_slice()).collect();
        let weight = weight_gradient(shape, &sets, &sum_gradients);
        let summed = |share: fn(&PositionPart) -> &[f32]| {
            let mut total = vec![0.0f32; share(&parts[0]).len()];
            for part in &parts {
                for (t, x) in total.iter_mut().zip(share(part)) {
                    *t += x;
                }
            }
            total
        };
        let squared: f32 = parts.iter().map(|p| p.head.squared_errors).sum();
        let factoriser = self
            .factoriser
            .as_ref()
            .map(|f| shared_gradient(&weight, f.len()));
        let gradients = Gradients {
            transformer: weight,
            transformer_bias: summed(|p| &p.transformer_bias),
            factoriser,
            output: summed(|p| &p.head.weight),
            output_bias: summed(|p| &p.head.bias),
        };
        (squared / batch.len().max(1) as f32, gradients)
    }

    /// The mean loss of the net on `data`, no step taken: its error on positions it
    /// was not trained on (parts of [`POSITIONS_A_PART`] positions in parallel).
    pub fn loss(&self, data: &[PackedPosition], lambda: f32) -> f32 {
        let columns = head::columns(&self.output);
        let order: Vec<&PackedPosition> = data.iter().collect();
        let shares: Vec<f32> = self.with_transformer(|transformer| {
            order
                .par_chunks(POSITIONS_A_PART)
                .map(|positions| {
                    let f = self.forward(transformer, positions, lambda);
                    head::squared_errors(
                        &self.output,
                        &columns,
                        &f.activated,
                        &f.buckets,
                        &f.targets,
                    )
                })
                .collect()
        });
        shares.iter().sum::<f32>() / data.len().max(1) as f32
    }

    /// One Adam step on `batch`; returns its loss.
    pub fn step(&mut self, batch: &[&PackedPosition], lambda: f32) -> f32 {
        let (loss, g) = self.gradients(batch, lambda);
        let (lr, m) = (self.lr, &mut self.moments);
        m.transformer
            .step(lr, &mut self.transformer.weight, &g.transformer);
        m.transformer_bias
            .step(lr, &mut self.transformer.bias, &g.transformer_bias);
        if let (Some(f), Some(moments), Some(gradient)) =
            (&mut self.factoriser, &mut m.factoriser, &g.factoriser)
        {
            moments.step(lr, f, gradient);
        }
        m.output.step(lr, &mut self.output.weight, &g.output);
        m.output_bias
            .step(lr, &mut self.output.bias, &g.output_bias);
        loss
    }

    /// [`train_passes`] from the trainer's rate `lr`; returns each pass's mean loss.
    pub fn train(
        &mut self,
        data: &[PackedPosition],
        passes: u32,
        batch: usize,
        lambda: f32,
        final_lr: Option<f64>,
        rng: &mut impl Rng,
    ) -> Vec<f32> {
        let start = self.lr;
        let means = train_passes(self, start, data, passes, batch, lambda, final_lr, rng);
        self.lr = start;
        means
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_models::Activation;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Fresh weights of a plain `hidden`-wide net with one output, and a trainer of
    /// them at rate 1e-2.
    fn plain_trainer(hidden: usize, rng: &mut ChaCha8Rng) -> ([LayerWeights; 2], NnueTrainer) {
        let weights = fresh_weights(KingBuckets::Plain, hidden, 1, rng);
        let trainer = NnueTrainer::new(&weights, NnueForm::default(), 1e-2).unwrap();
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
        use burn::tensor::activation::sigmoid;
        use burn::tensor::{Device, Tensor, TensorData};
        use burnmate_models::Nnue;
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
        let host1 = |t: Tensor<1>| t.into_data().try_into_vec::<f32>().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        // Eight material buckets: 2-5 pieces use bucket 0, 14 pieces bucket 3.
        let weights = fresh_weights(form.king_buckets, 8, 8, &mut rng);
        let inputs = form.king_buckets.inputs();
        let device = Device::flex().autodiff();
        let mut net = Nnue::from_weights(&weights, &device).unwrap();
        let mut trainer = NnueTrainer::new(&weights, form, 1e-2).unwrap();
        if form.king_buckets.blocks() > 1 {
            // A factoriser that is not zero, so its part in the sums shows.
            let shared: Vec<f32> = (0..768 * 8)
                .map(|i| (i as f32 * 0.7).sin() * 0.05)
                .collect();
            trainer.factoriser = Some(shared.clone());
            let shared = Tensor::<2>::from_data(TensorData::new(shared, [768, 8]), &device);
            net.factoriser = Some(burn::module::Param::from_tensor(shared));
        }
        // Our king on g1 (feature 326: mirrored, block 0) and on e2 (332: mirrored,
        // block 2 of four).
        let fourteen: Vec<u16> = (0..14).map(|i| 50 * i + 7).collect();
        let four = [
            sample(&[0, 5, 326, 700], 120, 1.0),
            sample(&[5, 332], -40, 0.0),
            sample(&[3, 64, 65, 66, 400], 0, 0.5),
            sample(&fourteen, 250, 1.0),
        ];
        // 33 copies: a step's three parts of 64, 64 and 4 positions.
        let n = 132;
        let data: Vec<PackedPosition> = four.iter().cycle().take(n).copied().collect();
        let batch: Vec<&PackedPosition> = data.iter().collect();
        let bucket_of: Vec<usize> = [0, 0, 0, 3].into_iter().cycle().take(n).collect();
        assert_eq!(buckets(&batch, 8), bucket_of);
        let placed = placed_sets(&batch, form.king_buckets);
        let side = |s: usize| {
            placed
                .iter()
                .skip(s)
                .step_by(2)
                .cloned()
                .collect::<Vec<_>>()
        };
        // The reference: dense 0/1 rows of the placed inputs through burn's autodiff.
        let dense = |sets: &Vec<Vec<u16>>| {
            let mut rows = vec![0.0f32; sets.len() * inputs];
            for (row, set) in rows.chunks_mut(inputs).zip(sets) {
                for &f in set {
                    row[usize::from(f)] = 1.0;
                }
            }
            Tensor::<2>::from_data(TensorData::new(rows, [n, inputs]), &device)
        };
        let targets: Vec<f32> = data.iter().map(|p| target(p, 0.3)).collect();
        let target = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), &device);
        let out = net.forward(
            dense(&side(0)),
            dense(&side(1)),
            form.activation,
            &bucket_of,
        );
        let expected = (sigmoid(out) - target).powf_scalar(2.0).mean();
        let grads = expected.backward();
        let expected_loss = host1(expected)[0];
        let expected_weight = host(net.transformer.weight.val().grad(&grads).unwrap());
        let bias = net.transformer.bias.as_ref().unwrap();
        let expected_bias = host1(bias.val().grad(&grads).unwrap());
        let expected_output = host(net.output.weight.val().grad(&grads).unwrap());
        let output_bias = net.output.bias.as_ref().unwrap();
        let expected_output_bias = host1(output_bias.val().grad(&grads).unwrap());
        let expected_shared = net
            .factoriser
            .as_ref()
            .map(|f| host(f.val().grad(&grads).unwrap()));
        // The trainer's, all on the host.
        let (loss, g) = trainer.gradients(&batch, 0.3);
        assert!((loss - expected_loss).abs() < 1e-7, "{form:?}");
        assert!((trainer.loss(&data, 0.3) - expected_loss).abs() < 1e-7);
        let gap = |a: &[f32], b: &[f32]| {
            assert_eq!(a.len(), b.len());
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        assert!(expected_weight.iter().any(|&g| g.abs() > 1e-4));
        let weight = &g.transformer;
        assert!(
            gap(weight, &expected_weight) < 1e-7,
            "{form:?}: {}",
            gap(weight, &expected_weight)
        );
        assert!(gap(&g.transformer_bias, &expected_bias) < 1e-7);
        assert!(gap(&g.output, &expected_output) < 1e-7);
        assert!(gap(&g.output_bias, &expected_output_bias) < 1e-7);
        assert_eq!(g.factoriser.is_some(), expected_shared.is_some());
        if let (Some(shared), Some(expected_shared)) = (&g.factoriser, expected_shared) {
            assert!(
                gap(shared, &expected_shared) < 1e-6,
                "{}",
                gap(shared, &expected_shared)
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
        // `[16 inputs, 8 buckets]`: only buckets 0 and 3 were used, so only their
        // columns have a gradient.
        let column_moves = |k: usize| g.output.iter().skip(k).step_by(8).any(|&g| g != 0.0);
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
        let held_out = trainer.loss(&data, 0.0);
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
        // Three parts of a step: 64, 64 and 22 positions.
        let data: Vec<PackedPosition> = (0..150i32)
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
                assert_eq!(transformer::column_parts(64, threads).len(), threads.min(4));
                let mut trainer = NnueTrainer::new(&weights, form, 1e-2).unwrap();
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
