//! `burnmate bench [NET] [--depth D] [--threads T]`: the engine's OpenBench-style bench
//! ([`burnmate_engine::bench`]) on the shipped net, another net, or material values:
//! a line a position, then `N nodes M nps`.

use std::path::Path;

use anyhow::Result;
use burnmate_engine::bench::{BenchResult, POSITIONS, bench};
use burnmate_engine::{Evaluator, Material};

use crate::tools::uci_server::players::{BUILTIN_MATERIAL, load_chess_net};

/// Benches `net` (a chess net as [`load_chess_net`] reads it, or builtin:material)
/// to `depth` on `threads` threads and prints the result.
pub fn bench_command(net: &Path, depth: u32, threads: usize) -> Result<()> {
    let on = match threads {
        1 => "one thread".to_string(),
        n => format!("{n} threads (Lazy SMP: the node count varies run to run)"),
    };
    let result = if net == Path::new(BUILTIN_MATERIAL) {
        crate::say!("bench of material values, depth {depth}, {on}");
        run(Material, depth, threads)
    } else {
        let (evaluator, detail) = load_chess_net(net)?;
        crate::say!("bench of {detail}, depth {depth}, {on}");
        run(evaluator, depth, threads)
    };
    crate::say!(
        "{} positions in {:.2} s",
        POSITIONS.len(),
        result.elapsed.as_secs_f64()
    );
    crate::say!("{} nodes {} nps", result.nodes, result.nps());
    Ok(())
}

fn run<E: Evaluator + Clone + Send>(evaluator: E, depth: u32, threads: usize) -> BenchResult {
    bench(evaluator, depth, threads, |fen, nodes| {
        crate::say!("{nodes:>10}  {fen}")
    })
}
