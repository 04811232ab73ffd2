//! Throughput of the queen4x4 hot paths on flex: env steps, encodings, forward
//! passes at batch 1 and 64, and whole training episodes (one SGD update per move).

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_agents::luo::{Algorithm, LuoAgent, LuoConfig, UpdateRule};
use burnmate_encode::queen4x4::{FEATURES, encode};
use burnmate_env::queen4x4::{ACTIONS, Action, random_start};
use burnmate_models::{MlpWeights, OutputActivation, TwoLayerMlpConfig};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn env_steps(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut group = c.benchmark_group("queen4x4_env");
    group.throughput(Throughput::Elements(1));
    group.bench_function("random_step", |b| {
        let mut position = random_start(&mut rng);
        b.iter(|| {
            let legal = position.legal_action_list();
            let a = legal[rng.random_range(0..legal.len())];
            let (next, outcome) = position.step(Action::from_index(a), &mut rng);
            position = if outcome.is_terminal() {
                random_start(&mut rng)
            } else {
                next
            };
        })
    });
    group.bench_function("encode", |b| {
        let position = random_start(&mut rng);
        let mut row = [0.0f32; FEATURES];
        b.iter(|| encode(std::hint::black_box(&position), &mut row))
    });
    group.finish();
}

fn forward(c: &mut Criterion) {
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
    let mut group = c.benchmark_group("queen4x4_forward_flex");
    for batch in [1usize, 64] {
        group.throughput(Throughput::Elements(batch as u64));
        group.bench_function(format!("batch_{batch}"), |b| {
            b.iter_batched(
                || vec![0.5f32; batch * FEATURES],
                |rows| {
                    let x =
                        Tensor::<2>::from_data(TensorData::new(rows, [batch, FEATURES]), &device);
                    net.forward(x).into_data()
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn train_episodes(c: &mut Criterion) {
    let mut group = c.benchmark_group("queen4x4_train_flex");
    group.sample_size(20);
    for update in [UpdateRule::Reference, UpdateRule::SemiGradient] {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let config = LuoConfig {
            algorithm: Algorithm::Sarsa,
            update,
            eta: 0.0035,
            gamma: 0.85,
            hidden: 200,
            activation: OutputActivation::Relu,
        };
        let mut agent = LuoAgent::new(config, Device::flex(), &mut rng);
        // Warm up past the long early episodes, so one iteration is a typical episode.
        for _ in 0..2000 {
            let start = random_start(&mut rng);
            agent.train_episode(start, 0.2, u32::MAX, &mut rng);
        }
        group.throughput(Throughput::Elements(1));
        group.bench_function(format!("sarsa_episode_{update:?}"), |b| {
            b.iter(|| {
                let start = random_start(&mut rng);
                agent.train_episode(start, 0.05, u32::MAX, &mut rng)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, env_steps, forward, train_episodes);
criterion_main!(benches);
