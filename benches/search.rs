//! The search learner's network at the matrix's shape (the side-to-move encoding,
//! hidden 256 and 128, 4,168 chess moves, the value and the moves-left head): one
//! Adam step on a minibatch of 256 positions with 24 legal moves each, and one
//! batched evaluation of 64 leaves (the search's batch: one leaf per game) and of
//! 1024 (a GPU's batch), and an update followed by an evaluation (the learner's
//! cycle: the evaluation refreshes the host copy of the policy head). Every call ends with its results on the host. Backends:
//! `BURNMATE_BENCH_BACKENDS` (default `flex`; e.g. `flex,vulkan`); each row sets
//! `BURNMATE_BENCH_SET` random inputs (default 4, an endgame's few pieces; about 40
//! for a full-chess position). Run under
//! `taskset -c 0` for one core.

#[path = "../src/device/backend.rs"]
#[allow(dead_code)]
mod backend;
mod common;
#[path = "common/timing.rs"]
mod timing;

use burnmate_agents::policy_value::{PolicyTarget, PolicyValueNet, ValueTarget};
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::environment::Encoder as _;
use burnmate_env::two_player::CHESS_ACTIONS;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use timing::{HEADER, measure};

/// Positions per minibatch (the matrix's search learner).
const BATCH: usize = 256;
/// Leaves evaluated in one call: the matrix's games side by side, and a GPU's batch.
const LEAVES: [usize; 2] = [64, 1024];
/// Legal moves a position (KBNK's white side has about 20-30).
const LEGAL: usize = 24;

fn main() {
    println!("{HEADER}");
    for name in common::list("BURNMATE_BENCH_BACKENDS", "flex") {
        match common::backend_named(&name).device() {
            Ok(device) => bench(&name, device),
            Err(e) => eprintln!("skipped: {e}"),
        }
    }
}

/// The rows of one backend.
fn bench(backend: &str, device: burn::tensor::Device) {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let features = SideToMoveEncoding.width();
    let mut net = PolicyValueNet::new(
        features,
        &[256, 128],
        CHESS_ACTIONS,
        true,
        device.autodiff(),
        &mut rng,
    );
    // Sparse 0/1 rows, as the encoding's piece planes are.
    let set: usize = std::env::var("BURNMATE_BENCH_SET").map_or(4, |s| s.parse().expect("a count"));
    let row = |rng: &mut ChaCha8Rng| -> Vec<f32> {
        let mut row = vec![0.0; features];
        for _ in 0..set {
            row[rng.random_range(0..features)] = 1.0;
        }
        row
    };
    let positions = BATCH.max(LEAVES[1]);
    let rows: Vec<f32> = (0..positions).flat_map(|_| row(&mut rng)).collect();
    let legal: Vec<Vec<usize>> = (0..positions)
        .map(|_| {
            (0..LEGAL)
                .map(|_| rng.random_range(0..CHESS_ACTIONS))
                .collect()
        })
        .collect();
    let targets: Vec<PolicyTarget> = legal[..BATCH]
        .iter()
        .map(|actions| PolicyTarget {
            actions: actions.clone(),
            shares: vec![1.0 / LEGAL as f32; LEGAL],
        })
        .collect();
    let values = vec![
        ValueTarget {
            value: 0.5,
            moves_left: 20.0,
        };
        BATCH
    ];
    let batch_rows = rows[..BATCH * features].to_vec();
    measure(
        &format!("policy-value update, {BATCH} positions, {backend}"),
        BATCH as u64,
        || net.update(1e-4, batch_rows.clone(), &targets, &values),
    );
    // The learner's cycle: after an update the next evaluation refreshes the host
    // copy of the policy head.
    let cycle: Vec<&[usize]> = legal[..LEAVES[0]].iter().map(Vec::as_slice).collect();
    let cycle_rows = rows[..LEAVES[0] * features].to_vec();
    measure(
        &format!("update, then evaluation of {} leaves, {backend}", LEAVES[0]),
        BATCH as u64,
        || {
            net.update(1e-4, batch_rows.clone(), &targets, &values);
            net.evaluate_rows(cycle_rows.clone(), &cycle)
        },
    );
    for leaves in LEAVES {
        let legal: Vec<&[usize]> = legal[..leaves].iter().map(Vec::as_slice).collect();
        let leaf_rows = rows[..leaves * features].to_vec();
        measure(
            &format!("policy-value evaluation, {leaves} leaves, {backend}"),
            leaves as u64,
            || net.evaluate_rows(leaf_rows.clone(), &legal),
        );
    }
}
