//! The search itself (perft is shakmaty's): mates with pinned distances, the same
//! answers with each pruning rule off, PVS equal to plain alpha-beta, draws, limits.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::score::{MATE, mate_in_moves};
use super::search::{gives_check, key_of};
use super::*;

fn position(fen: &str) -> Chess {
    burnmate_env::fen::position(fen).expect("a legal FEN")
}

fn best(searcher: &mut Searcher<Material>, fen: &str, depth: u32) -> (String, i32) {
    let result = searcher
        .search(&position(fen), &[], &[], Limits::depth(depth), |_| {})
        .unwrap();
    (
        UciMove::from_standard(result.best).to_string(),
        result.score,
    )
}

fn searcher() -> Searcher<Material> {
    Searcher::new(Material, 4)
}

/// (FEN, the only good move, mate in moves or 0 for a material gain).
const TACTICS: [(&str, &str, i32); 4] = [
    // Back-rank mate.
    ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", 1),
    // Scholar's mate.
    (
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        "h5f7",
        1,
    ),
    // An undefended queen on the rook's file.
    ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5", 0),
    // A knight fork of king and rook.
    ("r3k3/8/8/1N6/8/8/8/4K3 w - - 0 1", "b5c7", 0),
];

#[test]
fn mates_are_found_at_their_pinned_distance_and_tactics_win_material() {
    for (fen, answer, mate) in TACTICS {
        let (mv, score) = best(&mut searcher(), fen, 6);
        assert_eq!(mv, answer, "{fen}");
        if mate > 0 {
            assert_eq!(score, MATE - (2 * mate - 1), "{fen}");
            assert_eq!(mate_in_moves(score), Some(mate));
        } else {
            // The fork's knight may be trapped on a8 later: then bare kings, 0.
            assert!(score >= 0, "{fen}: {score}");
        }
    }
}

/// The default rules with `name` switched the other way.
fn rule_flipped(name: &str) -> Features {
    let names = [name.to_string()];
    let on = Features::switched(&names, &[]).expect("a known rule");
    if on == Features::default() {
        Features::switched(&[], &names).expect("a known rule")
    } else {
        on
    }
}

/// Morphy's problem: 1. Ra6! bxa6 2. b7#. A quiet sacrifice before a quiet mate.
const MORPHY: &str = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1";

#[test]
fn a_quiet_sacrifice_before_a_quiet_mate_is_found_with_each_rule_flipped_but_null_move() {
    // Ra6 is a late quiet move, reduced; black's null move after it can reach
    // quiescence, blind to the quiet b7#. Before quiescence skipped losing captures
    // that hid Ra6 up to depth 9. Now null move (off by default) misses it at depth
    // 6, with the table or without: the captures that lose their exchange (Rxa7) go
    // after the quiet moves, so Ra6 is late enough to be reduced (with null move on,
    // switching off the reductions or the exchange ordering finds it again).
    let all = Features::default();
    for table in [true, false] {
        let mut s = searcher().with_features(Features {
            table,
            null_move: true,
            ..all
        });
        assert_eq!(best(&mut s, MORPHY, 6).0, "b6a7");
    }
    let others = Features::NAMES
        .into_iter()
        .filter(|&name| name != "check-extension" && name != "null-move");
    for features in std::iter::once(all).chain(others.map(rule_flipped)) {
        let mut s = searcher().with_features(features);
        assert_eq!(
            best(&mut s, MORPHY, 6),
            ("a1a6".to_string(), MATE - 3),
            "{features:?}"
        );
    }
}

#[test]
fn mate_scores_stay_exact_through_the_table_at_every_depth() {
    let mut s = searcher();
    for depth in 5..=8 {
        // The table is kept between searches: later ones read mates stored earlier.
        assert_eq!(best(&mut s, MORPHY, depth), ("a1a6".to_string(), MATE - 3));
    }
    // The side that is mated sees the negated distance: after 1. Ra6, 1... bxa6 2. b7#.
    let after = "kbK5/pp6/RP6/8/8/8/8/8 b - - 1 1";
    let (_, score) = best(&mut s, after, 6);
    assert_eq!(score, -(MATE - 2));
    assert_eq!(mate_in_moves(score), Some(-1));
}

#[test]
fn each_rule_switched_off_keeps_the_answers_of_the_tactical_set() {
    let variants = Features::NAMES.map(rule_flipped);
    for features in variants {
        for (fen, answer, _) in TACTICS {
            let mut s = searcher().with_features(features);
            assert_eq!(best(&mut s, fen, 5).0, answer, "{features:?} {fen}");
        }
    }
}

/// A position after `plies` random legal moves from the start.
fn random_position(rng: &mut ChaCha8Rng, plies: usize) -> Chess {
    let mut p = Chess::default();
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.random_range(0..moves.len())];
        p.play_unchecked(m);
    }
    p
}

