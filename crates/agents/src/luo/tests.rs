//! The update rules against an autodiff gradient and a host-side transcription of
//! the study's `backpropagation`.

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::queen4x4::{FEATURES, encode};
use burnmate_env::environment::Outcome as _;
use burnmate_env::queen4x4::{ACTIONS, parse_start};
use burnmate_models::{MlpWeights, OutputActivation, TwoLayerMlpConfig};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;

const HIDDEN: usize = 16;
const ETA: f32 = 0.01;

fn config(algorithm: TdAlgorithm, update: UpdateRule, activation: OutputActivation) -> LuoConfig {
    LuoConfig {
        algorithm,
        update,
        eta: ETA,
        gamma: 0.85,
        hidden: HIDDEN,
        activation,
    }
}

fn agent(activation: OutputActivation, update: UpdateRule) -> LuoAgent {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    LuoAgent::new(
        config(TdAlgorithm::Sarsa, update, activation),
        Device::flex(),
        &mut rng,
    )
    .unwrap()
}

/// The queen4x4 encoding of one position.
fn row_of(position: &burnmate_env::queen4x4::Position) -> Vec<f32> {
    let mut row = vec![0.0; FEATURES];
    encode(position, &mut row);
    row
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

fn assert_weights_close(got: &MlpWeights, want: &MlpWeights) {
    for (name, g, w) in [
        ("w1", &got.w1, &want.w1),
        ("b1", &got.b1, &want.b1),
        ("w2", &got.w2, &want.w2),
        ("b2", &got.b2, &want.b2),
    ] {
        assert!(
            max_abs_diff(g, w) < 1e-6,
            "{name} differs by {}",
            max_abs_diff(g, w)
        );
    }
}

/// Weights after one SGD step of `0.5 * (target - out[a])^2`, by autodiff.
fn autodiff_step(
    w: &MlpWeights,
    activation: OutputActivation,
    row: &[f32],
    a: usize,
    target: f32,
) -> MlpWeights {
    let device = Device::flex().autodiff();
    let net = TwoLayerMlpConfig::new(FEATURES, HIDDEN, ACTIONS, activation)
        .init_with(w, &device)
        .unwrap();
    let x = Tensor::<2>::from_data(TensorData::new(row.to_vec(), [1, FEATURES]), &device);
    let q = net.forward(x).slice([0..1, a..a + 1]);
    let loss = q
        .neg()
        .add_scalar(target)
        .powf_scalar(2.0)
        .mul_scalar(0.5)
        .sum();
    let grads = loss.backward();
    let sgd = |gradient: Vec<f32>, value: &[f32]| -> Vec<f32> {
        value
            .iter()
            .zip(gradient)
            .map(|(v, g)| v - ETA * g)
            .collect()
    };
    let step = |param: Tensor<2>, value: &[f32]| {
        sgd(
            param
                .grad(&grads)
                .unwrap()
                .into_data()
                .try_into_vec::<f32>()
                .unwrap(),
            value,
        )
    };
    let step1 = |param: Tensor<1>, value: &[f32]| {
        sgd(
            param
                .grad(&grads)
                .unwrap()
                .into_data()
                .try_into_vec::<f32>()
                .unwrap(),
            value,
        )
    };
    MlpWeights {
        w1: step(net.hidden.weight.val(), &w.w1),
        b1: step1(net.hidden.bias.as_ref().unwrap().val(), &w.b1),
        w2: step(net.output.weight.val(), &w.w2),
        b2: step1(net.output.bias.as_ref().unwrap().val(), &w.b2),
    }
}

#[test]
fn semi_gradient_step_equals_the_autodiff_gradient_for_every_activation() {
    let position = parse_start("Qa1 Ka2 / Kc2").unwrap();
    let mut row = vec![0.0; FEATURES];
    encode(&position, &mut row);
    for activation in [
        OutputActivation::Relu,
        OutputActivation::Sigmoid,
        OutputActivation::Linear,
    ] {
        let mut agent = agent(activation, UpdateRule::SemiGradient);
        let before = agent.weights();
        let current = agent.forward(row_of(&position));
        // Pick the action with the largest output so ReLU's derivative is not zero.
        let a = (0..ACTIONS)
            .max_by(|&i, &j| current.q[i].total_cmp(&current.q[j]))
            .unwrap();
        let target = current.q[a] + 0.7;
        agent.semi_gradient_update(&current, 0, a, target);
        let want = autodiff_step(&before, activation, &row, a, target);
        assert_weights_close(&agent.weights(), &want);
    }
}

/// The study's `backpropagation(X, delta, a, eta)` transcribed to host loops, with
/// `a1`/`a2` the activations of the last forward pass.
fn study_backprop(
    w: &MlpWeights,
    x: &[f32],
    a1: &[f32],
    a2: &[f32],
    delta: f32,
    a: usize,
    activation: OutputActivation,
) -> MlpWeights {
    let mut out = w.clone();
    // `calc_gradient` of each notebook: ReLU (SARSA), sigmoid (Q-learning), linear.
    let dz2 = match activation {
        OutputActivation::Relu => delta * f32::from(a2[a] > 0.0),
        OutputActivation::Sigmoid => delta * a2[a] * (1.0 - a2[a]),
        OutputActivation::Linear => delta,
    };
    let dz1: Vec<f32> = (0..HIDDEN)
        .map(|j| delta * w.w2[j * ACTIONS + a] * f32::from(a1[j] > 0.0))
        .collect();
    for j in 0..HIDDEN {
        out.w2[j * ACTIONS + a] += ETA * dz2 * a1[j];
        out.b1[j] += ETA * dz1[j];
        for (i, xi) in x.iter().enumerate() {
            out.w1[i * HIDDEN + j] += ETA * dz1[j] * xi;
        }
    }
    out.b2[a] += ETA * dz2;
    out
}

fn host_forward(w: &MlpWeights, x: &[f32], activation: OutputActivation) -> (Vec<f32>, Vec<f32>) {
    let h: Vec<f32> = (0..HIDDEN)
        .map(|j| {
            (w.b1[j]
                + (0..FEATURES)
                    .map(|i| x[i] * w.w1[i * HIDDEN + j])
                    .sum::<f32>())
            .max(0.0)
        })
        .collect();
    let out = (0..ACTIONS)
        .map(|k| {
            let z = w.b2[k]
                + (0..HIDDEN)
                    .map(|j| h[j] * w.w2[j * ACTIONS + k])
                    .sum::<f32>();
            match activation {
                OutputActivation::Relu => z.max(0.0),
                OutputActivation::Sigmoid => 1.0 / (1.0 + (-z).exp()),
                OutputActivation::Linear => z,
            }
        })
        .collect();
    (h, out)
}

#[test]
fn reference_update_uses_the_next_states_activations_like_the_study() {
    let state = parse_start("Qa1 Ka2 / Kc2").unwrap();
    let next = parse_start("Qd4 Ka2 / Kc1").unwrap();
    let (mut x, mut x_next) = (vec![0.0; FEATURES], vec![0.0; FEATURES]);
    encode(&state, &mut x);
    encode(&next, &mut x_next);
    for activation in [
        OutputActivation::Relu,
        OutputActivation::Sigmoid,
        OutputActivation::Linear,
    ] {
        let mut agent = agent(activation, UpdateRule::Reference);
        let before = agent.weights();
        let current = agent.forward(row_of(&state));
        let last = agent.forward(row_of(&next));
        let a = 25;
        let delta = 0.3;
        let signal = agent.reference_signal(delta, last.q[a]);
        agent.apply(current.x.clone(), last.parts.hidden.clone(), a, signal);
        let (a1, a2) = host_forward(&before, &x_next, activation);
        let want = study_backprop(&before, &x, &a1, &a2, delta, a, activation);
        assert_weights_close(&agent.weights(), &want);
    }
}

#[test]
fn one_step_by_hand_on_a_two_unit_network() {
    // Hidden units h = relu(x W1 + b1) with only the five active features' rows
    // non-zero; W2 column a = [0.5, -1.0]; linear output.
    let position = parse_start("Qa1 Ka2 / Kc2").unwrap();
    let mut x = vec![0.0; FEATURES];
    encode(&position, &mut x);
    let hidden = 2;
    let mut w = MlpWeights {
        w1: vec![0.0; FEATURES * hidden],
        b1: vec![0.1, -0.2],
        w2: vec![0.0; hidden * ACTIONS],
        b2: vec![0.0; ACTIONS],
    };
    for i in (0..FEATURES).filter(|&i| x[i] == 1.0) {
        w.w1[i * hidden] = 0.2; // unit 0: 0.1 + 5 * 0.2 = 1.1
        w.w1[i * hidden + 1] = 0.1; // unit 1: -0.2 + 5 * 0.1 = 0.3
    }
    let a = 3;
    w.w2[a] = 0.5;
    w.w2[ACTIONS + a] = -1.0;
    w.b2[a] = 0.05;
    // Q(s, a) = 1.1 * 0.5 + 0.3 * -1.0 + 0.05 = 0.3. Terminal mate: target 1,
    // delta = 0.7; linear output, so dz2 = 0.7 and dz1 = 0.7 * [0.5, -1.0].
    let mut cfg = config(
        TdAlgorithm::Sarsa,
        UpdateRule::SemiGradient,
        OutputActivation::Linear,
    );
    cfg.hidden = hidden;
    cfg.eta = 0.1;
    let mut agent = LuoAgent::from_weights(cfg, &w, Device::flex()).unwrap();
    let current = agent.forward(row_of(&position));
    assert!((current.q[a] - 0.3).abs() < 1e-6);
    agent.semi_gradient_update(&current, 0, a, 1.0);
    let got = agent.weights();
    assert!((got.b2[a] - (0.05 + 0.1 * 0.7)).abs() < 1e-6);
    assert!((got.w2[a] - (0.5 + 0.1 * 0.7 * 1.1)).abs() < 1e-6);
    assert!((got.w2[ACTIONS + a] - (-1.0 + 0.1 * 0.7 * 0.3)).abs() < 1e-6);
    assert!((got.b1[0] - (0.1 + 0.1 * 0.7 * 0.5)).abs() < 1e-6);
    assert!((got.b1[1] - (-0.2 - 0.1 * 0.7)).abs() < 1e-6);
    let active = (0..FEATURES).find(|&i| x[i] == 1.0).unwrap();
    let inactive = (0..FEATURES).find(|&i| x[i] == 0.0).unwrap();
    assert!((got.w1[active * hidden] - (0.2 + 0.1 * 0.35)).abs() < 1e-6);
    assert_eq!(
        got.w1[inactive * hidden],
        0.0,
        "inactive inputs get no gradient"
    );
    // Every other output column is untouched.
    assert_eq!(got.w2[a + 1], 0.0);
    assert_eq!(got.b2[a + 1], 0.0);
}

#[test]
fn training_episodes_end_in_mate_or_stalemate_and_log_the_studys_reward() {
    for (algorithm, update) in [
        (TdAlgorithm::Sarsa, UpdateRule::Reference),
        (TdAlgorithm::QLearning, UpdateRule::Reference),
        (TdAlgorithm::Impatient, UpdateRule::SemiGradient),
        (TdAlgorithm::QLearning, UpdateRule::SemiGradient),
    ] {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let cfg = config(algorithm, update, algorithm.study_activation());
        let mut agent = LuoAgent::new(cfg, Device::flex(), &mut rng).unwrap();
        for _ in 0..20 {
            let start = burnmate_env::queen4x4::random_start(&mut rng);
            let episode = agent.train_episode(start, 0.2, u32::MAX, &mut rng);
            assert!(episode.outcome.is_terminal());
            let expected = match algorithm {
                TdAlgorithm::Impatient => -f64::from(episode.steps),
                _ => f64::from(u8::from(
                    episode.outcome == burnmate_env::queen4x4::Queen4x4Outcome::Checkmate,
                )),
            };
            assert_eq!(episode.reward, expected);
        }
    }
}

#[test]
fn a_move_cap_stops_an_episode_without_an_outcome() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut agent = LuoAgent::new(
        config(
            TdAlgorithm::Sarsa,
            UpdateRule::SemiGradient,
            OutputActivation::Relu,
        ),
        Device::flex(),
        &mut rng,
    )
    .unwrap();
    let start = parse_start("Qa1 Ka2 / Kc2").unwrap();
    let no_move_ends_the_game = start.legal_action_list().into_iter().all(|a| {
        !start
            .play(burnmate_env::queen4x4::Action::from_index(a))
            .outcome()
            .is_terminal()
    });
    assert!(
        no_move_ends_the_game,
        "precondition: no mate or stalemate in one"
    );
    let episode = agent.train_episode(start, 1.0, 1, &mut rng);
    assert_eq!(episode.steps, 1);
    assert_eq!(
        episode.outcome,
        burnmate_env::queen4x4::Queen4x4Outcome::Ongoing
    );
}

