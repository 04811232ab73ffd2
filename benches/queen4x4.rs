//! Throughput of the queen4x4 hot paths on flex: env steps, encodings, forward
//! passes at batch 1 and 64, and whole training episodes (one SGD update per move).

#[path = "common/timing.rs"]
mod timing;

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_agents::luo::{LuoAgent, LuoConfig, UpdateRule};
use burnmate_encode::queen4x4::{FEATURES, encode};
use burnmate_env::environment::Outcome as _;
use burnmate_env::queen4x4::{ACTIONS, Action, random_start};
use burnmate_models::{MlpWeights, OutputActivation, TwoLayerMlpConfig};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use timing::{HEADER, measure};

fn env_steps() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut position = random_start(&mut rng);
    measure("queen4x4 env random step", 1, || {
        let legal = position.legal_action_list();
        let a = legal[rng.random_range(0..legal.len())];
        let (next, outcome) = position.step(Action::from_index(a), &mut rng);
        position = if outcome.is_terminal() {
            random_start(&mut rng)
        } else {
            next
        };
    });
    let position = random_start(&mut rng);
    let mut row = [0.0f32; FEATURES];
    measure("queen4x4 encode", 1, || {
        encode(std::hint::black_box(&position), &mut row)
    });
}

fn forward() {
    let device = Device::flex();
    let h = 200;
    let weights = MlpWeights {
        w1: vec![0.01; FEATURES * h],
        b1: vec![0.0; h],
        w2: vec![0.01; h * ACTIONS],
        b2: vec![0.0; ACTIONS],
    };
    let net = TwoLayerMlpConfig::new(FEATURES, h, ACTIONS, OutputActivation::Relu)
        .init_with(&weights, &device)
        .unwrap();
    for batch in [1usize, 64] {
        let name = format!("queen4x4 forward flex batch {batch}");
        measure(&name, batch as u64, || {
            let rows = vec![0.5f32; batch * FEATURES];
            let x = Tensor::<2>::from_data(TensorData::new(rows, [batch, FEATURES]), &device);
            net.forward(x).into_data()
        });
    }
}

fn train_episodes() {
    for update in [UpdateRule::Reference, UpdateRule::SemiGradient] {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let config = LuoConfig {
            update,
            ..LuoConfig::default()
        };
        let mut agent =
            LuoAgent::new(config, Device::flex(), &mut rng).expect("the study's settings");
        // Warm up past the long early episodes, so one iteration is a typical episode.
        for _ in 0..2000 {
            let start = random_start(&mut rng);
            agent.train_episode(start, 0.2, u32::MAX, &mut rng);
        }
        measure(&format!("queen4x4 SARSA episode {update:?}"), 1, || {
            let start = random_start(&mut rng);
            agent.train_episode(start, 0.05, u32::MAX, &mut rng)
        });
    }
}

fn main() {
    println!("{HEADER}");
    env_steps();
    forward();
    train_episodes();
}
