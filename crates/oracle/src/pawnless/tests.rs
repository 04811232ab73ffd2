//! The general solver against known values, the board's symmetries and a
//! brute-force search.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position, Role, Square};

use super::*;

fn solved(name: &str) -> DtmTable {
    DtmTable::solve(&Material::parse(name).unwrap()).unwrap()
}

fn position(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .ok()
}

#[test]
fn material_names_parse_and_bad_ones_say_why() {
    let m = Material::parse("KRBKR").unwrap();
    assert_eq!(m.name(), "krbkr");
    assert_eq!(m.white(), &[Role::Rook, Role::Bishop]);
    assert_eq!(Material::parse("knbk").unwrap().name(), "kbnk");
    let pawns = Material::parse("kpkq").unwrap();
    assert_eq!((pawns.name().as_str(), pawns.has_pawns()), ("kpkq", true));
    assert_eq!(
        DtmTable::solve(&pawns).err().unwrap().to_string(),
        "kpkq has pawns: its table is a crate::pawns::PawnTable"
    );
    for (name, error) in [
        ("qkr", "is not 'k' + white pieces"),
        ("kqr", "is not 'k' + white pieces"),
        ("kxk", "other than q, r, b, n, p"),
        ("kqqqkq", "more than 5 pieces"),
        ("kqpkp", "pawns and more than 4 pieces"),
    ] {
        let message = Material::parse(name).unwrap_err().to_string();
        assert!(message.contains(error), "{name}: {message}");
    }
}

/// Longest wins with white to move, in moves (DTM), as published for Thompson's and
/// Nalimov's tables (e.g. the "Endgame tablebase" article's table of longest mates):
/// KQKR 35, KRKB 29, KRKN 40.
#[test]
fn longest_wins_are_the_known_ones() {
    for (name, moves) in [("kqkr", 35), ("krkb", 29), ("krkn", 40)] {
        let [white, _] = solved(name).stats();
        let (plies, _) = white.longest_win.unwrap();
        assert_eq!(plies.div_ceil(2), moves, "{name}");
    }
}

/// Won, drawn and lost positions per side to move (one per symmetry class), as first
/// built and checked against the longest wins above and the brute-force search
/// below; KQKQ's two sides are mirror images and must agree.
#[test]
fn won_drawn_and_lost_counts_are_pinned() {
    let expected: [(&str, [u64; 3], [u64; 3]); 4] = [
        (
            "kqkr",
            [1_108_111, 8_963, 2_142],
            [386_313, 78_518, 883_075],
        ),
        ("krkb", [473_447, 874_459, 0], [0, 1_431_462, 47_736]),
        ("krkn", [651_492, 696_413, 1], [4, 1_396_546, 170_672]),
        ("kqkq", [467_214, 646_911, 5_091], [467_214, 646_911, 5_091]),
    ];
    for (name, white, black) in expected {
        let [w, b] = solved(name).stats();
        assert_eq!([w.wins, w.draws, w.losses], white, "{name}, white to move");
        assert_eq!([b.wins, b.draws, b.losses], black, "{name}, black to move");
    }
}

/// The 8 images of a square under the board's symmetries (as the indexer's).
fn image(t: usize, sq: Square) -> Square {
    let (mut f, mut r) = (sq.file() as u32, sq.rank() as u32);
    if t & 1 != 0 {
        f = 7 - f;
    }
    if t & 2 != 0 {
        r = 7 - r;
    }
    if t & 4 != 0 {
        (f, r) = (r, f);
    }
    Square::new(r * 8 + f)
}

