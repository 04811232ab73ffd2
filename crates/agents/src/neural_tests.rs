//! DQN targets and loss, and actor-critic losses, on hand-made inputs of the knight
//! study's shape (4 features, 8 actions).

use burn::tensor::Device;
use burnmate_models::{DeepMlp, LayerWeights};

use rand::SeedableRng;

use crate::actor_critic::{ActorCritic, ActorCriticConfig, CriticGradient};
use crate::adam::Adam;
use crate::agent::Agent;
use crate::dqn::{Dqn, DqnConfig, DqnState, TargetNetwork};
use crate::error::AgentError;
use crate::optim::TrainedNet;
use crate::transition::Transition;

const FEATURES: usize = 4;
const ACTIONS: usize = 8;

/// One linear layer 4 -> `outputs` with zero weights and the given biases, so every
/// state gets exactly `bias`.
fn constant_layer(bias: Vec<f32>) -> Vec<LayerWeights> {
    vec![LayerWeights {
        inputs: FEATURES,
        outputs: bias.len(),
        weight: vec![0.0; FEATURES * bias.len()],
        bias,
    }]
}

fn transition(action: usize, reward: f32, done: bool) -> Transition {
    Transition {
        state: vec![1.0, 2.0, 3.0, 4.0],
        action,
        reward,
        next_state: vec![2.0, 3.0, 4.0, 5.0],
        done,
        legal: Vec::new(),
        next_legal: Vec::new(),
    }
}

fn dqn(target: TargetNetwork) -> Dqn {
    dqn_with(target, 2, 1)
}

fn dqn_config(target: TargetNetwork, batch_size: usize, target_sync_steps: u64) -> DqnConfig {
    DqnConfig {
        sizes: vec![FEATURES, ACTIONS],
        lr: 1e-3,
        gamma: 0.99,
        replay_capacity: 100,
        batch_size,
        target,
        target_sync_steps,
    }
}

fn dqn_with(target: TargetNetwork, batch_size: usize, target_sync_steps: u64) -> Dqn {
    let config = dqn_config(target, batch_size, target_sync_steps);
    let q = constant_layer((0..ACTIONS).map(|a| a as f32).collect());
    Dqn::new(config, Device::flex().autodiff(), &q).unwrap()
}

#[test]
fn dqn_targets_bootstrap_from_the_best_next_value_unless_done() {
    let agent = dqn(TargetNetwork::Periodic);
    let batch = [transition(2, -1.0, false), transition(5, 10.0, true)];
    let targets = agent.targets(&batch);
    assert!((targets[0] - (-1.0 + 0.99 * 7.0)).abs() < 1e-6);
    assert_eq!(targets[1], 10.0);
}

#[test]
fn dqn_loss_is_the_mean_squared_error_of_the_chosen_outputs_only() {
    let mut agent = dqn(TargetNetwork::None);
    let batch = [transition(2, -1.0, false), transition(5, 10.0, true)];
    let targets = agent.targets(&batch);
    let loss = agent
        .update(&batch, &targets)
        .into_data()
        .try_into_vec::<f32>()
        .unwrap()[0];
    let want = ((5.93f32 - 2.0).powi(2) + (10.0f32 - 5.0).powi(2)) / 2.0;
    assert!((loss - want).abs() < 1e-4, "{loss} vs {want}");
    let after = agent.weights()[0].bias.clone();
    // Adam's first step moves a parameter by about lr against its gradient's sign.
    assert!((after[2] - (2.0 + 1e-3)).abs() < 1e-5, "{after:?}");
    assert!((after[5] - (5.0 + 1e-3)).abs() < 1e-5, "{after:?}");
    assert_eq!(after[0], 0.0, "an output no sample chose gets no gradient");
}

#[test]
fn reference_target_network_stays_the_initial_one() {
    let mut agent = dqn(TargetNetwork::Reference);
    let batch = [transition(7, 0.0, false), transition(7, 0.0, false)];
    for _ in 0..3 {
        let targets = agent.targets(&batch);
        agent.update(&batch, &targets);
    }
    assert!((agent.targets(&batch)[0] - 0.99 * 7.0).abs() < 1e-6);
    let mut periodic = dqn(TargetNetwork::Periodic);
    for _ in 0..3 {
        let targets = periodic.targets(&batch);
        periodic.update(&batch, &targets);
    }
    // Q(s, 7) = 7 regresses towards 6.93, and the refreshed target follows it down.
    assert!(periodic.targets(&batch)[0] < 0.99 * 7.0 - 1e-4);
}

