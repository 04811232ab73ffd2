//! The GPU backend computes what the CPU backend computes. For each study's network,
//! the same weights and inputs go through one forward pass and one training step (the
//! agent's own update) on wgpu and on flex; outputs, losses and updated weights must
//! agree within the tolerance below.
//!
//! Whole training runs are *not* compared: floating-point sums are ordered differently
//! by different kernels (Mesa's GL and Vulkan drivers, NVIDIA, Apple), and one flipped
//! argmax between two near-equal Q-values sends a trajectory elsewhere for good.
//!
//! Without an adapter the test passes with a note, unless `BURNMATE_REQUIRE_WGPU` is set
//! (CI sets it where it installed one): then a missing adapter fails it.
//!
//! All comparisons run in one test, on one thread: wgpu's OpenGL backend (Mesa's GL
//! adapter) binds its context to the thread that created it, and the test harness
//! would run separate tests on separate threads.

use burn::tensor::Device;
use burnmate_agents::actor_critic::{ActorCritic, ActorCriticConfig};
use burnmate_agents::afterstate::rows::EncodedRows;
use burnmate_agents::afterstate::value_net::ValueNet;
use burnmate_agents::dqn::{Dqn, DqnConfig};
use burnmate_agents::host_memory::host;
use burnmate_agents::init::uniform_layers;
use burnmate_agents::luo::{LuoAgent, LuoConfig, TdAlgorithm, UpdateRule};
use burnmate_agents::policy_value::{PolicyTarget, PolicyValueNet, ValueTarget};
use burnmate_agents::selfplay::choice::{masks, selectable_moves};
use burnmate_agents::selfplay::net::{
    self as selfplay_net, AdamMode, NetConfig, SELECTORS, SelectorSet,
};
use burnmate_agents::transition::Transition;
use burnmate_encode::knight::{KnightEncoding, row as knight_row};
use burnmate_encode::side_to_move::FEATURES;
use burnmate_env::environment::Environment;
use burnmate_env::knight::{ACTIONS as KNIGHT_ACTIONS, KnightGame, random_start as knight_start};
use burnmate_env::queen4x4::{ACTIONS as QUEEN_ACTIONS, random_start as queen_start};
use burnmate_models::{
    LayerWeights, MlpWeights, OutputActivation, SelectorPadding, SelectorWeights,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Position};

use crate::device::backend::BackendChoice;

/// `|gpu - cpu| <= ABSOLUTE + RELATIVE * |cpu|` for every output, loss and weight.
/// f32 sums of a few hundred terms in another order differ by a few ulps of the
/// largest term (about 1e-7 relative); the bound leaves two orders of magnitude.
const RELATIVE: f32 = 1e-5;
/// The absolute floor of the tolerance, for values near zero.
const ABSOLUTE: f32 = 1e-6;
/// Extra allowance, as a share of the learning rate, for weights after an Adam step.
/// Adam moves a weight by `lr * g / (|g| + 1e-8)`; where a gradient is itself near
/// 1e-8, its rounding shifts the step (measured: 7e-4 of lr on Mesa's GL adapter).
/// A wrong sign or a wrong gradient moves a weight by up to `2 * lr`.
const ADAM_STEP_SHARE: f32 = 1e-2;

/// The wgpu device, or `None` (with a note) where the machine has no adapter.
fn gpu() -> Option<Device> {
    match BackendChoice::Wgpu.device() {
        Ok(device) => Some(device),
        Err(e) => {
            assert!(
                std::env::var_os("BURNMATE_REQUIRE_WGPU").is_none(),
                "BURNMATE_REQUIRE_WGPU is set, but: {e}"
            );
            eprintln!("no wgpu adapter on this machine, comparison not run: {e}");
            None
        }
    }
}

/// Asserts that `gpu` equals `cpu` within the tolerance, naming `what` and the worst
/// element on failure.
fn assert_close(what: &str, gpu: &[f32], cpu: &[f32]) {
    assert_close_within(what, gpu, cpu, ABSOLUTE);
}

/// [`assert_close`] for weights after Adam steps of learning rate `lr`.
fn assert_close_after_adam(what: &str, gpu: &[f32], cpu: &[f32], lr: f64) {
    assert_close_within(what, gpu, cpu, ABSOLUTE + ADAM_STEP_SHARE * lr as f32);
}

