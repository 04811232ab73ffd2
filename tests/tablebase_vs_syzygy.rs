//! burnmate's own distance-to-mate tables beside Syzygy's (rtbgen's tables in
//! `tests/fixtures/syzygy/`, read by `shakmaty-syzygy`): every stored legal position of
//! KQK, KRK, KBK, KNK and KPK, and a sample of KQKP, KRKP, KPKP, KBPK and KNPK (en
//! passant rights included), either side to move, is won, drawn or lost alike.
//! Syzygy's cursed wins and blessed losses (decided by the fifty-move rule) are wins
//! and losses here: the tables count plies to mate without the rule.

use burnmate_oracle::pawnless::{Dtm, DtmTable, Material};
use burnmate_oracle::pawns::{PawnTable, Tables};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};
use shakmaty_syzygy::{Tablebase, Wdl};

/// The Syzygy fixtures, read through `shakmaty-syzygy`, and how many files they hold.
fn syzygy_fixtures() -> (Tablebase<Chess>, usize) {
    let mut syzygy = Tablebase::<Chess>::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let files = syzygy.add_directory(dir).unwrap();
    (syzygy, files)
}

/// The position of a FEN (`None` where it is no legal position).
fn position(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>()
        .unwrap()
        .into_position::<Chess>(CastlingMode::Standard)
        .ok()
}

#[test]
fn burnmates_pawnless_tables_agree_with_syzygy_on_every_position() {
    let (syzygy, files) = syzygy_fixtures();
    assert_eq!(files, 15);
    // Stored positions (one of each set of board symmetries) won, drawn and lost by
    // the side to move, per table.
    let mut found = Vec::new();
    for name in ["kqk", "krk", "kbk", "knk"] {
        let table = DtmTable::solve(&Material::parse(name).unwrap()).unwrap();
        let per_side = table.bytes().len() / 2;
        let mut counts = [0u64; 3];
        for turn in [Color::White, Color::Black] {
            for i in 0..per_side {
                let fen = table.fen(turn, i);
                let Some(position) = position(&fen) else {
                    continue;
                };
                let ours = table.probe_position(&position).unwrap();
                let theirs = syzygy.probe_wdl_after_zeroing(&position).unwrap();
                match (ours, theirs) {
                    (Dtm::Win(_), Wdl::Win) => counts[0] += 1,
                    (Dtm::Draw, Wdl::Draw) => counts[1] += 1,
                    (Dtm::Loss(_), Wdl::Loss) => counts[2] += 1,
                    (Dtm::Illegal, _) => {}
                    disagree => panic!(
                        "{name} {fen}: burnmate {:?}, Syzygy {:?}",
                        disagree.0, disagree.1
                    ),
                }
            }
        }
        found.push((name, counts));
    }
    // Every one compared (the two sides to move together): a third of KQK's and
    // KRK's are black to move and lost, the minor pieces draw everywhere.
    assert_eq!(
        found,
        [
            ("kqk", [18492, 2953, 25691]),
            ("krk", [22400, 2847, 25797]),
            ("kbk", [0, 53380, 0]),
            ("knk", [0, 54926, 0]),
        ]
    );
}

/// Won, drawn and lost positions (ours and Syzygy's agreeing) among every `stride`th
/// stored index of `table`, both sides to move.
fn agreeing(table: &PawnTable, syzygy: &Tablebase<Chess>, stride: usize) -> [u64; 3] {
    let per_side = table.bytes().len() / 2;
    let name = table.material().name();
    let mut counts = [0u64; 3];
    for turn in [Color::White, Color::Black] {
        for i in (0..per_side).step_by(stride) {
            let fen = table.fen(turn, i);
            let Some(position) = position(&fen) else {
                continue;
            };
            // Indices whose pieces share a square give a board of other material.
            let Some(ours) = table.probe_position(&position) else {
                continue;
            };
            let theirs = syzygy.probe_wdl_after_zeroing(&position).unwrap();
            match (ours, theirs) {
                (Dtm::Win(_), Wdl::Win | Wdl::CursedWin) => counts[0] += 1,
                (Dtm::Draw, Wdl::Draw) => counts[1] += 1,
                (Dtm::Loss(_), Wdl::Loss | Wdl::BlessedLoss) => counts[2] += 1,
                (Dtm::Illegal, _) => {}
                disagree => panic!(
                    "{name} {fen}: burnmate {:?}, Syzygy {:?}",
                    disagree.0, disagree.1
                ),
            }
        }
    }
    counts
}

