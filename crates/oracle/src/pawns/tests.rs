//! Tables with pawns against published longest mates, their own consistency and
//! the index (Syzygy's verdicts on them: `tests/tablebase_vs_syzygy.rs`).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::*;

fn probe(table: &PawnTable, fen: &str) -> Dtm {
    let position: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    table.probe_position(&position).unwrap()
}

/// KPK's longest mates as published (Guido's count on Kryukov's board of Nalimov's
/// tables; Conrady's list: 56 plies the longest 3-piece mate): white to move mates in
/// 28 (55 plies) from Ka2/Kb2/Ka3 Pg2 kb5; black to move is mated in 56 plies from
/// Ka3 Pg2 ka5 and ka6. The counts are stored positions (each with its mirror image).
#[test]
fn kpk_longest_mates_are_the_published_ones() {
    let table = PawnTable::solve(&Material::parse("kpk").unwrap()).unwrap();
    for fen in [
        "8/8/8/1k6/8/8/K5P1/8 w - - 0 1",
        "8/8/8/1k6/8/8/1K4P1/8 w - - 0 1",
        "8/8/8/1k6/8/K7/6P1/8 w - - 0 1",
    ] {
        assert_eq!(probe(&table, fen), Dtm::Win(55), "{fen}");
    }
    for fen in [
        "8/8/8/k7/8/K7/6P1/8 b - - 0 1",
        "8/8/k7/8/8/K7/6P1/8 b - - 0 1",
    ] {
        assert_eq!(probe(&table, fen), Dtm::Loss(56), "{fen}");
    }
    let [white, black] = table.stats();
    assert_eq!([white.wins, white.draws, white.losses], [62_480, 19_184, 0]);
    assert_eq!([black.wins, black.draws, black.losses], [0, 35_210, 48_802]);
    assert_eq!(white.longest_win.map(|(plies, _)| plies), Some(55));
    // Mirror images probe alike; a pawn on its first or last rank is no position.
    assert_eq!(
        probe(&table, "8/8/8/6k1/8/8/1P4K1/8 w - - 0 1"),
        Dtm::Win(55)
    );
    let squares = [Square::A1, Square::H8, Square::B1];
    assert_eq!(table.probe(Color::White, &squares, false), Dtm::Illegal);
}

/// The longest 4-piece mate of Nalimov's tables, 85 plies (Conrady's list), is
/// KRKP's, won by the pawn (it queens and mates the rook's side); the rook's side
/// mates in 51 plies at most. KQKP's longest are pinned as first solved (KQKP's side
/// with the queen in 55 plies; the pawn's in 57) and checked against Syzygy there.
#[test]
fn krkp_holds_the_longest_four_piece_mate_and_kqkp_is_pinned() {
    let mut tables = Tables::new();
    for (name, white_longest, black_longest) in [("krkp", 51, 85), ("kqkp", 55, 57)] {
        let material = Material::parse(name).unwrap();
        tables.solve(&material).unwrap();
        let [white, black] = tables.pawn_table(&material).unwrap().stats();
        let plies = |s: &SideStats| s.longest_win.map(|(plies, _)| plies);
        assert_eq!(
            (plies(&white), plies(&black)),
            (Some(white_longest), Some(black_longest)),
            "{name}"
        );
    }
    let krkp = tables
        .pawn_table(&Material::parse("krkp").unwrap())
        .unwrap();
    assert_eq!(
        probe(krkp, "2K5/8/8/1p6/1k6/8/R7/8 w - - 0 1"),
        Dtm::Win(51)
    );
}

/// Every entry of KPK agrees with its moves, and a changed entry is found.
#[test]
fn verification_finds_a_changed_entry() {
    let mut tables = Tables::new();
    let material = Material::parse("kpk").unwrap();
    tables.solve(&material).unwrap();
    let table = tables.pawn_table(&material).unwrap();
    assert!(table.inconsistent_entries(&tables).is_empty());
    let mut values = table.bytes().to_vec();
    let at = values
        .iter()
        .position(|&v| Dtm::stored(v) == Dtm::Win(21))
        .unwrap();
    values[at] += 2;
    let changed = PawnTable::from_bytes(material, values).unwrap();
    assert!(changed.inconsistent_entries(&tables).contains(&at));
}

/// Indices round-trip: a position and its mirror image share one index, whose
/// squares are one of the two, with the en passant flag kept.
#[test]
fn the_index_keeps_squares_mirror_images_and_the_flag() {
    let indexer = PawnIndexer::new(&Material::parse("kpkp").unwrap());
    assert_eq!(indexer.per_side(), 2 * 32 * 64 * 48 * 48);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..10_000 {
        let mut squares: Squares = [0; 4];
        for (slot, sq) in squares.iter_mut().enumerate() {
            *sq = if slot < 2 {
                rng.random_range(0..64)
            } else {
                rng.random_range(8..56)
            };
        }
        let flag = rng.random_bool(0.5);
        let mirrored = squares.map(|sq| sq ^ 7);
        let i = indexer.index(&squares, flag);
        assert_eq!(indexer.index(&mirrored, flag), i);
        let (back, back_flag) = indexer.squares(i);
        assert!(back == squares || back == mirrored);
        assert_eq!(back_flag, flag);
    }
}

/// Promotions lead to each promoted piece, either side's pawn.
#[test]
fn promotions_reach_every_piece() {
    let names = |m: &str| {
        promotions(&Material::parse(m).unwrap())
            .iter()
            .map(Material::name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names("kpk"), ["kqk", "krk", "kbk", "knk"]);
    assert_eq!(
        names("kpkp"),
        [
            "kqkp", "krkp", "kbkp", "knkp", "kpkq", "kpkr", "kpkb", "kpkn"
        ]
    );
}