#[test]
fn every_symmetric_image_and_order_of_like_pieces_has_one_value() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for name in ["krkb", "kbbk", "kqkq"] {
        let table = solved(name);
        let slots = table.material().slots();
        let mut checked = 0;
        while checked < 3000 {
            let squares: Vec<Square> = (0..slots)
                .map(|_| Square::new(rng.random_range(0..64)))
                .collect();
            let turn = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            let value = table.probe(turn, &squares);
            if value == Dtm::Illegal {
                continue;
            }
            checked += 1;
            for t in 1..8 {
                let mut moved: Vec<Square> = squares.iter().map(|&sq| image(t, sq)).collect();
                if name == "kbbk" {
                    moved.swap(2, 3);
                }
                assert_eq!(
                    table.probe(turn, &moved),
                    value,
                    "{name} {squares:?} image {t}"
                );
            }
        }
    }
}

/// Whether the side to move mates within `plies` plies, by minimax on shakmaty's
/// legal moves (captures lead into the smaller endings as they come).
fn mates_within(pos: &Chess, plies: u32) -> bool {
    plies > 0
        && pos.legal_moves().into_iter().any(|m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            is_mated_within(&next, plies - 1)
        })
}

/// Whether the side to move is mated within `plies` plies whatever it plays.
fn is_mated_within(pos: &Chess, plies: u32) -> bool {
    if pos.is_checkmate() {
        return true;
    }
    let moves = pos.legal_moves();
    plies > 0
        && !moves.is_empty()
        && moves.into_iter().all(|m| {
            let mut next = pos.clone();
            next.play_unchecked(m);
            mates_within(&next, plies - 1)
        })
}

#[test]
fn short_values_agree_with_a_brute_force_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for name in ["kqkr", "krkb", "krkn", "krkr"] {
        let table = solved(name);
        let per_side = table.bytes().len() / 2;
        let (mut short, mut long) = (0, 0);
        while short < 150 || long < 150 {
            let turn = if rng.random_bool(0.5) {
                Color::White
            } else {
                Color::Black
            };
            let i = rng.random_range(0..per_side);
            let value = Dtm::stored(table.bytes()[table.offset(turn) + i]);
            if value == Dtm::Illegal {
                continue;
            }
            let pos = position(&table.fen(turn, i)).expect("a legal stored position");
            assert_eq!(table.probe_position(&pos), Some(value));
            let fen = table.fen(turn, i);
            match value {
                Dtm::Win(d) if d <= 3 => {
                    assert!(mates_within(&pos, d), "{fen}: {value:?}");
                    assert!(d < 2 || !mates_within(&pos, d - 2), "{fen}: {value:?}");
                    short += 1;
                }
                Dtm::Loss(d) if d <= 2 => {
                    assert!(is_mated_within(&pos, d), "{fen}: {value:?}");
                    assert!(d < 2 || !is_mated_within(&pos, d - 2), "{fen}: {value:?}");
                    short += 1;
                }
                _ if long < 150 => {
                    assert!(!mates_within(&pos, 3), "{fen}: {value:?}");
                    assert!(!is_mated_within(&pos, 2), "{fen}: {value:?}");
                    long += 1;
                }
                _ => {}
            }
        }
    }
}

#[test]
fn probing_another_material_or_overlapping_squares_is_refused() {
    let table = solved("krkn");
    let kqk = position("8/8/8/8/8/3k4/8/K5Q1 w - - 0 1").unwrap();
    assert_eq!(table.probe_position(&kqk), None);
    let on_one_square = [Square::A1, Square::H8, Square::C3, Square::C3];
    assert_eq!(table.probe(Color::White, &on_one_square), Dtm::Illegal);
    // Black in check with white to move.
    let check = [Square::A1, Square::H8, Square::H1, Square::C3];
    assert_eq!(table.probe(Color::White, &check), Dtm::Illegal);
    assert!(matches!(
        table.probe(Color::Black, &check),
        Dtm::Loss(_) | Dtm::Draw
    ));
}

