//! The search learner's network on flex, at the matrix's shape (the side-to-move
//! encoding, hidden 256 and 128, 4,168 chess moves, the value and the moves-left
//! head): one Adam step on a minibatch of 256 positions with 24 legal moves each,
//! and one batched evaluation of 64 leaves (the search's batch: one leaf per game).
//! Run under `taskset -c 0` for one core.

#[path = "common/timing.rs"]
mod timing;

use burn::tensor::Device;
use burnmate_agents::policy_value::{PolicyTarget, PolicyValueNet, ValueTarget};
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::environment::Encoder as _;
use burnmate_env::two_player::CHESS_ACTIONS;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use timing::{HEADER, measure};

/// Positions per minibatch (the matrix's search learner).
const BATCH: usize = 256;
/// Games searched side by side (the matrix's search learner).
const LEAVES: usize = 64;
/// Legal moves a position (KBNK's white side has about 20-30).
const LEGAL: usize = 24;

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let features = SideToMoveEncoding.width();
    let device = Device::flex().autodiff();
    let mut net = PolicyValueNet::new(features, &[256, 128], CHESS_ACTIONS, true, device, &mut rng);
    // Sparse 0/1 rows, as the encoding's piece planes are.
    let row = |rng: &mut ChaCha8Rng| -> Vec<f32> {
        let mut row = vec![0.0; features];
        for _ in 0..4 {
            row[rng.random_range(0..features)] = 1.0;
        }
        row
    };
    let rows: Vec<f32> = (0..BATCH).flat_map(|_| row(&mut rng)).collect();
    let legal: Vec<Vec<usize>> = (0..BATCH)
        .map(|_| {
            (0..LEGAL)
                .map(|_| rng.random_range(0..CHESS_ACTIONS))
                .collect()
        })
        .collect();
    let targets: Vec<PolicyTarget> = legal
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
    println!("{HEADER}");
    measure("policy-value update, 256 positions", BATCH as u64, || {
        net.update(1e-4, rows.clone(), &targets, &values)
    });
    let leaves: Vec<&[usize]> = legal[..LEAVES].iter().map(Vec::as_slice).collect();
    let leaf_rows = rows[..LEAVES * features].to_vec();
    measure("policy-value evaluation, 64 leaves", LEAVES as u64, || {
        net.evaluate_rows(leaf_rows.clone(), &leaves)
    });
}