#[test]
fn dqn_targets_bootstrap_from_legal_next_actions_only() {
    let agent = dqn(TargetNetwork::Periodic);
    // Q(s', a) = a: with actions 6 and 7 illegal the best legal value is 5.
    let mut t = transition(2, -1.0, false);
    t.next_legal = (0..ACTIONS).map(|a| a < 6).collect();
    assert!((agent.targets(&[t])[0] - (-1.0 + 0.99 * 5.0)).abs() < 1e-6);
}

#[test]
fn the_actor_takes_its_log_probability_over_the_legal_actions() {
    // Uniform policy, 3 of 8 actions legal: log pi(a) = -ln 3, not -ln 8.
    let mut agent = constant_actor_critic(CriticGradient::SemiGradient);
    let mut t = transition(3, -1.0, false);
    t.legal = (0..ACTIONS).map(|a| (2..5).contains(&a)).collect();
    let [delta, _, actor] = agent.update(&t).read();
    assert!(
        (actor - 3f32.ln() * delta).abs() < 1e-5,
        "{actor} vs {}",
        3f32.ln() * delta
    );
    // The only legal action has probability 1: nothing for the actor to learn.
    let mut agent = constant_actor_critic(CriticGradient::SemiGradient);
    let before = agent.weights().0;
    t.legal = (0..ACTIONS).map(|a| a == 3).collect();
    let [_, _, actor] = agent.update(&t).read();
    assert_eq!(actor.abs(), 0.0);
    assert_eq!(agent.weights().0, before);
}

/// The study's learning rates with a uniform policy (zero actor) and a critic
/// `V(x) = w . x + 0.5`, `w = 0`.
fn constant_actor_critic(critic_gradient: CriticGradient) -> ActorCritic {
    let config = ActorCriticConfig {
        critic_gradient,
        ..ActorCriticConfig::default()
    };
    ActorCritic::new(
        config,
        Device::flex().autodiff(),
        &constant_layer(vec![0.0; ACTIONS]),
        &constant_layer(vec![0.5]),
    )
    .unwrap()
}

#[test]
fn actor_critic_losses_on_a_hand_made_transition() {
    for critic_gradient in [CriticGradient::SemiGradient, CriticGradient::Reference] {
        let mut agent = constant_actor_critic(critic_gradient);
        // V(s) = V(s') = 0.5, uniform policy: delta = -1 + 0.99 * 0.5 - 0.5.
        let [got_delta, critic, actor] = agent.update(&transition(3, -1.0, false)).read();
        let delta = -1.0 + 0.99 * 0.5 - 0.5;
        assert!((got_delta - delta).abs() < 1e-6);
        assert!((critic - delta * delta).abs() < 1e-5);
        assert!((actor - 8f32.ln() * delta).abs() < 1e-5);
        // A negative advantage lowers the chosen jump's probability.
        let probs = agent.probabilities(&[1.0, 2.0, 3.0, 4.0]);
        assert!(probs[3] < 1.0 / 8.0 && probs[0] > 1.0 / 8.0, "{probs:?}");
        // Terminal: no bootstrap.
        let [done_delta, _, _] = agent.update(&transition(3, 10.0, true)).read();
        assert!(done_delta > 9.0 && done_delta < 10.0);
    }
}

#[test]
fn dqn_first_updates_when_more_than_a_minibatch_is_stored() {
    // The study's code: `if len(memory) > batch_size: replay()`, after every step.
    let mut agent = dqn_with(TargetNetwork::None, 64, 1);
    let initial = agent.weights();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    for _ in 0..64 {
        agent.learn(transition(2, -1.0, false), &mut rng);
    }
    assert_eq!(
        agent.weights(),
        initial,
        "64 stored transitions: no update yet"
    );
    agent.learn(transition(2, -1.0, false), &mut rng);
    assert_ne!(
        agent.weights(),
        initial,
        "the 65th transition triggers the first update"
    );
}

