//! The selector update, the self-play loop's bookkeeping and the fixed movers.

use burn::tensor::Device;
use burnmate_encode::selfplay::{FEATURES, encode};
use burnmate_env::selfplay::FullGame;
use burnmate_models::SelectorPadding;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Board, Chess, Color, Position, Square};

use super::choice::{Combine, SelectorMove, masks, pseudo_legal_moves, selectable_moves};
use super::net::{AdamMode, NetConfig, SELECTORS, SelectorSample, SelectorSet, initial_weights};
use super::trainer::{
    GameEndRule, Mover, SelfPlay, SelfPlayTrainerConfig, StepPenalty, UpdateOrder, end_rewards,
    mover_choice,
};

fn net_config(adam: AdamMode) -> NetConfig {
    NetConfig {
        padding: SelectorPadding::Valid,
        lr: 0.01,
        adam,
        bucket_batches: false,
    }
}

fn side(seed: u64, adam: AdamMode) -> SelectorSet {
    side_with(seed, net_config(adam))
}

fn side_with(seed: u64, config: NetConfig) -> SelectorSet {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let weights: Vec<_> = (0..SELECTORS)
        .map(|_| initial_weights(SelectorPadding::Valid, &mut rng))
        .collect();
    SelectorSet::new(config, Device::flex().autodiff(), &weights).unwrap()
}

fn start_transition(target: f32) -> SelectorSample {
    let position = Chess::default();
    let moves = selectable_moves(&position);
    let (piece_mask, move_masks) = masks(&position, &moves);
    let mut board = vec![0.0; FEATURES];
    encode(&Board::default(), &mut board);
    SelectorSample {
        board,
        piece_mask,
        move_masks,
        from: usize::from(Square::G1),
        to: usize::from(Square::F3),
        role: 1,
        piece_target: target,
        move_target: target,
    }
}

fn self_play(envs: usize) -> SelfPlay {
    let config = SelfPlayTrainerConfig {
        gamma: 0.99,
        penalty: StepPenalty::EveryMove,
        combine: Combine::Reference,
        epsilon: 0.1,
        max_plies: 30,
        envs,
        order: UpdateOrder::UpdateThenChoose,
        game_end: GameEndRule::Reference,
    };
    SelfPlay::new(
        config,
        side(1, AdamMode::Reference),
        side(2, AdamMode::Reference),
    )
    .unwrap()
}

#[test]
fn self_play_with_no_games_side_by_side_is_refused() {
    let config = SelfPlayTrainerConfig {
        envs: 0,
        ..self_play(1).config()
    };
    let error = SelfPlay::new(
        config,
        side(1, AdamMode::Reference),
        side(2, AdamMode::Reference),
    )
    .err()
    .unwrap();
    assert_eq!(
        error.to_string(),
        "envs (0) and max_plies (30) must be positive"
    );
}

#[test]
fn an_update_pulls_the_chosen_outputs_towards_their_targets_and_masked_ones_to_zero() {
    let mut set = side(0, AdamMode::Persistent);
    let t = start_transition(5.0);
    let before = set.values(t.board.clone(), 1);
    for _ in 0..30 {
        set.update(std::slice::from_ref(&t));
    }
    let after = set.values(t.board.clone(), 1);
    let g1 = usize::from(Square::G1);
    let f3 = usize::from(Square::F3);
    assert!(
        (after.piece(0)[g1] - 5.0).abs() < (before.piece(0)[g1] - 5.0).abs() - 1.0,
        "piece value at g1: {} -> {}",
        before.piece(0)[g1],
        after.piece(0)[g1]
    );
    assert!((after.moves(0, 1)[f3] - 5.0).abs() < (before.moves(0, 1)[f3] - 5.0).abs() - 1.0);
}

