//! The chess trainer's step on a Burn device (wgpu on a GPU; flex or ndarray on the
//! host): the same net ([`burnmate_models::Nnue`]), target, loss and Adam as the
//! host's step ([`super::NnueTrainer`]), with the feature transformer as a dense
//! matrix product over 0/1 rows (each position's set inputs uploaded as indices and
//! scattered into rows on the device) and the gradients by autodiff:
//!
//! ```text
//! out  = Nnue(x_us, x_them)[bucket]          x: [batch, inputs] 0/1 rows
//! loss = mean (sigmoid(out) - target)²       target as the host's ([`super::target`])
//! θ   ← Adam(θ, ∂loss/∂θ, lr)               PyTorch's rule, ε = 1e-8
//! ```

use burn::optim::{GradientsParams, ModuleOptimizer};
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_engine::nnue::NnueForm;
use burnmate_engine::packed::PackedPosition;
use burnmate_models::sparse_input::{SparseRows, to_dense};
use burnmate_models::{LayerWeights, Nnue};

use super::transformer::placed_sets;
use super::{MinibatchStep, POSITIONS_A_PART, buckets, check_shapes, target};
use crate::host_memory::host;
use crate::optim::pytorch_adam;
use rayon::prelude::*;

/// The net on a device with autodiff, its optimiser and its form.
pub struct DeviceNnueTrainer {
    net: Nnue,
    optimizer: ModuleOptimizer,
    form: NnueForm,
    device: Device,
}

impl DeviceNnueTrainer {
    /// A trainer of the net `weights` of `form` on `device` (autodiff is switched on
    /// here); with king buckets, a zero factoriser shared by their blocks.
    pub fn new(
        weights: &[LayerWeights; 2],
        form: NnueForm,
        device: &Device,
    ) -> Result<DeviceNnueTrainer, String> {
        check_shapes(weights, form)?;
        let device = device.clone().autodiff();
        let net = Nnue::from_weights(weights, &device)?.with_factoriser(form.king_buckets.blocks());
        Ok(DeviceNnueTrainer {
            net,
            optimizer: pytorch_adam(),
            form,
            device,
        })
    }

    /// The side to move's and the other side's input rows of `batch` on the device,
    /// the feature sets found on every core (a GPU's batches are large).
    fn rows(&self, batch: &[&PackedPosition]) -> [Tensor<2>; 2] {
        let sets: Vec<Vec<u16>> = batch
            .par_chunks(POSITIONS_A_PART)
            .flat_map_iter(|part| placed_sets(part, self.form.king_buckets))
            .collect();
        let inputs = self.form.king_buckets.inputs();
        [0, 1].map(|side| {
            let side_sets: Vec<&Vec<u16>> = sets.iter().skip(side).step_by(2).collect();
            let width = side_sets.iter().map(|s| s.len()).max().unwrap_or(0).max(1);
            let mut indices = vec![0i64; batch.len() * width];
            let mut values = vec![0.0f32; batch.len() * width];
            for (row, set) in side_sets.iter().enumerate() {
                for (slot, &input) in set.iter().enumerate() {
                    indices[row * width + slot] = i64::from(input);
                    values[row * width + slot] = 1.0;
                }
            }
            let rows = SparseRows {
                rows: batch.len(),
                width,
                indices,
                values,
            };
            to_dense(&rows, inputs, &self.device)
        })
    }
}

impl MinibatchStep for DeviceNnueTrainer {
    type Loss = Tensor<1>;

    fn step_at(&mut self, lr: f64, batch: &[&PackedPosition], lambda: f32) -> Tensor<1> {
        let n = batch.len();
        let [us, them] = self.rows(batch);
        let targets: Vec<f32> = batch.iter().map(|p| target(p, lambda)).collect();
        let targets = Tensor::<2>::from_data(TensorData::new(targets, [n, 1]), &self.device);
        let buckets = buckets(batch, self.net.buckets());
        let out = self.net.forward(us, them, self.form.activation, &buckets);
        let loss = (sigmoid(out) - targets).powf_scalar(2.0).mean();
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        self.net = self.optimizer.step(lr, self.net.clone(), grads);
        loss.detach()
    }

    fn total(&self, losses: Vec<Tensor<1>>) -> f32 {
        if losses.is_empty() {
            return 0.0;
        }
        host(Tensor::cat(losses, 0).sum())[0]
    }