#[test]
fn periodic_target_is_refreshed_every_sync_steps_updates() {
    let mut agent = dqn_with(TargetNetwork::Periodic, 2, 3);
    let batch = [transition(7, 0.0, false), transition(7, 0.0, false)];
    let initial_target = 0.99 * 7.0;
    for update in 1..=3 {
        let targets = agent.targets(&batch);
        agent.update(&batch, &targets);
        let target = agent.targets(&batch)[0];
        if update < 3 {
            assert!(
                (target - initial_target).abs() < 1e-6,
                "update {update}: {target}"
            );
        } else {
            // Q(s, 7) = 7 regresses towards 6.93 and the refreshed copy follows it.
            assert!(target < initial_target - 1e-4, "update {update}: {target}");
        }
    }
}

/// A critic `V(x) = w . x + 0.5` with `w = 0`, on the hand-made transition.
fn critic_step(critic_gradient: CriticGradient) -> Vec<f32> {
    let mut agent = constant_actor_critic(critic_gradient);
    agent.update(&transition(3, -1.0, false));
    agent.weights().1[0].weight.clone()
}

#[test]
fn the_critic_gradient_variants_move_the_weights_apart() {
    // delta = -1 + 0.99 * 0.5 - 0.5 < 0, x = [1, 2, 3, 4], x' = [2, 3, 4, 5].
    // Semi-gradient: d(delta^2)/dw = -2 delta x > 0, so Adam's first step is -lr.
    // Reference (through V(s') too): 2 delta (0.99 x' - x) < 0, so the step is +lr.
    let semi = critic_step(CriticGradient::SemiGradient);
    let reference = critic_step(CriticGradient::Reference);
    for (s, r) in semi.iter().zip(&reference) {
        assert!((s + 1e-3).abs() < 1e-6, "semi-gradient {semi:?}");
        assert!((r - 1e-3).abs() < 1e-6, "reference {reference:?}");
    }
}

/// A small DQN (`width` -> `hidden` -> `actions`), weights drawn from `rng`: the
/// agent and its initial layers.
fn small_dqn(
    width: usize,
    hidden: usize,
    actions: usize,
    batch_size: usize,
    rng: &mut rand_chacha::ChaCha8Rng,
) -> (Dqn, Vec<LayerWeights>) {
    let sizes = vec![width, hidden, actions];
    let layers = crate::init::uniform_layers(&sizes, rng);
    let config = DqnConfig {
        sizes,
        lr: 1e-3,
        gamma: 0.9,
        replay_capacity: 500,
        batch_size,
        target: TargetNetwork::Periodic,
        target_sync_steps: 50,
    };
    let dqn = Dqn::new(config, Device::flex().autodiff(), &layers).unwrap();
    (dqn, layers)
}

#[test]
fn dqn_plays_and_learns_queen4x4_through_the_environment_seam() {
    use crate::episode::{Mode, Play, play_episode};
    use burnmate_encode::queen4x4::Queen4x4Encoding;
    use burnmate_env::environment::{Encoder, Environment};
    use burnmate_env::queen4x4::{MATE_REWARD, Queen4x4Game, Queen4x4Outcome};

    let (game, encoder) = (Queen4x4Game, Queen4x4Encoding);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let (mut dqn, layers) = small_dqn(encoder.width(), 64, game.actions(), 16, &mut rng);
    let play = Play {
        mode: Mode::Train { epsilon: 0.5 },
        max_steps: 40,
    };
    let mut steps = 0;
    for _ in 0..10 {
        let start = game.reset(&mut rng);
        let episode = play_episode(
            &game,
            &encoder,
            &mut dqn,
            start,
            play,
            &mut rng,
            |state, action, step| {
                assert!(
                    state.legal_action_list().contains(&action),
                    "{state}: action {action}"
                );
                assert_eq!(
                    step.reward == MATE_REWARD,
                    step.outcome == Queen4x4Outcome::Checkmate
                );
            },
        );
        assert!(episode.steps <= 40);
        steps += episode.steps;
    }
    assert!(steps > 16, "more steps than a minibatch, so it updated");
    assert_ne!(dqn.weights(), layers, "the Q-network learned");
}