fn assert_close_within(what: &str, gpu: &[f32], cpu: &[f32], absolute: f32) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths differ");
    let worst = gpu
        .iter()
        .zip(cpu)
        .enumerate()
        .map(|(i, (g, c))| (i, (g - c).abs() - RELATIVE * c.abs()))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let largest = gpu
        .iter()
        .zip(cpu)
        .map(|(g, c)| (g - c).abs())
        .fold(0.0, f32::max);
    eprintln!("{what}: largest |wgpu - flex| = {largest:e}");
    if let Some((i, excess)) = worst {
        assert!(
            excess <= absolute,
            "{what}: element {i} is {} on wgpu and {} on flex",
            gpu[i],
            cpu[i]
        );
    }
}

fn mlp_values(w: &MlpWeights) -> Vec<f32> {
    [&w.w1, &w.b1, &w.w2, &w.b2]
        .into_iter()
        .flatten()
        .copied()
        .collect()
}

fn layer_values(layers: &[LayerWeights]) -> Vec<f32> {
    layers
        .iter()
        .flat_map(|l| l.weight.iter().chain(&l.bias))
        .copied()
        .collect()
}

fn selector_values(selectors: &[SelectorWeights]) -> Vec<f32> {
    let mut values = Vec::new();
    for s in selectors {
        for conv in &s.convs {
            values.extend(conv.weight.iter().chain(&conv.bias));
        }
        for layer in [&s.dense, &s.output] {
            values.extend(layer.weight.iter().chain(&layer.bias));
        }
    }
    values
}

