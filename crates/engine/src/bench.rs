//! An OpenBench-style bench: fixed positions searched to a fixed depth on one
//! thread, each from an empty table, so the node count is a signature of the search
//! and the net (the same on every machine and run) and nodes a second its speed.
//! OpenBench reads the last line, `N nodes M nps`. On several threads (Lazy SMP) it
//! measures what the threads add, nodes a second; its node count then varies.

use std::time::{Duration, Instant};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::evaluate::Evaluator;
use super::limits::Limits;
use super::search::Features;
use super::smp::ThreadPool;

/// Depth each position is searched to when none is given.
pub const DEFAULT_DEPTH: u32 = 12;

/// Table megabytes of the bench's searcher.
const TABLE_MB: usize = 16;

/// The positions: the start, the perft suite's middlegames (chessprogramming.org's
/// "Perft Results" positions 2-6), and openings, middlegames and endings of master
/// games, both sides to move.
pub const POSITIONS: [&str; 16] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 1 8",
    "2rq1rk1/pb1nbppp/1p2pn2/3p4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 b - - 3 12",
    "r2q1rk1/1b2bppp/p2ppn2/1p6/3NP3/1BN1B3/PPP2PPP/R2Q1RK1 w - - 2 12",
    "3r2k1/pp3ppp/2p5/8/2P1r3/1P4P1/P4P1P/3RR1K1 w - - 0 24",
    "6k1/5pp1/4p2p/3pP3/3P4/5PP1/5K1P/8 w - - 0 40",
    "8/5pk1/6p1/8/5P2/4K1P1/8/8 b - - 0 50",
    "4r1k1/1q3ppp/p7/1p1Q4/8/1P5P/P4PP1/3R2K1 b - - 0 30",
    "8/8/4kpp1/3p4/p2P1P2/P3K1P1/8/8 w - - 0 45",
];

/// What a bench found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Nodes of every position, summed: the signature.
    pub nodes: u64,
    /// Time of the searches alone.
    pub elapsed: Duration,
}

impl BenchResult {
    /// Nodes a second.
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every position of [`POSITIONS`] to `depth` with `evaluator` and the
/// default rules on `threads` threads (Lazy SMP, [`ThreadPool`]; one thread is the
/// plain searcher, and only its nodes repeat run to run), each from an empty table;
/// `report` sees each position's FEN and nodes.
pub fn bench<E: Evaluator + Clone + Send>(
    evaluator: E,
    depth: u32,
    threads: usize,
    mut report: impl FnMut(&str, u64),
) -> BenchResult {
    let mut pool = ThreadPool::new(evaluator, TABLE_MB, threads, Features::default(), None);
    let mut total = BenchResult {
        nodes: 0,
        elapsed: Duration::ZERO,
    };
    for fen in POSITIONS {
        let root: Chess = fen
            .parse::<Fen>()
            .expect("a bench FEN")
            .into_position(CastlingMode::Standard)
            .expect("a legal bench position");
        pool.new_game();
        let started = Instant::now();
        let result = pool
            .search(&root, &[], &[], Limits::depth(depth), |_| {})
            .expect("a bench position has moves");
        total.elapsed += started.elapsed();
        total.nodes += result.nodes;
        report(fen, result.nodes);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::Material;

    #[test]
    fn every_position_is_legal_and_the_signature_repeats() {
        let first = bench(Material, 3, 1, |_, _| {});
        let mut seen = 0;
        let again = bench(Material, 3, 1, |_, nodes| {
            seen += 1;
            assert!(nodes > 0);
        });
        assert_eq!(seen, POSITIONS.len());
        assert_eq!(first.nodes, again.nodes);
    }
}
