//! Self-play throughput. First the rules alone: plies/s of uniformly random full-chess
//! games (legal moves, the study's move list and masks, the game-end checks). Then
//! games/s and positions/s of the selfplay study's training loop (both sides choosing
//! and learning every turn, 10% random moves) with 1 to 1024 games side by side.
//! Each row plays `max(envs, 4)` training games from fresh networks, capped at 100
//! plies (the study's cap), after one warm-up wave. `BURNMATE_BENCH_BACKENDS` (default
//! `flex`) and `BURNMATE_BENCH_ENVS` (default `1,4,16,64,256,1024`) narrow or widen it.

#[path = "../src/device/backend.rs"]
#[allow(dead_code)]
mod backend;
mod common;

use std::time::Instant;

use burn::tensor::Device;
use burnmate_agents::selfplay::choice::{Combine, masks, selectable_moves};
use burnmate_agents::selfplay::net::{
    AdamMode, NetConfig, SELECTORS, SelectorSet, initial_weights,
};
use burnmate_agents::selfplay::trainer::{
    GameEndRule, SelfPlay, SelfPlayTrainerConfig, StepPenalty, UpdateOrder,
};
use burnmate_env::selfplay::FullGame;
use burnmate_models::SelectorPadding;
use common::{backend_named, list};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn self_play(envs: usize, device: &Device, rng: &mut ChaCha8Rng) -> SelfPlay {
    let net = NetConfig {
        padding: SelectorPadding::Valid,
        lr: 0.01,
        adam: AdamMode::Reference,
        bucket_batches: false,
    };
    let mut side = || {
        let weights: Vec<_> = (0..SELECTORS)
            .map(|_| initial_weights(SelectorPadding::Valid, rng))
            .collect();
        SelectorSet::new(net, device.clone().autodiff(), &weights).expect("fresh weights fit")
    };
    let (white, black) = (side(), side());
    let config = SelfPlayTrainerConfig {
        gamma: 0.99,
        penalty: StepPenalty::EveryMove,
        combine: Combine::Reference,
        epsilon: 0.1,
        max_plies: 100,
        envs,
        // One forward pass a turn, as in the speeds quoted so far (the study's order
        // adds a second one).
        order: UpdateOrder::ChooseThenUpdate,
        game_end: GameEndRule::Terminal,
    };
    SelfPlay::new(config, white, black).expect("the bench's settings")
}

/// Plies per second of random games on the rules alone, each ply as the trainer
/// sees it: the move list, the masks, the move and the end checks.
fn rules_plies_per_second() -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let (mut plies, started) = (0u64, Instant::now());
    while started.elapsed().as_secs_f64() < 2.0 {
        let mut game = FullGame::new(100);
        loop {
            let moves = selectable_moves(game.position());
            std::hint::black_box(masks(game.position(), &moves));
            plies += 1;
            if game
                .play(moves[rng.random_range(0..moves.len())].mv)
                .is_some()
            {
                break;
            }
        }
    }
    plies as f64 / started.elapsed().as_secs_f64()
}

fn main() {
    println!(
        "rules alone (random games, 100-ply cap): {:.0} plies/s\n",
        rules_plies_per_second()
    );
    let envs: Vec<usize> = list("BURNMATE_BENCH_ENVS", "1,4,16,64,256,1024")
        .iter()
        .map(|e| e.parse().expect("env counts are integers"))
        .collect();
    println!("| backend | envs | games | games/s | positions/s |");
    println!("|---|---|---|---|---|");
    for name in list("BURNMATE_BENCH_BACKENDS", "flex") {
        let choice = backend_named(&name);
        let device = match choice.device() {
            Ok(device) => device,
            Err(e) => {
                eprintln!("skipped: {e}");
                continue;
            }
        };
        for &n in &envs {
            let mut rng = ChaCha8Rng::seed_from_u64(0);
            let mut play = self_play(n, &device, &mut rng);
            let warm_up = n.min(16) as u64;
            play.train(warm_up, &mut rng, |_| {});
            let games = n.max(4) as u64;
            let mut plies = 0u64;
            let started = Instant::now();
            play.train(games, &mut rng, |record| plies += u64::from(record.plies));
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "| {} | {n} | {games} | {:.2} | {:.0} |",
                choice.name(),
                games as f64 / seconds,
                plies as f64 / seconds
            );
        }
    }
}
