//! Throughput of the search learner's policy-value network (the matrix's `mcts` cells)
//! on any backend, as the search uses it: an *evaluation* runs the hidden layers on the
//! backend, reads them back and scores each position's legal moves and value on the
//! host (one call per simulation round of all games side by side), and an *update* is
//! the learner's loss, backward and Adam step on a minibatch. Rows in
//! [`crate::tools::throughput::TABLE_HEADER`]'s format; `burnmate bench` prints them after
//! the studies' networks. `benches/anchors/search_anchor.py` times PyTorch on the
//! same layer shapes.

use std::time::Instant;

use burn::tensor::Device;
use burnmate_agents::policy_value::{PolicyTarget, PolicyValueNet, ValueTarget};
use burnmate_encode::side_to_move::FEATURES;
use burnmate_env::two_player::CHESS_ACTIONS;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::studies::search::settings::{SEARCH_HIDDEN, SEARCH_MOVES_LEFT_HEAD};
use crate::tools::throughput::row;

/// Legal moves per benchmarked position (a KQK position with the queen's side to
/// move has about 20).
const LEGAL_MOVES: usize = 20;

/// Positions per update, the learner's minibatch.
const UPDATE_BATCH: usize = 256;

/// The network's name in tables: its layer widths.
pub fn model_name() -> String {
    let outputs = CHESS_ACTIONS + 1 + usize::from(SEARCH_MOVES_LEFT_HEAD);
    let hidden: Vec<String> = SEARCH_HIDDEN.iter().map(|h| h.to_string()).collect();
    format!(
        "search policy-value {FEATURES}-{}-{outputs}",
        hidden.join("-")
    )
}

fn random_rows(batch: usize, rng: &mut impl Rng) -> Vec<f32> {
    (0..batch * FEATURES)
        .map(|_| f32::from(u8::from(rng.random::<f32>() < 0.05)))
        .collect()
}

fn random_legal(batch: usize, rng: &mut impl Rng) -> Vec<Vec<usize>> {
    (0..batch)
        .map(|_| {
            (0..LEGAL_MOVES)
                .map(|_| rng.random_range(0..CHESS_ACTIONS))
                .collect()
        })
        .collect()
}

/// Seconds per call of `call`, repeated for at least `min_seconds` after 3 untimed
/// calls. Every call reads its result back, so no GPU work is left queued.
fn seconds_per_call(min_seconds: f64, mut call: impl FnMut()) -> f64 {
    for _ in 0..3 {
        call();
    }
    let started = Instant::now();
    let mut calls = 0u32;
    while calls < 3 || started.elapsed().as_secs_f64() < min_seconds {
        call();
        calls += 1;
    }
    started.elapsed().as_secs_f64() / f64::from(calls)
}

/// One row per evaluation batch in `batches` and one for an update of the learner's
/// minibatch, on `device` (a plain device: autodiff is added for the update), each
/// handed to `emit` as soon as it is measured.
pub fn table(
    backend: &str,
    device: &Device,
    batches: &[usize],
    min_seconds: f64,
    mut emit: impl FnMut(String),
) {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut net = PolicyValueNet::new(
        FEATURES,
        &SEARCH_HIDDEN,
        CHESS_ACTIONS,
        SEARCH_MOVES_LEFT_HEAD,
        device.clone().autodiff(),
        &mut rng,
    );
    for &batch in batches {
        let features = random_rows(batch, &mut rng);
        let legal = random_legal(batch, &mut rng);
        let legal: Vec<&[usize]> = legal.iter().map(Vec::as_slice).collect();
        let seconds = seconds_per_call(min_seconds, || {
            net.evaluate_rows(features.clone(), &legal);
        });
        emit(row(
            &model_name(),
            "evaluate (synced)",
            backend,
            batch,
            seconds,
        ));
    }
    let features = random_rows(UPDATE_BATCH, &mut rng);
    let targets: Vec<PolicyTarget> = random_legal(UPDATE_BATCH, &mut rng)
        .into_iter()
        .map(|actions| PolicyTarget {
            shares: vec![1.0 / actions.len() as f32; actions.len()],
            actions,
        })
        .collect();
    let values = vec![
        ValueTarget {
            value: 0.5,
            moves_left: 12.0,
        };
        UPDATE_BATCH
    ];
    let seconds = seconds_per_call(min_seconds, || {
        net.update(1e-4, features.clone(), &targets, &values);
    });
    emit(row(
        &model_name(),
        "update (synced)",
        backend,
        UPDATE_BATCH,
        seconds,
    ));
}
