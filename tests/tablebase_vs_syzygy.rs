//! burnmate's own distance-to-mate tables beside Syzygy's (rtbgen's 3-piece tables in
//! `tests/fixtures/syzygy/`, read by `shakmaty-syzygy`): every stored legal position of
//! KQK, KRK, KBK and KNK, either side to move, is won, drawn or lost alike.

use burnmate_oracle::pawnless::{Dtm, DtmTable, Material};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};
use shakmaty_syzygy::{Tablebase, Wdl};

#[test]
fn burnmates_pawnless_tables_agree_with_syzygy_on_every_position() {
    let mut syzygy = Tablebase::<Chess>::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    assert_eq!(syzygy.add_directory(dir).unwrap(), 10);
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
                let Ok(position) = fen
                    .parse::<Fen>()
                    .unwrap()
                    .into_position::<Chess>(CastlingMode::Standard)
                else {
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
