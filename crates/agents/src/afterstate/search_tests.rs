//! The play-time search on the afterstate values: the host network against the tensor
//! forward pass, alpha-beta against a plain negamax of the same recursion, mates and
//! a recapture seen on hand-made positions.

use burn::tensor::Device;
use burnmate_encode::side_to_move::{FEATURES, encode};
use burnmate_env::selfplay::GameEnd;
use burnmate_models::LayerWeights;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::alpha_beta::{QUIESCENCE_PLIES, SearchLimit, search, search_until};
use super::host_value::HostValueNet;
use super::rewards::{MATE, move_reward};
use super::rows::EncodedRows;
use super::value_net::ValueNet;

const GAMMA: f32 = 0.9;

fn position(fen: &str) -> Chess {
    burnmate_env::fen::position(fen).unwrap()
}

fn uci(p: &Chess, text: &str) -> Move {
    text.parse::<UciMove>().unwrap().to_move(p).unwrap()
}

/// A seeded random MLP `FEATURES -> hidden.. -> 1`, weights in [-scale, scale].
fn random_layers(hidden: &[usize], scale: f32, seed: u64) -> Vec<LayerWeights> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut sizes = vec![FEATURES];
    sizes.extend_from_slice(hidden);
    sizes.push(1);
    sizes
        .windows(2)
        .map(|w| LayerWeights {
            inputs: w[0],
            outputs: w[1],
            weight: (0..w[0] * w[1])
                .map(|_| rng.random_range(-scale..scale))
                .collect(),
            bias: (0..w[1]).map(|_| rng.random_range(-scale..scale)).collect(),
        })
        .collect()
}

/// `V = 0` everywhere.
fn zero_net() -> HostValueNet {
    HostValueNet::new(vec![LayerWeights {
        inputs: FEATURES,
        outputs: 1,
        weight: vec![0.0; FEATURES],
        bias: vec![0.0],
    }])
}

/// Quiescence plies of the plain negamax comparison (full width is exponential).
const TEST_QUIESCENCE: u32 = 4;

fn limit(depth: u32) -> SearchLimit {
    SearchLimit {
        depth,
        quiescence: QUIESCENCE_PLIES,
        nodes: u64::MAX,
        time: None,
    }
}

const MIDDLEGAMES: [&str; 4] = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "r2q1rk1/ppp2ppp/2np1n2/2b1p1B1/2B1P1b1/2NP1N2/PPP2PPP/R2Q1RK1 w - - 6 8",
    "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 0 3",
    "4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1",
];

#[test]
fn the_host_network_computes_the_tensor_forward_pass() {
    let layers = random_layers(&[16, 8], 0.2, 7);
    let tensor = ValueNet::new(&layers, 0.0, Device::flex().autodiff()).unwrap();
    let host = HostValueNet::new(layers);
    assert_eq!(host.inputs(), FEATURES);
    let mut rows = Vec::new();
    for fen in MIDDLEGAMES {
        let mut row = vec![0.0; FEATURES];
        encode(&position(fen), &mut row);
        rows.extend(row);
    }
    let expected = tensor.values(EncodedRows::Dense(rows.clone()));
    for (row, want) in rows.chunks(FEATURES).zip(expected) {
        let got = host.value(row);
        assert!((got - want).abs() < 1e-5, "host {got} vs tensor {want}");
    }
}

/// The search's recursion without pruning, ordering or iterative deepening.
fn negamax(net: &HostValueNet, s: &Chess, depth: u32, quiet: u32) -> f32 {
    let mut best = f32::NEG_INFINITY;
    let mut moves = s.legal_moves();
    if depth == 0 && (!s.is_check() || quiet >= TEST_QUIESCENCE) {
        let mut row = vec![0.0; FEATURES];
        encode(s, &mut row);
        best = net.value(&row);
        if quiet >= TEST_QUIESCENCE {
            return best;
        }
        moves.retain(|m| m.is_capture() || m.is_promotion());
    }
    let next_quiet = if depth == 0 { quiet + 1 } else { 0 };
    for m in &moves {
        best = best.max(plain_move_value(
            net,
            s,
            m,
            depth.saturating_sub(1),
            next_quiet,
        ));
    }
    best
}

