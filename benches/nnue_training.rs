//! The full-chess learner's training step on one core, then on 1, 2 and all cores:
//! one Adam step of the
//! efficiently updatable net (768 -> 128 x 2 -> 1) on a minibatch of 1024 positions
//! from random games. `NnueTrainer`'s step (the feature transformer on the host as a
//! sparse layer: its sums and its weight gradient touch only the rows of the set
//! features) beside, in the same run, the same step as a Burn module with the
//! transformer as a dense product of 0/1 rows (`DeviceNnueTrainer`: `[1024, 768] x
//! [768, 128]` and its weight gradient, a perspective) on flex, and on wgpu at
//! batches 1k, 4k and 16k where the machine has an adapter.

#[path = "common/timing.rs"]
mod timing;

use burn::tensor::Device;
use burnmate::device::backend::{BackendChoice, gpu_in_use};
use burnmate_agents::nnue_trainer::{DeviceNnueTrainer, MinibatchStep, NnueTrainer, fresh_weights};
use burnmate_encode::nnue::KingBuckets;
use burnmate_engine::NnueForm;
use burnmate_engine::packed::PackedPosition;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

use timing::{HEADER, measure};

/// Positions a minibatch (`configs/chess-zero.toml`).
const BATCH: usize = 1024;
/// Feature-transformer width a perspective (`configs/chess-zero.toml`).
const HIDDEN: usize = 128;
/// The result's weight in the target (`configs/chess-zero.toml`).
const LAMBDA: f32 = 0.3;

/// `n` positions from random games (0-80 random plies from the start), labelled with
/// arbitrary scores: a step costs the same whatever the labels.
fn positions(n: usize, rng: &mut ChaCha8Rng) -> Vec<PackedPosition> {
    (0..n)
        .map(|_| {
            let mut position = Chess::default();
            for _ in 0..rng.random_range(0..80) {
                let moves = position.legal_moves();
                let Some(m) = moves.choose(rng) else { break };
                position.play_unchecked(*m);
            }
            let score = rng.random_range(-500..500);
            PackedPosition::new(position.board(), position.turn(), score, 1)
                .expect("a chess position")
        })
        .collect()
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let data = positions(BATCH, &mut rng);
    let weights = fresh_weights(KingBuckets::Plain, HIDDEN, 1, &mut rng);
    let pieces: usize = data.iter().map(|p| p.piece_count()).sum();
    println!(
        "{BATCH} positions, {:.1} pieces a position on average\n",
        pieces as f64 / BATCH as f64
    );
    println!("{HEADER}");
    let batch: Vec<&PackedPosition> = data.iter().collect();
    let mut on_flex =
        DeviceNnueTrainer::new(&weights, NnueForm::default(), &Device::flex()).expect("an NNUE");
    measure(
        "Adam step, DeviceNnueTrainer on flex (burn's dense first layer, the GPU path)",
        BATCH as u64,
        || {
            let loss = on_flex.step_at(1e-3, &batch, LAMBDA);
            on_flex.total(vec![loss])
        },
    );
    let mut trainer =
        NnueTrainer::new(&weights, NnueForm::default(), 1e-3).expect("fresh weights fit");
    let mut order = ChaCha8Rng::seed_from_u64(2);
    measure(
        "Adam step, NnueTrainer (all on the host, the pool's threads)",
        BATCH as u64,
        || trainer.train(&data, 1, BATCH, LAMBDA, None, &mut order),
    );
    // The shipped recipe's net (mirrored inputs, 8 output buckets) on 1, 2 and all
    // cores: the transformer's columns split over the threads (the same bits).
    let form = NnueForm {
        king_buckets: KingBuckets::Mirrored,
        ..NnueForm::default()
    };
    let weights = fresh_weights(form.king_buckets, HIDDEN, 8, &mut rng);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts = vec![1, 2, cores];
    counts.dedup();
    for threads in counts.into_iter().filter(|&t| t <= cores) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let mut trainer = NnueTrainer::new(&weights, form, 1e-3).expect("fresh weights fit");
        pool.install(|| {
            measure(
                &format!("Adam step, NnueTrainer, mirrored, 8 buckets, {threads} thread(s)"),
                BATCH as u64,
                || trainer.train(&data, 1, BATCH, LAMBDA, None, &mut order),
            )
        });
    }
    // The GPU path where the machine has an adapter, at the trainer's batch and at
    // the larger batches a GPU wants.
    match BackendChoice::Wgpu.device() {
        Err(e) => println!("no wgpu row: {e}"),
        Ok(gpu) => {
            println!("wgpu: {}", gpu_in_use().unwrap_or("an unnamed adapter"));
            // BURNMATE_NNUE_GPU_BATCHES=1024,4096,16384,65536 on a GPU machine.
            let sizes = std::env::var("BURNMATE_NNUE_GPU_BATCHES")
                .unwrap_or_else(|_| format!("{BATCH},{},{}", 4 * BATCH, 16 * BATCH));
            for size in sizes
                .split(',')
                .map(|s| s.trim().parse::<usize>().expect("a batch size"))
            {
                let more = positions(size, &mut rng);
                let batch: Vec<&PackedPosition> = more.iter().collect();
                let mut on_gpu = DeviceNnueTrainer::new(&weights, form, &gpu).expect("an NNUE");
                measure(
                    &format!(
                        "Adam step, DeviceNnueTrainer on wgpu, mirrored, 8 buckets, batch {size}"
                    ),
                    size as u64,
                    || {
                        let loss = on_gpu.step_at(1e-3, &batch, LAMBDA);
                        on_gpu.total(vec![loss])
                    },
                );
            }
        }
    }
}