#[test]
fn vectorised_dqn_finishes_every_episode_once_in_order_with_its_own_tally() {
    use crate::vector::Vectorised;
    use burnmate_encode::queen4x4::Queen4x4Encoding;
    use burnmate_env::environment::{Encoder, Environment, Outcome as _};
    use burnmate_env::queen4x4::Queen4x4Game;

    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    let (mut dqn, layers) = small_dqn(
        Queen4x4Encoding.width(),
        32,
        Queen4x4Game.actions(),
        8,
        &mut rng,
    );
    let vectorised = Vectorised {
        env: &Queen4x4Game,
        encoder: &Queen4x4Encoding,
        envs: 3,
        episodes: 7,
    };
    let mut seen = Vec::new();
    vectorised
        .train(
            &mut dqn,
            |_| 1.0,
            &mut rng,
            |steps: &mut u32, _, _, _| *steps += 1,
            |n, episode, steps, _| {
                assert!(episode.outcome.is_terminal());
                assert_eq!(steps, episode.steps, "each copy keeps its own tally");
                seen.push(n);
                Ok::<(), ()>(())
            },
        )
        .unwrap();
    assert_eq!(seen, (0..7).collect::<Vec<u64>>());
    assert_ne!(dqn.weights(), layers, "it updated");
}