    fn weights(&self) -> [LayerWeights; 2] {
        self.net.weights()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue_trainer::{NnueTrainer, fresh_weights};
    use burnmate_encode::nnue::KingBuckets;
    use burnmate_models::Activation;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// `count` positions of random games (up to 60 plies each) from seed `seed`, with
    /// scores and results that vary.
    fn random_positions(count: usize, seed: u64) -> Vec<PackedPosition> {
        use rand::RngExt;
        use shakmaty::{Chess, Position};
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut positions = Vec::new();
        let mut game = Chess::default();
        while positions.len() < count {
            let moves = game.legal_moves();
            if moves.is_empty() || rng.random_range(0..60) == 0 {
                game = Chess::default();
                continue;
            }
            game.play_unchecked(moves[rng.random_range(0..moves.len())]);
            let score = rng.random_range(-600..600);
            let result = rng.random_range(0..3u8);
            positions.extend(PackedPosition::new(
                game.board(),
                game.turn(),
                score,
                result,
            ));
        }
        positions
    }

    /// The largest `|device - host| - 1e-5 |host|` over two weight sets.
    fn excess(device: &[LayerWeights; 2], host: &[LayerWeights; 2]) -> f32 {
        device
            .iter()
            .zip(host)
            .flat_map(|(d, h)| {
                d.weight
                    .iter()
                    .chain(&d.bias)
                    .zip(h.weight.iter().chain(&h.bias))
            })
            .map(|(d, h)| (d - h).abs() - 1e-5 * h.abs())
            .fold(f32::MIN, f32::max)
    }

    #[test]
    fn two_steps_on_flex_give_the_hosts_loss_and_weights() {
        let positions = random_positions(96, 5);
        let batch: Vec<&PackedPosition> = positions.iter().collect();
        for form in [
            NnueForm::default(),
            NnueForm {
                activation: Activation::Screlu,
                king_buckets: KingBuckets::Mirrored,
            },
            // Blocks of inputs: the factoriser learns beside them.
            NnueForm {
                activation: Activation::Crelu,
                king_buckets: KingBuckets::Four,
            },
        ] {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let weights = fresh_weights(form.king_buckets, 16, 8, &mut rng);
            let mut host = NnueTrainer::new(&weights, form, 1e-3).unwrap();
            let mut device = DeviceNnueTrainer::new(&weights, form, &Device::flex()).unwrap();
            for (step, lr) in [1e-3, 5e-4].into_iter().enumerate() {
                let h = host.step_at(lr, &batch, 0.3);
                let d = device.step_at(lr, &batch, 0.3);
                let d = device.total(vec![d]);
                assert!(
                    (h - d).abs() <= 1e-6 + 1e-5 * h,
                    "{form:?} step {step}: loss {h} on the host, {d} on flex"
                );
                // Adam moves a weight by about lr a step; a wrong gradient's sign by 2 lr.
                let worst = excess(&device.weights(), &host.weights());
                assert!(
                    worst <= 1e-6 + 1e-2 * lr as f32,
                    "{form:?} step {step}: weights differ by {worst}"
                );
            }
        }
    }

    #[test]
    fn two_passes_on_flex_give_the_hosts_mean_losses() {
        use crate::nnue_trainer::train_passes;
        let positions = random_positions(200, 11);
        let form = NnueForm::default();
        let weights = fresh_weights(form.king_buckets, 16, 1, &mut ChaCha8Rng::seed_from_u64(2));
        let mut host = NnueTrainer::new(&weights, form, 1e-3).unwrap();
        let mut device = DeviceNnueTrainer::new(&weights, form, &Device::flex()).unwrap();
        // Four minibatches a pass (64, 64, 64, 8), the rate falling along a cosine.
        let [h, d] = [
            train_passes(
                &mut host,
                1e-3,
                &positions,
                2,
                64,
                0.3,
                Some(1e-5),
                &mut ChaCha8Rng::seed_from_u64(3),
            ),
            train_passes(
                &mut device,
                1e-3,
                &positions,
                2,
                64,
                0.3,
                Some(1e-5),
                &mut ChaCha8Rng::seed_from_u64(3),
            ),
        ];
        assert_eq!(h.len(), 2);
        for (h, d) in h.iter().zip(&d) {
            assert!((h - d).abs() <= 1e-6 + 1e-5 * h, "host {h}, flex {d}");
        }
        assert!(h[1] < h[0], "the second pass fits better: {h:?}");
    }

    #[test]
    fn weights_of_another_form_are_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let weights = fresh_weights(KingBuckets::Plain, 8, 1, &mut rng);
        let four = NnueForm {
            king_buckets: KingBuckets::Four,
            ..NnueForm::default()
        };
        let err = DeviceNnueTrainer::new(&weights, four, &Device::flex())
            .err()
            .expect("refused");
        assert!(err.contains("king buckets take"), "{err}");
    }
}