/// KPKP solves KPK, KQKP and KRKP on the way (a pawn's promotions and captures);
/// each agrees with Syzygy, every entry agrees with its own moves, the two colours
/// of KPKP are mirror images, and an en passant right turns a draw into a win.
#[test]
fn burnmates_pawn_tables_agree_with_syzygy() {
    let (syzygy, _) = syzygy_fixtures();
    let mut tables = Tables::new();
    let kpkp = Material::parse("kpkp").unwrap();
    tables.solve(&kpkp).unwrap();
    let mut found = Vec::new();
    for (name, stride) in [("kpk", 1), ("kqkp", 101), ("krkp", 101), ("kpkp", 101)] {
        let table = tables.pawn_table(&Material::parse(name).unwrap()).unwrap();
        found.push((name, agreeing(table, &syzygy, stride)));
        assert_eq!(table.inconsistent_entries(&tables), [], "{name}");
    }
    // All of KPK (both sides to move: 165,676 positions), every 101st index of the rest.
    assert_eq!(
        found,
        [
            ("kpk", [62_480, 54_394, 48_802]),
            ("kqkp", [36_946, 6_133, 39_621]),
            ("krkp", [44_691, 11_966, 32_782]),
            ("kpkp", [37_674, 28_591, 18_280]),
        ]
    );
    let table = tables.pawn_table(&kpkp).unwrap();
    let [white, black] = table.stats();
    assert_eq!(
        [white.wins, white.draws, white.losses],
        [black.wins, black.draws, black.losses]
    );
    let probe = |fen: &str| table.probe_position(&position(fen).unwrap()).unwrap();
    // Black has just played b7-b5: a5xb6 en passant wins; without the right, a draw.
    assert_eq!(probe("8/8/8/Pp6/8/K1k5/8/8 w - b6 0 1"), Dtm::Win(23));
    assert_eq!(probe("8/8/8/Pp6/8/K1k5/8/8 w - - 0 1"), Dtm::Draw);
}

/// KBPK and KNPK (each solving the pawnless tables of its promotions first) agree
/// with Syzygy on every 31st index and with their own moves; a rook pawn whose
/// queening square the bishop does not cover is a draw with the king in the corner,
/// and a win with the other bishop.
#[test]
fn burnmates_minor_piece_and_pawn_tables_agree_with_syzygy() {
    let (syzygy, _) = syzygy_fixtures();
    let mut tables = Tables::new();
    let mut found = Vec::new();
    for name in ["kbpk", "knpk"] {
        let material = Material::parse(name).unwrap();
        tables.solve(&material).unwrap();
        let table = tables.pawn_table(&material).unwrap();
        found.push((name, agreeing(table, &syzygy, 31)));
        assert_eq!(table.inconsistent_entries(&tables), [], "{name}");
    }
    assert_eq!(
        found,
        [
            ("kbpk", [133_667, 33_303, 137_524]),
            ("knpk", [142_108, 35_667, 134_702])
        ]
    );
    let kbpk = tables
        .pawn_table(&Material::parse("kbpk").unwrap())
        .unwrap();
    let probe = |fen: &str| {
        let position = position(fen).unwrap();
        let theirs = syzygy.probe_wdl_after_zeroing(&position).unwrap();
        (kbpk.probe_position(&position).unwrap(), theirs)
    };
    // The dark-squared bishop cannot drive the king out of a8; the light one mates
    // in 13 moves.
    assert_eq!(
        probe("k7/8/P7/8/8/8/8/2B1K3 w - - 0 1"),
        (Dtm::Draw, Wdl::Draw)
    );
    assert_eq!(
        probe("k7/8/P7/8/8/3B4/8/4K3 w - - 0 1"),
        (Dtm::Win(25), Wdl::Win)
    );
}