#[test]
fn dqn_plays_an_8x8_endgame_through_the_environment_seam() {
    use crate::episode::{Mode, Play, play_episode};
    use burnmate_encode::endgame::EndgameEncoding;
    use burnmate_env::endgame::Endgame;
    use burnmate_env::endgame_game::{EndgameGame, RandomDefender, move_of};
    use burnmate_env::environment::{Encoder, Environment};

    let game = EndgameGame {
        endgame: Endgame::Krk,
        defender: RandomDefender,
        max_moves: 15,
        starts: Vec::new(),
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let (mut dqn, layers) = small_dqn(
        EndgameEncoding::LONE_KING.width(),
        64,
        game.actions(),
        8,
        &mut rng,
    );
    let play = Play {
        mode: Mode::Train { epsilon: 0.3 },
        max_steps: 15,
    };
    for _ in 0..3 {
        let start = game.reset(&mut rng);
        let episode = play_episode(
            &game,
            &EndgameEncoding::LONE_KING,
            &mut dqn,
            start,
            play,
            &mut rng,
            |state, action, _| {
                assert!(
                    move_of(state.position(), action).is_some(),
                    "action {action} is a legal move"
                );
            },
        );
        assert!(episode.steps <= 15);
    }
    assert_ne!(dqn.weights(), layers, "it learned");
}

#[test]
fn a_restored_dqn_continues_exactly_like_the_original() {
    let mut a = dqn_with(TargetNetwork::Periodic, 2, 3);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
    for i in 0..6 {
        a.learn(transition(i % ACTIONS, i as f32, i == 5), &mut rng);
    }
    let config = dqn_config(TargetNetwork::Periodic, 2, 3);
    let device = Device::flex().autodiff();
    let mut b = Dqn::restore(config.clone(), device.clone(), a.snapshot().unwrap()).unwrap();
    // The same network with a fresh Adam (a restore that drops the optimiser).
    let net = DeepMlp::from_weights(&a.weights(), &device).unwrap();
    let fresh = DqnState {
        online: TrainedNet::of(&net, &Adam::new(&net, &device)),
        ..a.snapshot().unwrap()
    };
    let mut c = Dqn::restore(config, device, fresh).unwrap();
    let (mut rng_b, mut rng_c) = (rng.clone(), rng.clone());
    for i in 0..5 {
        a.learn(transition(i, -1.0, false), &mut rng);
        b.learn(transition(i, -1.0, false), &mut rng_b);
        c.learn(transition(i, -1.0, false), &mut rng_c);
    }
    assert_eq!(
        a.weights(),
        b.weights(),
        "Adam's moments and step count carried over"
    );
    assert_ne!(a.weights(), c.weights(), "a fresh Adam drifts apart");
}

#[test]
fn a_restored_actor_critic_continues_exactly_like_the_original() {
    let mut a = constant_actor_critic(CriticGradient::SemiGradient);
    for i in 0..3 {
        a.update(&transition(i, -1.0, false));
    }
    let config = ActorCriticConfig::default();
    let mut b =
        ActorCritic::restore(config, Device::flex().autodiff(), &a.snapshot().unwrap()).unwrap();
    for i in 0..3 {
        a.update(&transition(i + 2, 1.0, i == 2));
        b.update(&transition(i + 2, 1.0, i == 2));
    }
    assert_eq!(a.weights(), b.weights());
}

#[test]
fn a_mating_step_stores_a_final_transition_without_next_moves() {
    use burnmate_env::endgame::{Endgame, Match, parse_start};
    use burnmate_env::endgame_game::{EndgameGame, RandomDefender, action_of};
    use burnmate_env::environment::Environment;
    use shakmaty::Position as _;

    let game = EndgameGame {
        endgame: Endgame::Kqk,
        defender: RandomDefender,
        max_moves: 50,
        starts: Vec::new(),
    };
    // Qg7 mates: the black king on h8, the white king on f6.
    let start = parse_start(Endgame::Kqk, "7k/8/5K2/8/8/8/6Q1/8 w - - 0 1").unwrap();
    let state = Match::new(Endgame::Kqk, start.clone(), 50);
    let mate = start
        .legal_moves()
        .into_iter()
        .find(|m| m.to() == shakmaty::Square::G7)
        .unwrap();
    let action = action_of(start.board(), &mate);
    let step = game.step(
        &state,
        action,
        &mut rand_chacha::ChaCha8Rng::seed_from_u64(1),
    );
    let t = Transition::from_step(
        &game,
        &burnmate_encode::endgame::EndgameEncoding::LONE_KING,
        &state,
        action,
        &step,
    );
    assert!(t.done && t.reward == 1.0);
    assert!(t.next_legal.is_empty());
    assert!(t.legal[action], "the mating move was legal");
    let mut mask = vec![true; game.actions()];
    game.legal_mask(&step.state, &mut mask);
    assert!(mask.iter().all(|&m| !m), "black to move: no white moves");
}

#[test]
fn a_dqn_learns_the_same_with_its_targets_on_a_helper_thread_or_not() {
    let learn = |rng_seed: u64| {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(rng_seed);
        let (mut dqn, _) = small_dqn(4, 16, ACTIONS, 8, &mut rng);
        for i in 0..40 {
            dqn.learn(
                transition(i % ACTIONS, (i % 3) as f32, i % 7 == 6),
                &mut rng,
            );
        }
        dqn.weights()
    };
    // Inside a thread pool a DQN gets no helper thread; outside it does (2+ cores).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let alone = pool.install(|| learn(9));
    assert_eq!(learn(9), alone);
    assert_ne!(learn(10), alone, "the weights depend on the seed");
}

#[test]
fn dqn_and_actor_critic_constructors_refuse_settings_out_of_range() {
    let layers =
        crate::init::uniform_layers(&[4, 8, 8], &mut rand_chacha::ChaCha8Rng::seed_from_u64(0));
    let device = Device::flex().autodiff();
    let study = DqnConfig {
        sizes: vec![4, 8, 8],
        ..DqnConfig::default()
    };
    for (config, named) in [
        (
            DqnConfig {
                lr: -1.0,
                ..study.clone()
            },
            "lr",
        ),
        (
            DqnConfig {
                gamma: 2.0,
                ..study.clone()
            },
            "gamma",
        ),
        (
            DqnConfig {
                replay_capacity: 64,
                ..study.clone()
            },
            "replay_capacity",
        ),
        (
            DqnConfig {
                target_sync_steps: 0,
                ..study.clone()
            },
            "target_sync_steps",
        ),
    ] {
        let error = Dqn::new(config, device.clone(), &layers).err().unwrap();
        assert!(
            matches!(&error, AgentError::Setting(text) if text.starts_with(named)),
            "{error}"
        );
    }
    assert!(Dqn::new(study, device.clone(), &layers).is_ok());
    let critic =
        crate::init::uniform_layers(&[4, 8, 1], &mut rand_chacha::ChaCha8Rng::seed_from_u64(1));
    for (config, named) in [
        (
            ActorCriticConfig {
                actor_lr: 0.0,
                ..ActorCriticConfig::default()
            },
            "actor_lr",
        ),
        (
            ActorCriticConfig {
                critic_lr: f64::NAN,
                ..ActorCriticConfig::default()
            },
            "critic_lr",
        ),
        (
            ActorCriticConfig {
                gamma: -0.1,
                ..ActorCriticConfig::default()
            },
            "gamma",
        ),
    ] {
        let error = ActorCritic::new(config, device.clone(), &layers, &critic)
            .err()
            .unwrap();
        assert!(
            matches!(&error, AgentError::Setting(text) if text.starts_with(named)),
            "{error}"
        );
    }
}
