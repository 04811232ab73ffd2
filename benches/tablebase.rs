//! Tablebase build time per endgame (the matrix's six: four lone-king mates, KQKR and KRKB; and
//! every pawnless 3- and 4-piece table one after another, and their check entry by
//! entry), probe throughput, `solve`'s
//! placement counts, and the endgame study's environment step (a legal move played in
//! a match, with its end checks). The solver uses every core it is given: run under `taskset -c 0` for
//! one core. The external anchor, syzygy1/tb's `rtbgen -g` on the same machine, runs
//! beside `burnmate solve` in `benches/anchors/rtbgen.sh` (it needs a checkout of syzygy1/tb).

#[path = "common/timing.rs"]
mod timing;

use burnmate_env::endgame::{Endgame as EnvEndgame, Match, random_start};
use burnmate_oracle::pawnless::{DtmTable, Material, THREE_AND_FOUR};
use burnmate_oracle::tablebase::{Endgame, Placement, Side, Tablebase, square};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Position;

use timing::{HEADER, measure};

fn build() {
    for endgame in Endgame::ALL {
        let name = format!("tablebase build {}", endgame.name());
        measure(&name, 1, || Tablebase::solve(endgame));
    }
    let materials: Vec<Material> = THREE_AND_FOUR
        .iter()
        .map(|name| Material::parse(name).expect("a material"))
        .collect();
    measure(
        "tablebase build all 24 pawnless 3-4 piece tables",
        24,
        || DtmTable::solve_all(&materials),
    );
    let tables = DtmTable::solve_all(&materials).expect("they fit one byte");
    measure(
        "tablebase verify all 24 pawnless 3-4 piece tables (`solve --verify`)",
        24,
        || {
            materials
                .iter()
                .map(|m| {
                    tables[m]
                        .inconsistent_entries(&tables)
                        .expect("all given")
                        .len()
                })
                .sum::<usize>()
        },
    );
}

fn probe() {
    let tb = Tablebase::solve(Endgame::Krk);
    let placements: Vec<Placement> = (0..4096u32)
        .map(|i| Placement {
            side: if i % 2 == 0 { Side::White } else { Side::Black },
            white_king: square(i % 8, (i / 8) % 8),
            black_king: square((i / 64) % 8, (i / 512) % 8),
            pieces: vec![square((i * 7) % 8, (i * 3) % 8)],
            defenders: vec![],
        })
        .collect();
    measure("tablebase KRK 4096 probes", placements.len() as u64, || {
        placements
            .iter()
            .map(|p| tb.probe(p))
            .filter(|v| matches!(v, burnmate_oracle::tablebase::Verdict::MateInPlies(_)))
            .count()
    });
}

/// `solve`'s report of KBNK: every placement counted from the stored positions
/// weighed by their images, beside the count that probes all 2 x 64^4 placements.
fn placement_stats() {
    let tb = Tablebase::solve(Endgame::Kbnk);
    measure("tablebase KBNK placement stats (weighed)", 1, || {
        tb.placement_stats()
    });
    measure(
        "tablebase KBNK placement stats (probing every placement)",
        1,
        || {
            tb.entries()
                .filter(|(_, v)| matches!(v, burnmate_oracle::tablebase::Verdict::MateInPlies(_)))
                .count()
        },
    );
}

/// One ply of a random KRK match: legal moves, a random one played, the end checks
/// (mate, stalemate, lost piece, repetition, 50 moves, cap); a new match when it ends.
fn env_step() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let new_match =
        |rng: &mut ChaCha8Rng| Match::new(EnvEndgame::Krk, random_start(EnvEndgame::Krk, rng), 50);
    let mut game = new_match(&mut rng);
    measure("endgame KRK random ply", 1, || {
        let moves = game.position().legal_moves();
        let mv = moves[rng.random_range(0..moves.len())];
        if game.play(mv).is_some() {
            game = new_match(&mut rng);
        }
    });
}

fn main() {
    println!("{HEADER}");
    build();
    probe();
    placement_stats();
    env_step();
}
