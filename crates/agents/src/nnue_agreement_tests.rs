//! The host's incremental evaluation equals its own from-scratch evaluation exactly
//! and the Burn module's forward pass to the quantisation's rounding, along random
//! games that castle, capture en passant, promote, capture and move kings across
//! their buckets.

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::nnue::{KingBuckets, active, output_bucket};
use burnmate_models::{Activation, Nnue};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Move, Position};

use burnmate_engine::evaluate::Evaluator;
use burnmate_engine::nnue::{NnueEvaluator, NnueForm};

/// A random legal move, a special one (castling, en passant, promotion) half the
/// time one is there, a capture a third of the time.
fn pick(position: &Chess, rng: &mut ChaCha8Rng) -> Option<Move> {
    let moves = position.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let special: Vec<&Move> = moves
        .iter()
        .filter(|m| m.is_castle() || m.is_en_passant() || m.is_promotion())
        .collect();
    if !special.is_empty() && rng.random_range(0..2) == 0 {
        return Some(*special[rng.random_range(0..special.len())]);
    }
    let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
    if !captures.is_empty() && rng.random_range(0..3) == 0 {
        return Some(*captures[rng.random_range(0..captures.len())]);
    }
    Some(moves[rng.random_range(0..moves.len())])
}

#[test]
fn incremental_host_evaluation_equals_the_burn_forward_pass_along_random_games() {
    let form = |activation, king_buckets| NnueForm {
        activation,
        king_buckets,
    };
    for form in [
        form(Activation::Crelu, KingBuckets::Plain),
        form(Activation::Screlu, KingBuckets::Mirrored),
        form(Activation::Crelu, KingBuckets::Four),
    ] {
        host_equals_burn_along_random_games(form);
    }
}

/// The largest difference in logits allowed between the quantised host and the f32
/// forward pass (8 centipawns at SCALE 400; 0.010 seen with hidden 32).
const TOLERANCE: f32 = 0.02;

fn host_equals_burn_along_random_games(form: NnueForm) {
    let device = Device::flex();
    let inputs = form.king_buckets.inputs();
    // Eight material buckets: the host must pick the one the module is told.
    let mut net = Nnue::new(inputs, 32, 8, &device);
    if form.king_buckets.blocks() > 1 {
        // A factoriser that is not zero: the host's merged weights must hold it.
        let shared: Vec<f32> = (0..768 * 32)
            .map(|i| (i as f32 * 0.3).cos() * 0.02)
            .collect();
        let shared = Tensor::<2>::from_data(TensorData::new(shared, [768, 32]), &device);
        net.factoriser = Some(burn::module::Param::from_tensor(shared));
    }
    let mut host = NnueEvaluator::new(&net.weights(), form).unwrap();
    let mut from_scratch = host.clone();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (mut positions, mut incremental) = (Vec::new(), Vec::new());
    let mut seen = [0usize; 4]; // castles, en passant, promotions, captures
    let mut changed_views = 0; // king moves that place their side's inputs afresh
    // Every other game starts where en passant is legal (1. e4 d5 2. e5 f5).
    let ep_start: Chess = burnmate_env::fen::position(
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    )
    .unwrap();
    for game in 0..12 {
        let mut position = if game % 2 == 0 {
            Chess::default()
        } else {
            ep_start.clone()
        };
        host.root(&position);
        for _ in 0..160 {
            positions.push(position.clone());
            incremental.push(host.output(&position));
            from_scratch.root(&position);
            assert_eq!(host.output(&position), from_scratch.output(&position));
            let Some(mv) = pick(&position, &mut rng) else {
                break;
            };
            seen[0] += usize::from(mv.is_castle());
            seen[1] += usize::from(mv.is_en_passant());
            seen[2] += usize::from(mv.is_promotion());
            seen[3] += usize::from(mv.is_capture());
            let mover = position.turn();
            let view_before = form.king_buckets.view_of(position.board(), mover);
            host.push(&position, Some(&mv));
            position.play_unchecked(mv);
            let view_after = form.king_buckets.view_of(position.board(), mover);
            changed_views += usize::from(view_before != view_after);
        }
    }
    assert!(
        seen.iter().all(|&n| n >= 3),
        "every kind of move played: {seen:?}"
    );
    assert_eq!(
        changed_views > 0,
        form.king_buckets != KingBuckets::Plain,
        "{form:?}: {changed_views} king moves changed their view"
    );
    let rows = |own: bool| {
        let mut data = vec![0.0f32; positions.len() * inputs];
        for (p, row) in positions.iter().zip(data.chunks_mut(inputs)) {
            let side = if own { p.turn() } else { !p.turn() };
            let view = form.king_buckets.view_of(p.board(), side);
            for f in active(p.board(), side) {
                row[view.input(f)] = 1.0;
            }
        }
        Tensor::<2>::from_data(TensorData::new(data, [positions.len(), inputs]), &device)
    };
    let buckets: Vec<usize> = positions
        .iter()
        .map(|p| output_bucket(p.board().occupied().count(), 8))
        .collect();
    assert!(buckets.iter().any(|&k| k < 7), "games reach fewer pieces");
    let forward: Vec<f32> = net
        .forward(rows(true), rows(false), form.activation, &buckets)
        .into_data()
        .try_into_vec()
        .unwrap();
    let worst = forward
        .iter()
        .zip(&incremental)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    // Weights rounded to 1/255 (transformer) and 1/64 (output): the sums of ~32
    // rounded weights and the output's rounding (see burnmate_engine::quantised).
    assert!(
        worst < TOLERANCE,
        "{form:?}: largest difference {worst} over {} positions",
        positions.len()
    );
    // The output is not constant: the comparison sees the pieces.
    let spread = forward.iter().fold(f32::MIN, |m, &x| m.max(x))
        - forward.iter().fold(f32::MAX, |m, &x| m.min(x));
    assert!(spread > 1e-3, "{spread}");
}

#[test]
fn a_search_on_a_random_net_stays_within_its_node_budget() {
    use burnmate_engine::{Limits, Searcher};
    let weights = crate::nnue_trainer::fresh_weights(
        KingBuckets::Plain,
        8,
        1,
        &mut ChaCha8Rng::seed_from_u64(12),
    );
    let mut searcher = Searcher::new(
        NnueEvaluator::new(&weights, NnueForm::default()).unwrap(),
        1,
    );
    let result = searcher
        .search(&Chess::default(), &[], &[], Limits::nodes(150), |_| {})
        .unwrap();
    assert_eq!(result.nodes, 150);
}

#[test]
fn a_search_on_a_random_net_stops_in_a_position_full_of_captures() {
    // Random play left pieces en prise everywhere: an untrained net's depth 1 once
    // visited 68 million nodes here; the budget now holds inside it.
    use burnmate_engine::{Limits, Searcher};
    // Seeded: an unseeded net made the count depend on the run.
    let weights = crate::nnue_trainer::fresh_weights(
        KingBuckets::Plain,
        8,
        1,
        &mut ChaCha8Rng::seed_from_u64(11),
    );
    let mut searcher = Searcher::new(
        NnueEvaluator::new(&weights, NnueForm::default()).unwrap(),
        1,
    );
    let p: Chess = burnmate_env::fen::position(
        "bn1qkb1r/3r1n1p/1p1p4/p1p2pp1/P1BPpNPP/1PN1PPK1/R1P5/B2Q3R b k d3 0 14",
    )
    .unwrap();
    let result = searcher
        .search(&p, &[], &[], Limits::nodes(150), |_| {})
        .unwrap();
    assert!(result.nodes <= 150, "{}", result.nodes);
    assert!(p.is_legal(result.best));
}
