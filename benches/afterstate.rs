//! One ply round of the afterstate learner (`configs/selfplay-afterstate.toml`'s
//! network, 256 games side by side), split into its parts, to see where a round's
//! time goes on each backend:
//! - the host: every legal move of every game played out, then the positions encoded
//!   in each of the two forms (`EncodedRows`: dense rows, or the values each sets);
//! - for each form, the forward pass over those rows (encoding, upload, forward,
//!   download) at the same row count every call and at a new row count every call
//!   (as in training: each round's games have other moves), and one Adam step on a
//!   minibatch of 256 (loss downloaded);
//! - the whole valuation (`move_values`: host and forward together, in the form the
//!   device takes).
//!
//! Every call ends with its results on the host. Backends: `BURNMATE_BENCH_BACKENDS`
//! (default `flex`; e.g. `flex,vulkan`).

#[path = "../src/device/backend.rs"]
#[allow(dead_code)]
mod backend;
mod common;
#[path = "common/timing.rs"]
mod timing;

use burnmate_agents::afterstate::rows::EncodedRows;
use burnmate_agents::afterstate::trainer::{AfterstateConfig, AfterstateLearner};
use burnmate_agents::afterstate::value_net::ValueNet;
use burnmate_agents::host_memory::host;
use burnmate_agents::init::uniform_layers;
use burnmate_encode::side_to_move::FEATURES;
use burnmate_env::selfplay::FullGame;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

use timing::{HEADER, measure};

/// Games side by side (the GPU rows of benches/README.md).
const ENVS: usize = 256;
/// Positions per minibatch (the config's).
const BATCH: usize = 256;

fn main() {
    println!("{HEADER}");
    for name in common::list("BURNMATE_BENCH_BACKENDS", "flex") {
        match common::backend_named(&name).device() {
            Ok(device) => bench(&name, device),
            Err(e) => eprintln!("skipped: {e}"),
        }
    }
}

/// `ENVS` games, each after 0 to 39 random plies from the start.
fn games(rng: &mut ChaCha8Rng) -> Vec<FullGame> {
    (0..ENVS)
        .map(|_| {
            loop {
                let mut game = FullGame::new(200);
                for _ in 0..rng.random_range(0..40) {
                    let moves = game.position().legal_moves();
                    if game.play(moves[rng.random_range(0..moves.len())]).is_some() {
                        break;
                    }
                }
                if game.end().is_none() {
                    break game;
                }
            }
        })
        .collect()
}

/// The rows of one backend.
fn bench(backend: &str, device: burn::tensor::Device) {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let games = games(&mut rng);
    let refs: Vec<&FullGame> = games.iter().collect();
    let layers = uniform_layers(&[FEATURES, 128, 64, 1], &mut rng);
    let config = AfterstateConfig {
        gamma: 0.9,
        epsilon_start: 0.05,
        epsilon_end: 0.05,
        epsilon_games: 0,
        max_plies: 200,
        envs: ENVS,
        batch_size: BATCH,
        replay_capacity: 100_000,
        updates_per_step: 1,
    };
    let net = || ValueNet::new(&layers, 1e-3, device.clone().autodiff()).expect("afterstate shape");
    let learner = AfterstateLearner::new(config, net()).expect("valid settings");
    let play_all = || -> Vec<Chess> {
        refs.iter()
            .flat_map(|game| {
                let moves = game.position().legal_moves();
                moves.into_iter().map(|mv| game.after(&mv).0)
            })
            .collect()
    };
    let afters = play_all();
    let n = afters.len();
    let positions: Vec<&Chess> = afters.iter().collect();
    let label = |what: &str| format!("afterstate {what}, {backend}");
    measure(
        &label(&format!("host: {n} moves played, one thread")),
        n as u64,
        play_all,
    );
    let forms = [
        (
            "dense rows",
            EncodedRows::dense as fn(&[&Chess]) -> EncodedRows,
        ),
        ("set entries", EncodedRows::set_entries),
    ];
    let values_net = net();
    for (form, encoded) in forms {
        measure(
            &label(&format!("host: {n} rows encoded as {form}")),
            n as u64,
            || encoded(&positions),
        );
        let rows = encoded(&positions);
        measure(&label(&format!("values of {n} {form}")), n as u64, || {
            values_net.values(rows.clone())
        });
        let mut call = 0;
        measure(
            &label(&format!("values of {form}, a new row count each call")),
            n as u64,
            || {
                call += 1;
                values_net.values(encoded(&positions[..n - call % 700]))
            },
        );
        let mut update_net = net();
        let batch = encoded(&positions[..BATCH]);
        let targets: Vec<f32> = (0..BATCH).map(|i| (i % 7) as f32 / 7.0).collect();
        measure(
            &label(&format!("Adam step, {BATCH} {form}, loss read")),
            BATCH as u64,
            || host(update_net.update(batch.clone(), targets.clone())),
        );
    }
    measure(
        &label(&format!("move_values, {ENVS} games")),
        n as u64,
        || learner.move_values(&refs),
    );
}