#[test]
fn the_update_loss_pulls_masked_out_outputs_to_zero_and_the_chosen_one_to_its_target() {
    // Every selector outputs 0.5 on every square (tiny convolutions, output bias 0.5).
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let weights: Vec<_> = (0..SELECTORS)
        .map(|_| {
            let mut w = initial_weights(SelectorPadding::Valid, &mut rng);
            w.output.bias = vec![0.5; 64];
            w
        })
        .collect();
    let config = net_config(AdamMode::Reference);
    let mut set = SelectorSet::new(config, Device::flex().autodiff(), &weights).unwrap();
    let t = start_transition(5.0);
    let values = set.values(t.board.clone(), 1);
    assert!((values.piece(0)[0] - 0.5).abs() < 1e-5);
    let loss = set
        .update(std::slice::from_ref(&t))
        .into_data()
        .try_to_vec::<f32>()
        .unwrap()[0];
    // Per selector: mean over 64 squares of (output - goal)^2, with goal 0 off the
    // mask, the output itself on the mask, the target at the chosen square (Ng1-f3).
    // piece: 48 empty-or-enemy squares and g1 -> 5: 48 * 0.25 + 4.5^2 = 32.25
    // pawn moves: 16 destinations, 48 off: 12; knight moves: a3 c3 f3 h3, 60 off and
    // f3 -> 5: 15 + 20.25; bishop, rook, queen, king: no destination, 64 off: 16 each.
    let want = (32.25 + 12.0 + 35.25 + 4.0 * 16.0) / 64.0;
    assert!((loss - want).abs() < 1e-4, "loss {loss}, want {want}");
}

#[test]
fn padded_batches_give_the_same_values_and_updates() {
    let transitions = [
        start_transition(5.0),
        start_transition(-3.0),
        start_transition(1.0),
    ];
    let mut plain = side(0, AdamMode::Persistent);
    let mut padded = side_with(
        0,
        NetConfig {
            bucket_batches: true,
            ..net_config(AdamMode::Persistent)
        },
    );
    for _ in 0..3 {
        plain.update(&transitions);
        padded.update(&transitions);
    }
    let boards: Vec<f32> = transitions.iter().flat_map(|t| t.board.clone()).collect();
    let (a, b) = (plain.values(boards.clone(), 3), padded.values(boards, 3));
    for i in 0..3 {
        for (x, y) in a.piece(i).iter().zip(b.piece(i)) {
            assert!((x - y).abs() < 1e-4, "{x} vs {y}");
        }
        for (x, y) in a.moves(i, 1).iter().zip(b.moves(i, 1)) {
            assert!((x - y).abs() < 1e-4, "{x} vs {y}");
        }
    }
}

#[test]
fn a_fresh_adam_step_is_the_learning_rate_for_large_gradients_and_linear_for_tiny_ones() {
    // The first step of a fresh Adam is lr * g / (|g| + 1e-8). With the study's
    // initialisation every output starts near 1e-22: the chosen square (g1, pulled
    // to 5) has a gradient far above 1e-8 and moves by lr = 0.01; the masked-out
    // squares, pulled to 0 from 1e-22, have gradients far below it and barely move.
    let mut set = side(0, AdamMode::Reference);
    let before = set.weights();
    set.update(&[start_transition(5.0)]);
    let after = set.weights();
    let step = |square: usize| (after[0].output.bias[square] - before[0].output.bias[square]).abs();
    let g1 = usize::from(Square::G1);
    assert!((step(g1) - 0.01).abs() < 1e-6, "g1 moved {}", step(g1));
    let e5 = usize::from(Square::E5);
    assert!(step(e5) > 0.0 && step(e5) < 1e-9, "e5 moved {}", step(e5));
}

#[test]
fn games_replay_legally_to_their_recorded_end_for_any_number_of_envs() {
    for envs in [1, 3] {
        let mut play = self_play(envs);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut records = Vec::new();
        play.train(5, &mut rng, |g| records.push(g));
        assert_eq!(records.len(), 5);
        for record in &records {
            let mut game = FullGame::new(30);
            let mut end = None;
            for m in &record.moves {
                assert!(game.position().is_legal(*m));
                end = game.play(*m);
            }
            assert_eq!(end, Some(record.end));
            assert_eq!(game.plies(), record.plies);
            assert_eq!(game.winner(), record.winner);
        }
        assert!(play.side(Color::White).updates() > 0);
        assert!(play.side(Color::Black).updates() > 0);
    }
}

#[test]
fn the_same_seed_plays_the_same_games() {
    let run = || {
        let mut play = self_play(2);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut records = Vec::new();
        play.train(4, &mut rng, |g| records.push(g));
        records
    };
    assert_eq!(run(), run());
}