#[test]
fn pvs_gives_plain_alpha_beta_values_on_random_positions() {
    let exact = Features {
        table: false,
        null_move: false,
        late_move_reductions: false,
        aspiration: false,
        reverse_futility: false,
        futility: false,
        ..Features::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut compared = 0;
    for _ in 0..24 {
        let plies = 10 + rng.random_range(0..30);
        let root = random_position(&mut rng, plies);
        if root.legal_moves().is_empty() {
            continue;
        }
        let mut values = [
            exact,
            Features {
                pvs: false,
                ..exact
            },
        ]
        .map(|f| {
            let mut s = Searcher::new(Material, 1).with_features(f);
            s.search(&root, &[], &[], Limits::depth(3), |_| {})
                .unwrap()
                .score
        });
        values.sort();
        assert_eq!(
            values[0],
            values[1],
            "{}",
            Fen::from_position(&root, shakmaty::EnPassantMode::Legal)
        );
        compared += 1;
    }
    assert!(compared >= 20);
}

#[test]
fn repetitions_and_the_fifty_move_rule_are_draws() {
    // Black, a queen down, can return to a position of the game's history: a draw.
    let root = position("4k3/8/8/8/8/8/8/Q3K3 b - - 6 40");
    let repeated = position("3k4/8/8/8/8/8/8/Q3K3 w - - 7 41");
    let mut s = searcher();
    let result = s
        .search(&root, &[], &[key_of(&repeated)], Limits::depth(4), |_| {})
        .unwrap();
    assert_eq!(UciMove::from_standard(result.best).to_string(), "e8d8");
    assert_eq!(result.score, 0);
    // Without that history the same position is lost.
    let lost = s.search(&root, &[], &[], Limits::depth(4), |_| {}).unwrap();
    assert!(lost.score <= -800, "{}", lost.score);
    // With the fifty-move count at 99 every move of black's draws.
    let fifty = position("4k3/8/8/8/8/8/8/Q3K3 b - - 99 80");
    let drawn = s
        .search(&fifty, &[], &[], Limits::depth(4), |_| {})
        .unwrap();
    assert_eq!(drawn.score, 0);
}

#[test]
fn limits_stop_the_search_at_once_with_a_legal_move() {
    let start = Chess::default();
    let mut s = searcher();
    let few = s
        .search(&start, &[], &[], Limits::nodes(5_000), |_| {})
        .unwrap();
    assert!(few.depth >= 1);
    assert!(few.nodes <= 5_000, "{}", few.nodes);
    // A stop raised before the search ends it within the 1,024 nodes between checks
    // (here inside depth 2 at the latest) with a legal move.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let stopped = s
        .search(
            &start,
            &[],
            &[],
            Limits {
                stop: Some(stop),
                ..Limits::default()
            },
            |_| {},
        )
        .unwrap();
    assert!(stopped.depth <= 1 && stopped.nodes <= 1_024, "{stopped:?}");
    assert!(start.is_legal(stopped.best));
    // Among restricts the root: only the listed move is answered.
    let e4: shakmaty::Move = "e2e4".parse::<UciMove>().unwrap().to_move(&start).unwrap();
    let only = s
        .search(&start, &[e4], &[], Limits::depth(3), |_| {})
        .unwrap();
    assert_eq!(only.best, e4);
}

#[test]
fn rules_are_switched_by_name_and_an_unknown_or_contradictory_name_is_refused() {
    let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let default = Features::default();
    assert!(!default.null_move && default.table && default.futility);
    assert_eq!(Features::switched(&[], &[]), Ok(default));
    let changed = Features::switched(&names(&["null-move"]), &names(&["futility"])).unwrap();
    assert_eq!(
        changed,
        Features {
            null_move: true,
            futility: false,
            ..default
        }
    );
    let all = Features::switched(&[], &names(&Features::NAMES)).unwrap();
    assert!(!all.table && !all.pvs && !all.reverse_futility && !all.check_extension);
    let error = Features::switched(&[], &names(&["lmr"])).unwrap_err();
    assert!(
        error.starts_with("no search rule named \"lmr\" (known: table, null-move"),
        "{error}"
    );
    let both = Features::switched(&names(&["pvs"]), &names(&["pvs"])).unwrap_err();
    assert_eq!(both, "search rule \"pvs\" is both switched on and off");
}

#[test]
fn gives_check_without_playing_agrees_with_playing_the_move() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let (mut moves, mut checks) = (0, 0);
    for _ in 0..200 {
        let plies = rng.random_range(0..60);
        let position = random_position(&mut rng, plies);
        for mv in position.legal_moves() {
            let mut child = position.clone();
            child.play_unchecked(mv);
            assert_eq!(
                gives_check(&position, &mv),
                child.is_check(),
                "{} {mv:?}",
                Fen::from_position(&position, shakmaty::EnPassantMode::Legal)
            );
            moves += 1;
            checks += usize::from(child.is_check());
        }
    }
    assert!(
        moves > 3_000 && checks > 30,
        "{moves} moves, {checks} checks"
    );
}

#[test]
fn static_exchange_is_the_material_the_exchange_on_the_square_wins() {
    // (FEN, the capture or promotion, centipawns it wins after the exchange)
    let cases = [
        // A pawn takes an undefended pawn, and a knight defended by a pawn.
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),
        ("4k3/8/2p5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 200),
        // The queen takes a pawn a pawn defends.
        ("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", -800),
        // A rook takes a pawn a rook defends: lost alone, won with a rook behind it
        // (the x-ray joins once the first rook has left the file).
        ("3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5", -400),
        ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100),
        // The king recaptures the queen, unless the square is defended.
        ("8/8/8/8/8/4k3/Q2p4/7K w - - 0 1", "a2d2", -800),
        ("8/8/8/8/8/4k3/Q2p4/3R3K w - - 0 1", "a2d2", 100),
        // Promotions: capturing a knight, capturing a rook, onto a square a rook holds.
        ("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q", 1100),
        ("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7a8q", 1300),
        ("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", -100),
        // En passant, alone and recaptured.
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),
        ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
    ];
    for (fen, uci, wins) in cases {
        let position = position(fen);
        let mv = uci.parse::<UciMove>().unwrap().to_move(&position).unwrap();
        assert_eq!(
            exchange::static_exchange(&position, &mv),
            wins,
            "{fen} {uci}"
        );
        assert_eq!(
            exchange::loses_material(&position, &mv),
            wins < 0,
            "{fen} {uci}"
        );
    }
}