/// [`PlacementStats`] counted the slow way: every tuple of squares probed.
fn placement_stats_by_probing(table: &DtmTable) -> [PlacementStats; 2] {
    let slots = table.material().slots();
    let mut stats = [PlacementStats::default(), PlacementStats::default()];
    for raw in 0..1usize << (6 * slots) {
        let squares: Vec<Square> = (0..slots)
            .map(|k| Square::new(((raw >> (6 * (slots - 1 - k))) & 63) as u32))
            .collect();
        for (turn, stats) in [Color::White, Color::Black].into_iter().zip(&mut stats) {
            match table.probe(turn, &squares) {
                Dtm::Illegal => continue,
                Dtm::Draw => {}
                Dtm::Loss(_) => stats.losses += 1,
                Dtm::Win(plies) => {
                    stats.wins += 1;
                    let at = plies as usize;
                    stats.win_plies.resize(stats.win_plies.len().max(at + 1), 0);
                    stats.win_plies[at] += 1;
                    if stats.longest_win.as_ref().is_none_or(|(p, _)| plies > *p) {
                        stats.longest_win = Some((plies, squares.clone()));
                    }
                }
            }
            stats.legal += 1;
        }
    }
    stats
}

/// The stored positions weighed by their symmetric images and like-piece orders
/// count exactly what probing every placement counts (KBBK: two like bishops;
/// KRKN: a defender with a piece), the longest win's first placement included.
#[test]
fn weighed_stored_positions_count_every_placement() {
    for name in ["kqk", "kbbk", "krkn"] {
        let table = solved(name);
        assert_eq!(
            table.placement_stats(),
            placement_stats_by_probing(&table),
            "{name}"
        );
    }
}

#[test]
fn a_moved_piece_or_king_gets_the_index_of_its_position_computed_afresh() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for name in ["kbnk", "kbbk", "kqkr"] {
        let indexer = Indexer::new(&Material::parse(name).unwrap());
        let slots = Material::parse(name).unwrap().pieces().len();
        let mut checked = 0;
        while checked < 20_000 {
            let i = rng.random_range(0..indexer.per_side());
            let squares = indexer.squares(i);
            if !indexer.is_canonical(i, &squares) {
                continue;
            }
            let slot = rng.random_range(0..slots);
            let to = rng.random_range(0..64u8);
            let mut moved = squares;
            moved[slot] = to;
            let distinct = (0..slots).all(|a| (0..a).all(|b| moved[a] != moved[b]));
            if !distinct || !Indexer::kings_apart(&moved) {
                continue;
            }
            assert_eq!(
                indexer.index_after_move(i, &squares, slot, to),
                indexer.index(&moved),
                "{name} {squares:?} slot {slot} to {to}"
            );
            checked += 1;
        }
    }
}

#[test]
fn every_three_and_four_piece_table_agrees_with_its_successors_and_a_corruption_is_found() {
    let materials: Vec<Material> = THREE_AND_FOUR
        .iter()
        .map(|name| Material::parse(name).unwrap())
        .collect();
    let tables = DtmTable::solve_all(&materials).unwrap();
    for material in &materials {
        let wrong = tables[material].inconsistent_entries(&tables).unwrap();
        assert_eq!(wrong, vec![], "{}", material.name());
    }
    // A KRK position white wins in 3 plies, stored as a win in 5.
    let krk = Material::parse("krk").unwrap();
    let mut table = DtmTable::from_bytes(krk.clone(), tables[&krk].bytes().to_vec()).unwrap();
    let at = (0..table.indexer.per_side())
        .find(|&i| Dtm::stored(table.values[i]) == Dtm::Win(3))
        .unwrap();
    table.values[at] = 6;
    assert_eq!(Dtm::stored(6), Dtm::Win(5));
    let wrong = table.inconsistent_entries(&tables).unwrap();
    assert!(wrong.contains(&(Color::White, at)), "{wrong:?}");
    // Without the tables its captures lead to, the check refuses to run.
    let error = table.inconsistent_entries(&HashMap::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the kk table a capture leads to is missing"
    );
}