/// The side's greedy choice in `position` (no exploration) and its piece and move
/// values, computed directly.
fn greedy_choice(side: &SelectorSet, position: &Chess) -> (SelectorMove, f32, f32) {
    let mut board = vec![0.0; FEATURES];
    encode(position.board(), &mut board);
    let values = side.values(board, 1);
    let moves = selectable_moves(position);
    let move_values: [&[f32]; 6] = std::array::from_fn(|r| values.moves(0, r));
    let m = moves[super::choice::choose(&moves, values.piece(0), &move_values, Combine::Reference)];
    (m, values.piece(0)[m.from], values.moves(0, m.role)[m.to])
}

/// The frozen side's greedy move in `position`.
fn greedy_move(side: &SelectorSet, position: &Chess) -> shakmaty::Move {
    greedy_choice(side, position).0.mv
}

/// The transition of playing `chosen` in `position`, with both targets `targets`.
fn transition(position: &Chess, chosen: SelectorMove, targets: (f32, f32)) -> SelectorSample {
    let moves = selectable_moves(position);
    let (piece_mask, move_masks) = masks(position, &moves);
    let mut board = vec![0.0; FEATURES];
    encode(position.board(), &mut board);
    SelectorSample {
        board,
        piece_mask,
        move_masks,
        from: chosen.from,
        to: chosen.to,
        role: chosen.role,
        piece_target: targets.0,
        move_target: targets.1,
    }
}

/// The moves of one greedy training game of `max_plies`, and the white side after it.
fn one_game(
    max_plies: u32,
    order: UpdateOrder,
    game_end: GameEndRule,
) -> (Vec<shakmaty::Move>, SelectorSet) {
    let config = SelfPlayTrainerConfig {
        epsilon: 0.0,
        max_plies,
        envs: 1,
        order,
        game_end,
        ..self_play(1).config()
    };
    let mut play = SelfPlay::new(
        config,
        side(1, AdamMode::Reference),
        side(2, AdamMode::Reference),
    )
    .unwrap();
    let mut records = Vec::new();
    play.train(1, &mut ChaCha8Rng::seed_from_u64(0), |g| records.push(g));
    let [white, _] = play.into_sides();
    (records.remove(0).moves, white)
}

#[test]
fn the_study_updates_the_previous_move_before_choosing_the_next() {
    let (white, black) = (side(1, AdamMode::Reference), side(2, AdamMode::Reference));
    let start = Chess::default();
    let (w1, _, _) = greedy_choice(&white, &start);
    let after_w1 = start.clone().play(w1.mv).unwrap();
    let b1 = greedy_move(&black, &after_w1);
    let p2 = after_w1.play(b1).unwrap();
    // White's first move, closed by black's reply: reward 0 - 0 - 0.1, bootstrapped
    // from white's greedy choice at p2 under the selectors of before the update.
    let (before, piece, mv) = greedy_choice(&white, &p2);
    let mut updated = side(1, AdamMode::Reference);
    updated.update(&[transition(
        &start,
        w1,
        (-0.1 + 0.99 * piece, -0.1 + 0.99 * mv),
    )]);
    let after = greedy_move(&updated, &p2);
    assert_ne!(
        before.mv, after,
        "the update must change white's choice, or this test tells nothing"
    );
    let (moves, _) = one_game(3, UpdateOrder::UpdateThenChoose, GameEndRule::Reference);
    assert_eq!(moves, [w1.mv, b1, after]);
    let (moves, _) = one_game(3, UpdateOrder::ChooseThenUpdate, GameEndRule::Reference);
    assert_eq!(moves, [w1.mv, b1, before.mv]);
}