/// `r(m) - gamma * negamax(s_m)`, or `r(m)` when `m` ends the game.
fn plain_move_value(net: &HostValueNet, s: &Chess, m: &Move, depth: u32, quiet: u32) -> f32 {
    let mut child = s.clone();
    child.play_unchecked(*m);
    let end = match (child.legal_moves().is_empty(), child.is_check()) {
        (true, true) => Some(GameEnd::Checkmate),
        (true, false) => Some(GameEnd::Stalemate),
        _ if child.is_insufficient_material() => Some(GameEnd::InsufficientMaterial),
        _ => None,
    };
    let r = move_reward(m, end);
    match end {
        Some(_) => r,
        None => r - GAMMA * negamax(net, &child, depth, quiet),
    }
}

#[test]
fn alpha_beta_returns_the_plain_negamax_value() {
    // Pruning and move ordering change which lines are searched, never the root's
    // value: every depth of a seeded random network, on four positions.
    let net = HostValueNet::new(random_layers(&[8], 0.3, 11));
    for fen in MIDDLEGAMES {
        let p = position(fen);
        for depth in 1..=2 {
            let shallow = SearchLimit {
                quiescence: TEST_QUIESCENCE,
                ..limit(depth)
            };
            let answer = search(&net, GAMMA, &p, &[], shallow).unwrap();
            let plain = negamax(&net, &p, depth, 0);
            assert!(
                (answer.value - plain).abs() < 1e-5,
                "{fen} depth {depth}: alpha-beta {} vs negamax {plain}",
                answer.value
            );
            assert_eq!(answer.depth, depth);
            let best_value = plain_move_value(&net, &p, &answer.best, depth - 1, 0);
            assert!(
                (best_value - plain).abs() < 1e-5,
                "{fen}: the move is not the best"
            );
        }
    }
}

#[test]
fn alpha_beta_mates_in_one_and_in_two() {
    let net = zero_net();
    let back_rank = position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    let mate = search(&net, GAMMA, &back_rank, &[], limit(2)).unwrap();
    assert_eq!((mate.best, mate.value), (uci(&back_rank, "a1a8"), MATE));
    // KRK: 1. Kc7 Ka7 2. Ra1# (no mate in one); with V = 0 a mate in two is worth
    // gamma^2 * MATE, and every reply to the chosen move allows a mate in one.
    let krk = position("k7/8/2K5/8/8/8/8/1R6 w - - 0 1");
    let two = search(&net, GAMMA, &krk, &[], limit(3)).unwrap();
    assert!(
        (two.value - GAMMA * GAMMA * MATE).abs() < 1e-6,
        "{}",
        two.value
    );
    let mut after = krk.clone();
    after.play_unchecked(two.best);
    for reply in after.legal_moves() {
        let mut p = after.clone();
        p.play_unchecked(reply);
        assert_eq!(search(&net, GAMMA, &p, &[], limit(1)).unwrap().value, MATE);
    }
}

#[test]
fn quiescence_sees_the_recapture_and_a_budget_keeps_a_finished_depth() {
    // V = 0: Qxd5 wins a pawn (0.1) but exd5 takes the queen (0.9), which quiescence
    // sees at depth 1: 0.1 - 0.9 * 0.9 < 0, so a quiet move (0) is best.
    let net = zero_net();
    let p = position("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1");
    let answer = search(&net, GAMMA, &p, &[], limit(1)).unwrap();
    assert_eq!(answer.value, 0.0);
    assert_ne!(answer.best, uci(&p, "d1d5"));
    let only = [uci(&p, "d1d5")];
    let forced = search(&net, GAMMA, &p, &only, limit(1)).unwrap();
    assert!((forced.value - (0.1 - GAMMA * 0.9)).abs() < 1e-6);
    // A node budget stops deepening but keeps the deepest finished iteration.
    let capped = SearchLimit {
        depth: 20,
        nodes: 50,
        ..limit(1)
    };
    let answer = search(&net, GAMMA, &p, &[], capped).unwrap();
    assert!(answer.depth >= 1 && answer.depth < 20, "{}", answer.depth);
    assert!(
        search(
            &net,
            GAMMA,
            &position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
            &[],
            limit(2)
        )
        .is_none()
    );
}

#[test]
fn a_raised_stop_keeps_the_first_finished_depth_of_an_endless_search() {
    let net = HostValueNet::new(random_layers(&[16], 0.1, 5));
    let p = position(MIDDLEGAMES[1]);
    let endless = SearchLimit {
        depth: 64,
        ..limit(1)
    };
    let stop = std::sync::atomic::AtomicBool::new(true);
    let stopped = search_until(&net, GAMMA, &p, &[], endless, &stop).unwrap();
    let depth_one = search(&net, GAMMA, &p, &[], limit(1)).unwrap();
    assert_eq!(stopped.depth, 1);
    assert_eq!(
        (stopped.best, stopped.value),
        (depth_one.best, depth_one.value)
    );
}