#[test]
fn the_td_agent_trains_on_another_game_through_the_environment_seam() {
    use burnmate_encode::knight::KnightEncoding;
    use burnmate_env::environment::Environment;
    use burnmate_env::knight::{ACTIONS as JUMPS, KnightGame, MOVE_LIMIT};

    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let cfg = config(
        TdAlgorithm::Sarsa,
        UpdateRule::SemiGradient,
        OutputActivation::Linear,
    );
    let mut agent = LuoAgent::with_shape(cfg, 4, JUMPS, Device::flex(), &mut rng).unwrap();
    let before = agent.weights();
    for _ in 0..20 {
        let start = KnightGame.reset(&mut rng);
        let episode =
            agent.train_episode_in(&KnightGame, &KnightEncoding, start, 0.3, u32::MAX, &mut rng);
        assert!(episode.outcome.is_terminal());
        assert!(episode.steps <= u32::from(MOVE_LIMIT));
    }
    assert_ne!(agent.weights().w2, before.w2, "it learned");
}

#[test]
fn a_setting_out_of_range_is_refused_by_the_constructor() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for (config, named) in [
        (
            LuoConfig {
                eta: 0.0,
                ..LuoConfig::default()
            },
            "eta",
        ),
        (
            LuoConfig {
                gamma: 1.5,
                ..LuoConfig::default()
            },
            "gamma",
        ),
        (
            LuoConfig {
                hidden: 0,
                ..LuoConfig::default()
            },
            "hidden",
        ),
    ] {
        let error = LuoAgent::new(config, Device::flex(), &mut rng)
            .err()
            .unwrap();
        assert!(error.to_string().starts_with(named), "{error}");
    }
    assert!(LuoAgent::new(LuoConfig::default(), Device::flex(), &mut rng).is_ok());
}