#[test]
fn the_study_bootstraps_the_last_move_from_the_final_position() {
    // One ply: white moves and the cap ends the game. The study's target is the
    // move's capture (0) + 0.99 * white's greedy values over its pseudo-legal moves
    // in the final position; the terminal rule's target is 0.
    let white = side(1, AdamMode::Reference);
    let start = Chess::default();
    let (w1, _, _) = greedy_choice(&white, &start);
    let end = start.clone().play(w1.mv).unwrap();
    let mut board = vec![0.0; FEATURES];
    encode(end.board(), &mut board);
    let values = white.values(board, 1);
    let moves = pseudo_legal_moves(end.board(), Color::White);
    let move_values: [&[f32]; 6] = std::array::from_fn(|r| values.moves(0, r));
    let g = moves[super::choice::choose(&moves, values.piece(0), &move_values, Combine::Reference)];
    let bootstrap = (
        0.99 * values.piece(0)[g.from],
        0.99 * values.moves(0, g.role)[g.to],
    );
    assert!(bootstrap.0 != 0.0 && bootstrap.1 != 0.0);
    let updated = |targets| {
        let mut expected = side(1, AdamMode::Reference);
        expected.update(&[transition(&start, w1, targets)]);
        expected.weights()
    };
    let (with_bootstrap, without) = (updated(bootstrap), updated((0.0, 0.0)));
    assert!(
        with_bootstrap != without,
        "the bootstrap must show in the weights"
    );
    let (_, trained) = one_game(1, UpdateOrder::UpdateThenChoose, GameEndRule::Reference);
    assert!(trained.weights() == with_bootstrap);
    let (_, trained) = one_game(1, UpdateOrder::UpdateThenChoose, GameEndRule::Terminal);
    assert!(trained.weights() == without);
}

#[test]
fn the_study_gives_the_loser_minus_the_last_capture_and_nothing_else() {
    // Mate, the loser's last move had taken a rook (5).
    assert_eq!(
        end_rewards(GameEndRule::Reference, true, 0.0, 5.0),
        (255.0, -255.0)
    );
    assert_eq!(
        end_rewards(GameEndRule::Terminal, true, 0.0, 5.0),
        (255.0, -250.0)
    );
    // The cap, the last move took a pawn, the other side's a queen.
    assert_eq!(
        end_rewards(GameEndRule::Reference, false, 1.0, 9.0),
        (1.0, -1.0)
    );
    assert_eq!(
        end_rewards(GameEndRule::Terminal, false, 1.0, 9.0),
        (1.0, 8.0)
    );
}

#[test]
fn evaluation_alternates_colours_and_the_frozen_sides_play_greedily() {
    let play = self_play(1);
    let start = Chess::default();
    let white_first = greedy_move(play.side(Color::White), &start);
    // The opponent always plays its last legal move, which is not the learner's.
    let opponent_move = |position: &Chess| selectable_moves(position).last().unwrap().mv;
    assert_ne!(opponent_move(&start), white_first);
    let results = play
        .evaluate_against(6, |position| {
            Ok::<_, std::convert::Infallible>(opponent_move(position))
        })
        .unwrap();
    assert_eq!(results.len(), 6);
    let colours: Vec<Color> = results.iter().map(|(c, _)| *c).collect();
    use Color::{Black, White};
    assert_eq!(colours, [White, Black, White, Black, White, Black]);
    for (colour, record) in &results {
        match colour {
            White => assert_eq!(record.moves[0], white_first),
            Black => {
                assert_eq!(record.moves[0], opponent_move(&start));
                let after = start.clone().play(record.moves[0]).unwrap();
                assert_eq!(record.moves[1], greedy_move(play.side(Black), &after));
            }
        }
    }
}

#[test]
fn the_greedy_mover_mates_in_one_and_otherwise_takes_the_biggest_capture() {
    let position = |fen: &str| -> Chess { burnmate_env::fen::position(fen).unwrap() };
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    // Rook a1 can mate on a8 or take the knight on h1... the mate wins.
    let p = position("6k1/5ppp/8/8/8/8/8/R5Kn w - - 0 1");
    let moves = selectable_moves(&p);
    let i = mover_choice(Mover::Greedy, &p, &moves, &mut rng);
    assert_eq!(moves[i].to, usize::from(Square::A8));
    // Queen takes the rook (5) rather than the pawn (1).
    let p = position("4k3/8/8/3r4/8/1p6/8/3QK3 w - - 0 1");
    let moves = selectable_moves(&p);
    let i = mover_choice(Mover::Greedy, &p, &moves, &mut rng);
    assert_eq!(moves[i].to, usize::from(Square::D5));
}
