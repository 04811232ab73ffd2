//! The afterstate learner's move values, targets, update and adjudication on
//! hand-made positions, with networks whose output is known exactly.

use burn::tensor::Device;
use burnmate_encode::side_to_move::{FEATURES, encode};
use burnmate_env::selfplay::{FullGame, GameEnd};
use burnmate_models::LayerWeights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color};

use super::evaluate::{EvaluationGame, LearnerResult, score};
use super::rewards::{MATE, move_reward};
use super::rows::EncodedRows;
use super::trainer::{AfterstateConfig, AfterstateLearner};
use super::value_net::ValueNet;
use crate::error::AgentError;
use crate::host_memory::host;

const GAMMA: f32 = 0.9;

fn config() -> AfterstateConfig {
    AfterstateConfig {
        gamma: GAMMA,
        epsilon_start: 1.0,
        epsilon_end: 0.1,
        epsilon_games: 10,
        max_plies: 200,
        envs: 1,
        batch_size: 4,
        replay_capacity: 100,
        updates_per_step: 1,
    }
}

/// A linear network with zero weights: `V = bias` everywhere.
fn constant_net(bias: f32, lr: f64) -> ValueNet {
    let layers = [LayerWeights {
        inputs: FEATURES,
        outputs: 1,
        weight: vec![0.0; FEATURES],
        bias: vec![bias],
    }];
    ValueNet::new(&layers, lr, Device::flex().autodiff()).unwrap()
}

fn game(fen: &str) -> FullGame {
    FullGame::from_position(burnmate_env::fen::position(fen).unwrap(), 200)
}

fn q_of(learner: &AfterstateLearner, game: &FullGame, uci: &str) -> f32 {
    let target = uci
        .parse::<UciMove>()
        .unwrap()
        .to_move(game.position())
        .unwrap();
    let moves = learner.move_values(&[game]).pop().unwrap();
    moves.iter().find(|m| m.mv == target).unwrap().q
}

fn best(learner: &AfterstateLearner, game: &FullGame) -> String {
    let mv = learner.best_move(game).unwrap().mv;
    mv.to_uci(CastlingMode::Standard).to_string()
}

#[test]
fn a_move_is_worth_its_material_minus_the_discounted_value_of_the_reply_position() {
    let learner = AfterstateLearner::new(config(), constant_net(0.5, 1e-3)).unwrap();
    // White: Qxd8 wins a queen, e2e4 is quiet, Qd1d7 (a queen move) is quiet too.
    let g = game("3qk3/8/8/8/8/8/4P3/3QK3 w - - 0 1");
    assert!((q_of(&learner, &g, "d1d8") - (0.9 - GAMMA * 0.5)).abs() < 1e-6);
    assert!((q_of(&learner, &g, "e2e4") - (0.0 - GAMMA * 0.5)).abs() < 1e-6);
    assert_eq!(best(&learner, &g), "d1d8");
}

