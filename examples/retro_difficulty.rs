// How hard the retro curriculum's starts really are: random walks of un-moves from
// random mates (`burnmate_env::retro`, what `--starts retro` and the search learner
// train from), valued afterwards by the tablebase (analysis only; training never
// reads one).
//
// cargo run --release --example retro_difficulty [SAMPLES]
//
// Prints, per endgame and walk length, the share of starts whose optimal mate fits
// the curriculum's ply cap, the share drawn, and the median and 90th percentile of
// the optimal mate in moves.

use burnmate::studies::scenario::curriculum::retro_ply_cap;
use burnmate_env::endgame::Endgame;
use burnmate_env::retro::retro_start;
use burnmate_oracle::tablebase::{Tablebase, Verdict};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The optimum from a sample of starts grown back from mate.
#[derive(Debug)]
pub struct Difficulty {
    /// Share of starts mated within the curriculum's ply cap under optimal play.
    pub within_cap: f64,
    /// Share of starts that are draws.
    pub drawn: f64,
    /// Median optimal mate, in white's moves (won starts).
    pub median_moves: u32,
    /// 90th percentile of the optimal mate, in white's moves (won starts).
    pub p90_moves: u32,
}

/// Values `samples` starts of `walk` un-moves on `tablebase`'s endgame.
pub fn difficulty(
    tablebase: &Tablebase,
    walk: u32,
    samples: usize,
    rng: &mut ChaCha8Rng,
) -> Difficulty {
    let (mut within, mut drawn, mut moves) = (0, 0, Vec::new());
    for _ in 0..samples {
        let start = retro_start(tablebase.endgame(), walk, rng);
        match tablebase.probe_position(&start) {
            Some(Verdict::MateInPlies(plies)) => {
                moves.push(plies.div_ceil(2));
                within += usize::from(plies <= retro_ply_cap(walk));
            }
            _ => drawn += 1,
        }
    }
    moves.sort_unstable();
    let at = |q: f64| moves.get((q * moves.len() as f64) as usize).copied();
    Difficulty {
        within_cap: within as f64 / samples as f64,
        drawn: drawn as f64 / samples as f64,
        median_moves: at(0.5).unwrap_or(0),
        p90_moves: at(0.9).unwrap_or(0),
    }
}

/// Prints the table of the module comment from `samples` starts per row.
pub fn print_table(samples: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    println!("| endgame | walk | optimal mate within cap | drawn | median moves | p90 moves |");
    println!("|---|---:|---:|---:|---:|---:|");
    for endgame in [Endgame::Kqk, Endgame::Krk, Endgame::Kbbk, Endgame::Kbnk] {
        let tablebase = Tablebase::solve(endgame);
        for walk in [1, 3, 5, 9, 15, 31, 61, 121] {
            let d = difficulty(&tablebase, walk, samples, &mut rng);
            println!(
                "| {endgame} | {walk} | {:.1} % | {:.1} % | {} | {} |",
                100.0 * d.within_cap,
                100.0 * d.drawn,
                d.median_moves,
                d.p90_moves
            );
        }
    }
}

// The test build calls `print_table` with fewer samples instead.
#[cfg_attr(test, allow(dead_code))]
fn main() {
    let samples = std::env::args()
        .nth(1)
        .map_or(Ok(400), |s| s.parse::<usize>())
        .expect("SAMPLES must be a whole number");
    print_table(samples);
}