fn queen4x4_network_forward_and_td_step_agree(gpu: &Device) {
    for (algorithm, activation) in [
        (TdAlgorithm::Sarsa, OutputActivation::Relu),
        (TdAlgorithm::QLearning, OutputActivation::Sigmoid),
        (TdAlgorithm::Impatient, OutputActivation::Linear),
    ] {
        let config = LuoConfig {
            algorithm,
            update: UpdateRule::SemiGradient,
            eta: 0.0035,
            gamma: 0.85,
            hidden: 200,
            activation,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let positions: Vec<_> = (0..8).map(|_| queen_start(&mut rng)).collect();
        let mut agents = [Device::flex(), gpu.clone()].map(|device| {
            LuoAgent::new(config.clone(), device, &mut ChaCha8Rng::seed_from_u64(9)).unwrap()
        });
        for position in &positions {
            let [cpu, gpu] = &mut agents;
            assert_close(
                &format!("{algorithm:?} forward"),
                &gpu.q_values(position),
                &cpu.q_values(position),
            );
        }
        // One TD step per position, each towards a target off the current output.
        for (i, position) in positions.iter().enumerate() {
            let action = position.legal_action_list()[0];
            let target = agents[0].q_values(position)[action] + 0.5 - 0.1 * i as f32;
            for agent in &mut agents {
                agent.update_towards(position, action, target);
            }
        }
        let [cpu, gpu] = &agents;
        assert_close(
            &format!("{algorithm:?} weights after 8 TD steps"),
            &mlp_values(&gpu.weights()),
            &mlp_values(&cpu.weights()),
        );
        assert_eq!(cpu.weights().w2.len(), 200 * QUEEN_ACTIONS);
    }
}

/// Knight transitions from random states and jumps.
fn knight_batch(rng: &mut ChaCha8Rng, n: usize) -> Vec<Transition> {
    (0..n)
        .map(|_| {
            let state = knight_start(rng);
            let action = rng.random_range(0..KNIGHT_ACTIONS);
            let step = KnightGame.step(&state, action, rng);
            Transition::from_step(&KnightGame, &KnightEncoding, &state, action, &step)
        })
        .collect()
}

fn knight_dqn_forward_targets_and_adam_step_agree(gpu: &Device) {
    let sizes = [4, 128, 128, KNIGHT_ACTIONS];
    let layers = uniform_layers(&sizes, &mut ChaCha8Rng::seed_from_u64(0));
    let config = DqnConfig {
        sizes: sizes.to_vec(),
        ..DqnConfig::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let batch = knight_batch(&mut rng, 64);
    let rows: Vec<f32> = (0..16)
        .flat_map(|_| knight_row(&knight_start(&mut rng)))
        .collect();
    let mut agents = [Device::flex(), gpu.clone()]
        .map(|device| Dqn::new(config.clone(), device.autodiff(), &layers).expect("weights fit"));
    let [cpu, gpu] = &mut agents;
    assert_close("DQN forward", &gpu.q_values(&rows), &cpu.q_values(&rows));
    let targets = cpu.targets(&batch);
    assert_close("DQN targets", &gpu.targets(&batch), &targets);
    let losses = [gpu.update(&batch, &targets), cpu.update(&batch, &targets)]
        .map(|loss| loss.into_data().try_to_vec::<f32>().expect("f32 loss"));
    assert_close("DQN loss", &losses[0], &losses[1]);
    assert_close_after_adam(
        "DQN weights after one Adam step",
        &layer_values(&gpu.weights()),
        &layer_values(&cpu.weights()),
        config.lr,
    );
    assert_ne!(
        layer_values(&cpu.weights()),
        layer_values(&layers),
        "the step changed the weights"
    );
}

fn knight_actor_critic_forward_and_update_agree(gpu: &Device) {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let actor = uniform_layers(&[4, 128, 128, KNIGHT_ACTIONS], &mut rng);
    let critic = uniform_layers(&[4, 128, 128, 1], &mut rng);
    let config = ActorCriticConfig::default();
    let mut agents = [Device::flex(), gpu.clone()].map(|device| {
        ActorCritic::new(config.clone(), device.autodiff(), &actor, &critic).expect("weights fit")
    });
    for t in knight_batch(&mut rng, 4) {
        let row = knight_row(&knight_start(&mut rng));
        let [cpu, gpu] = &mut agents;
        assert_close(
            "actor probabilities",
            &gpu.probabilities(&row),
            &cpu.probabilities(&row),
        );
        let losses = [gpu.update(&t).read(), cpu.update(&t).read()];
        assert_close("actor-critic losses", &losses[0], &losses[1]);
    }
    let [cpu, gpu] = &agents;
    let (gpu_actor, gpu_critic) = gpu.weights();
    let (cpu_actor, cpu_critic) = cpu.weights();
    assert_close_after_adam(
        "actor after 4 updates",
        &layer_values(&gpu_actor),
        &layer_values(&cpu_actor),
        config.actor_lr,
    );
    assert_close_after_adam(
        "critic after 4 updates",
        &layer_values(&gpu_critic),
        &layer_values(&cpu_critic),
        config.critic_lr,
    );
}

/// Boards and update transitions along the first plies of a random game.
fn selfplay_batch(rng: &mut ChaCha8Rng, n: usize) -> (Vec<f32>, Vec<selfplay_net::SelectorSample>) {
    let mut position = Chess::default();
    let mut boards = Vec::new();
    let mut batch = Vec::new();
    for _ in 0..n {
        let mut board = vec![0.0; burnmate_encode::selfplay::FEATURES];
        burnmate_encode::selfplay::encode(position.board(), &mut board);
        let moves = selectable_moves(&position);
        let (piece_mask, move_masks) = masks(&position, &moves);
        let chosen = moves[rng.random_range(0..moves.len())];
        boards.extend_from_slice(&board);
        batch.push(selfplay_net::SelectorSample {
            board,
            piece_mask,
            move_masks,
            from: chosen.from,
            to: chosen.to,
            role: chosen.role,
            piece_target: rng.random_range(-1.0..1.0),
            move_target: rng.random_range(-1.0..1.0),
        });
        position = position.play(chosen.mv).expect("a legal move");
    }
    (boards, batch)
}

fn selfplay_selectors_forward_and_update_agree(gpu: &Device) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let padding = SelectorPadding::Valid;
    // The study's convolutions start at +-1e-7 and +-1e-6, which leaves every output
    // near 1e-24 and the comparison empty; scaled to about +-0.1 the outputs are O(1).
    let weights: Vec<_> = (0..SELECTORS)
        .map(|_| {
            let mut w = selfplay_net::initial_weights(padding, &mut rng);
            for (conv, scale) in w.convs.iter_mut().zip([1e6, 1e5, 1e5]) {
                conv.weight.iter_mut().for_each(|v| *v *= scale);
            }
            w
        })
        .collect();
    let config = NetConfig {
        padding,
        lr: 0.01,
        adam: AdamMode::Reference,
        bucket_batches: false,
    };
    let (boards, batch) = selfplay_batch(&mut rng, 6);
    let mut sides = [Device::flex(), gpu.clone()]
        .map(|device| SelectorSet::new(config, device.autodiff(), &weights).expect("weights fit"));
    let [cpu, gpu] = &mut sides;
    let values = [
        gpu.values(boards.clone(), batch.len()),
        cpu.values(boards, batch.len()),
    ];
    let largest = values[1]
        .piece(0)
        .iter()
        .fold(0.0f32, |m, v| m.max(v.abs()));
    assert!(
        largest > 1e-2,
        "selector outputs of {largest:e} compare nothing"
    );
    for i in 0..batch.len() {
        assert_close("piece selector", values[0].piece(i), values[1].piece(i));
        for role in 0..6 {
            assert_close(
                "move selector",
                values[0].moves(i, role),
                values[1].moves(i, role),
            );
        }
    }
    let losses = [gpu.update(&batch), cpu.update(&batch)]
        .map(|loss| loss.into_data().try_to_vec::<f32>().expect("f32 loss"));
    assert_close("selector loss", &losses[0], &losses[1]);
    assert_close_after_adam(
        "selectors after one Adam step",
        &selector_values(&gpu.weights()),
        &selector_values(&cpu.weights()),
        config.lr,
    );
}

/// The search learner's network: evaluations (hidden layers on the backend, the head
/// on the host) and one update (policy cross-entropy, value and moves-left errors,
/// backward, Adam) on a small net with the moves-left head.
fn policy_value_evaluation_and_update_agree(gpu: &Device) {
    let (features, hidden, actions) = (12, [16, 8], 10);
    let nets = [gpu.clone(), Device::flex()].map(|device| {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        PolicyValueNet::new(
            features,
            &hidden,
            actions,
            true,
            device.autodiff(),
            &mut rng,
        )
    });
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let n = 6;
    let rows: Vec<f32> = (0..n * features)
        .map(|_| rng.random::<f32>() * 2.0 - 1.0)
        .collect();
    let legal: Vec<Vec<usize>> = (0..n)
        .map(|i| vec![i % actions, (i + 3) % actions, 9])
        .collect();
    let legal_slices: Vec<&[usize]> = legal.iter().map(Vec::as_slice).collect();
    let [gpu_eval, cpu_eval] = [&nets[0], &nets[1]].map(|net| {
        net.evaluate_rows(rows.clone(), &legal_slices)
            .into_iter()
            .flat_map(|e| e.priors.into_iter().chain([e.value, e.moves_left]))
            .collect::<Vec<f32>>()
    });
    assert_close("policy-value evaluations", &gpu_eval, &cpu_eval);
    let targets: Vec<PolicyTarget> = legal
        .iter()
        .map(|actions| PolicyTarget {
            actions: actions.clone(),
            shares: vec![0.6, 0.3, 0.1],
        })
        .collect();
    let values: Vec<ValueTarget> = (0..n)
        .map(|i| ValueTarget {
            value: if i % 2 == 0 { 1.0 } else { -0.5 },
            moves_left: i as f32 * 3.0,
        })
        .collect();
    let lr = 0.01;
    let [mut gpu_net, mut cpu_net] = nets;
    let losses = [&mut gpu_net, &mut cpu_net].map(|net| {
        let l = net.update(lr, rows.clone(), &targets, &values);
        vec![l.value, l.policy, l.moves_left]
    });
    assert_close("policy-value losses", &losses[0], &losses[1]);
    assert_close_after_adam(
        "policy-value net after one Adam step",
        &layer_values(&gpu_net.weights()),
        &layer_values(&cpu_net.weights()),
        lr,
    );
}

/// The afterstate learner's value net: values of middlegame positions and one Adam
/// step, the positions sent as their set values on the GPU and as dense rows on flex.
fn afterstate_values_and_update_agree(gpu: &Device) {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let layers = uniform_layers(&[FEATURES, 32, 16, 1], &mut rng);
    let lr = 1e-3;
    let [mut gpu_net, mut cpu_net] = [gpu.clone(), Device::flex()]
        .map(|device| ValueNet::new(&layers, lr, device.autodiff()).expect("value net shape"));
    let mut positions = vec![Chess::default()];
    for _ in 0..7 {
        let mut next = positions.last().expect("a position").clone();
        for _ in 0..3 {
            let moves = next.legal_moves();
            next.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        positions.push(next);
    }
    let refs: Vec<&Chess> = positions.iter().collect();
    assert!(matches!(gpu_net.encode(&refs), EncodedRows::SetEntries(_)));
    assert!(matches!(cpu_net.encode(&refs), EncodedRows::Dense(_)));
    assert_close(
        "afterstate values",
        &gpu_net.values(gpu_net.encode(&refs)),
        &cpu_net.values(cpu_net.encode(&refs)),
    );
    let targets: Vec<f32> = (0..refs.len()).map(|i| i as f32 / 8.0 - 0.5).collect();
    let [gpu_loss, cpu_loss] = [&mut gpu_net, &mut cpu_net]
        .map(|net| host(net.update(net.encode(&refs), targets.clone())));
    assert_close("afterstate loss", &gpu_loss, &cpu_loss);
    assert_close_after_adam(
        "afterstate value net after one Adam step",
        &layer_values(&gpu_net.weights()),
        &layer_values(&cpu_net.weights()),
        lr,
    );
}

/// The chess trainer's Burn step (mirrored inputs with a factoriser's blocks, SCReLU,
/// 8 material buckets): two Adam steps on positions of random games, the loss of
/// each and the weights after them.
fn chess_nnue_step_agrees(gpu: &Device) {
    use burnmate_agents::nnue_trainer::{DeviceNnueTrainer, MinibatchStep, fresh_weights};
    use burnmate_encode::nnue::KingBuckets;
    use burnmate_engine::nnue::NnueForm;
    use burnmate_engine::packed::PackedPosition;
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut positions = Vec::new();
    let mut game = Chess::default();
    while positions.len() < 256 {
        let moves = game.legal_moves();
        if moves.is_empty() || rng.random_range(0..60) == 0 {
            game = Chess::default();
            continue;
        }
        game.play_unchecked(moves[rng.random_range(0..moves.len())]);
        let score = rng.random_range(-600..600);
        positions.extend(PackedPosition::new(game.board(), game.turn(), score, 1));
    }
    let batch: Vec<&PackedPosition> = positions.iter().collect();
    let form = NnueForm {
        activation: burnmate_models::Activation::Screlu,
        king_buckets: KingBuckets::Four,
    };
    let weights = fresh_weights(form.king_buckets, 32, 8, &mut rng);
    let [mut on_gpu, mut on_cpu] = [gpu.clone(), Device::flex()]
        .map(|device| DeviceNnueTrainer::new(&weights, form, &device).expect("an NNUE"));
    for lr in [1e-3, 5e-4] {
        let [g, c] = [&mut on_gpu, &mut on_cpu].map(|t| {
            let loss = t.step_at(lr, &batch, 0.3);
            t.total(vec![loss])
        });
        assert_close("chess NNUE loss", &[g], &[c]);
        assert_close_after_adam(
            "chess NNUE after an Adam step",
            &layer_values(&on_gpu.weights()),
            &layer_values(&on_cpu.weights()),
            lr,
        );
    }
}

/// One network's comparison of its forward pass and update on wgpu and flex.
type Comparison = fn(&Device);

#[test]
fn every_network_agrees_on_wgpu_and_flex() {
    let Some(gpu) = gpu() else { return };
    let comparisons: [(&str, Comparison); 7] = [
        ("queen4x4", queen4x4_network_forward_and_td_step_agree),
        ("knight DQN", knight_dqn_forward_targets_and_adam_step_agree),
        (
            "knight actor-critic",
            knight_actor_critic_forward_and_update_agree,
        ),
        (
            "selfplay selectors",
            selfplay_selectors_forward_and_update_agree,
        ),
        ("policy-value", policy_value_evaluation_and_update_agree),
        ("afterstate", afterstate_values_and_update_agree),
        ("chess NNUE", chess_nnue_step_agrees),
    ];
    for (network, compare) in comparisons {
        let start = std::time::Instant::now();
        compare(&gpu);
        eprintln!(
            "{network}: compared in {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
}