#[test]
fn a_mate_is_worth_the_mate_reward_and_ends_the_bootstrap() {
    let learner = AfterstateLearner::new(config(), constant_net(0.5, 1e-3)).unwrap();
    // Back-rank mate Ra8#, or win the h7 pawn first.
    let g = game("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert_eq!(q_of(&learner, &g, "a1a8"), MATE);
    assert_eq!(best(&learner, &g), "a1a8");
    // A stalemating capture ends the game: its material, no bootstrap.
    let g = game("k7/2Q5/8/8/8/8/8/6Kr w - - 0 1");
    assert!((q_of(&learner, &g, "g1h1") - 0.5).abs() < 1e-6);
    assert_eq!(
        g.after(
            &"g1h1"
                .parse::<UciMove>()
                .unwrap()
                .to_move(g.position())
                .unwrap()
        )
        .1,
        Some(GameEnd::Stalemate)
    );
}

#[test]
fn a_promotion_earns_the_new_piece_minus_the_pawn() {
    let g = game("7k/3P4/8/8/8/8/8/K7 w - - 0 1");
    let reward = |uci: &str| {
        let mv = uci
            .parse::<UciMove>()
            .unwrap()
            .to_move(g.position())
            .unwrap();
        move_reward(&mv, g.after(&mv).1)
    };
    assert!((reward("d7d8q") - 0.8).abs() < 1e-6);
    assert!((reward("d7d8n") - 0.2).abs() < 1e-6);
}

#[test]
fn one_update_moves_every_active_weight_by_the_learning_rate_toward_the_target() {
    // Adam's first step is lr * g / (|g| + eps): each parameter with a gradient moves
    // by lr, so V(s) rises by lr * (1 + sum of the inputs) toward a higher target.
    let lr = 1e-3;
    let mut net = constant_net(0.0, lr);
    let position = Chess::default();
    let mut row = vec![0.0; FEATURES];
    encode(&position, &mut row);
    let inputs: f32 = row.iter().sum();
    assert_eq!(inputs, 32.0);
    let loss = host(net.update(EncodedRows::Dense(row.clone()), vec![1.0]))[0];
    assert!((loss - 1.0).abs() < 1e-6, "loss before the step: (0 - 1)^2");
    let after = net.values(EncodedRows::Dense(row))[0];
    assert!((after - lr as f32 * (1.0 + inputs)).abs() < 1e-5, "{after}");
}

#[test]
fn training_stores_each_position_with_the_value_of_its_best_move() {
    let mut learner = AfterstateLearner::new(
        AfterstateConfig {
            max_plies: 2,
            batch_size: 100,
            ..config()
        },
        constant_net(0.25, 1e-3),
    )
    .unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut records = Vec::new();
    learner.train(2, &mut rng, |r| records.push(r));
    assert_eq!(records.len(), 2);
    assert!(
        records
            .iter()
            .all(|r| r.plies == 2 && r.end == GameEnd::Cap)
    );
    let state = learner.snapshot().unwrap();
    assert_eq!(state.games, 2);
    assert_eq!(
        state.replay.len(),
        4,
        "two positions per game, no update yet"
    );
    // No capture is possible in the first two plies: every target is -gamma * 0.25.
    for (_, target) in &state.replay {
        assert!((target + GAMMA * 0.25).abs() < 1e-6);
    }
    assert!(
        state.replay[0]
            .0
            .starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w")
    );
}

#[test]
fn exploration_decays_linearly_to_its_floor() {
    let c = config();
    assert_eq!(c.epsilon(0), 1.0);
    assert!((c.epsilon(5) - 0.55).abs() < 1e-12);
    assert!((c.epsilon(10) - 0.1).abs() < 1e-12);
    assert!((c.epsilon(1000) - 0.1).abs() < 1e-12);
    // No decay period: the floor from the first game.
    let at_once = AfterstateConfig {
        epsilon_games: 0,
        ..config()
    };
    assert_eq!(at_once.epsilon(0), 0.1);
}

#[test]
fn a_learner_with_no_games_side_by_side_or_a_replay_smaller_than_a_batch_is_refused() {
    for (bad, named) in [
        (
            AfterstateConfig {
                envs: 0,
                ..config()
            },
            "envs (0)",
        ),
        (
            AfterstateConfig {
                replay_capacity: 3,
                ..config()
            },
            "replay_capacity (3)",
        ),
        (
            AfterstateConfig {
                gamma: 1.5,
                ..config()
            },
            "gamma",
        ),
        (
            AfterstateConfig {
                epsilon_end: -0.1,
                ..config()
            },
            "epsilon_end",
        ),
    ] {
        let error = AfterstateLearner::new(bad, constant_net(0.0, 1e-3))
            .err()
            .unwrap();
        assert!(
            matches!(&error, AgentError::Setting(text) if text.starts_with(named)),
            "{error}"
        );
    }
}

#[test]
fn a_restored_learner_continues_exactly() {
    let mut a = AfterstateLearner::new(config(), constant_net(0.0, 1e-2)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    a.train(1, &mut rng, |_| {});
    let state = a.snapshot().unwrap();
    let net = ValueNet::restore(&state.net, 1e-2, Device::flex().autodiff()).unwrap();
    let mut b = AfterstateLearner::restore(config(), net, &state).unwrap();
    let mut rng_b = rng.clone();
    a.train(1, &mut rng, |_| {});
    b.train(1, &mut rng_b, |_| {});
    assert!(a.net().weights() == b.net().weights(), "weights differ");
    // (Adam records are compared through their effect: their byte order follows a
    // hash map.)
    let (sa, sb) = (a.snapshot().unwrap(), b.snapshot().unwrap());
    assert!(sa.replay == sb.replay && sa.replay_next == sb.replay_next);
    assert_eq!(sa.games, 2);
}

#[test]
fn results_are_adjudicated_by_mate_or_a_lead_of_three_at_the_cap() {
    let o = |end, winner, lead| EvaluationGame {
        agent: Color::Black,
        end,
        winner,
        plies: 10,
        lead,
        moves: Vec::new(),
    };
    let games = [
        o(GameEnd::Checkmate, Some(Color::Black), -5.0),
        o(GameEnd::Checkmate, Some(Color::White), 9.0),
        o(GameEnd::Cap, None, 3.0),
        o(GameEnd::Cap, None, 2.0),
        o(GameEnd::Cap, None, -3.0),
        o(GameEnd::Repetition, None, 9.0),
    ];
    let verdicts: Vec<LearnerResult> = games.iter().map(EvaluationGame::verdict).collect();
    use LearnerResult::*;
    assert_eq!(verdicts, [Win, Loss, Win, Draw, Loss, Draw]);
    let s = score(&games);
    assert_eq!(
        (s.games, s.wins, s.mates, s.draws, s.losses),
        (6, 2, 1, 2, 2)
    );
    assert!((s.score - 0.5).abs() < 1e-12);
}

#[test]
fn a_two_ply_search_sees_the_recapture_that_one_ply_misses() {
    // V = 0 everywhere: one ply values a move by its material alone, two plies
    // subtract the discounted best reply. Qxd5 wins a pawn (0.1) and loses the queen
    // to exd5 (0.9): 0.1 - 0.9 * 0.9 = -0.71.
    let learner = AfterstateLearner::new(config(), constant_net(0.0, 0.0)).unwrap();
    let g = game("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1");
    assert_eq!(best(&learner, &g), "d1d5");
    let two_ply = learner.search_values(&[&g], 2).pop().unwrap();
    let q = |uci: &str| {
        let mv = uci
            .parse::<UciMove>()
            .unwrap()
            .to_move(g.position())
            .unwrap();
        two_ply.iter().find(|m| m.mv == mv).unwrap().q
    };
    assert!(
        (q("d1d5") - (0.1 - GAMMA * 0.9)).abs() < 1e-6,
        "{}",
        q("d1d5")
    );
    assert_eq!(q("d1d3"), 0.0);
    let top = two_ply.iter().map(|m| m.q).fold(f32::MIN, f32::max);
    assert_eq!(top, 0.0);
    // One ply through the search is the plain move values.
    assert_eq!(learner.search_values(&[&g], 1), learner.move_values(&[&g]));
}
