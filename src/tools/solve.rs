//! `burnmate solve MATERIAL` (kqk, krk, kbbk, kbnk, any pawnless material up to
//! five pieces: kqkr, krbkr ..., or material with pawns up to four: kpk, kqkp,
//! krkp, kpkp ...): build (or load from cache) a DTM tablebase and print its
//! statistics (the cache itself is [`crate::run::tablebases`]).

mod material_report;
mod pawn_report;

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{Result, bail};
use burnmate_env::endgame::{parse_start, random_start};
use burnmate_oracle::pawnless::{DtmTable, Material};
use burnmate_oracle::tablebase::material as endgame_material;
use burnmate_oracle::tablebase::{Endgame, Placement, Side, Verdict};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::san::San;

use crate::output::pgn::fen_of;
use crate::run::tablebases::{cache_path, load_or_build, load_or_build_table};

/// What `burnmate solve` should print besides the statistics.
pub struct SolveRequest<'a> {
    /// The material (a lone-king endgame gets the study's report).
    pub material: Material,
    /// Cache directory.
    pub cache_dir: &'a Path,
    /// A position to analyse move by move.
    pub fen: Option<&'a str>,
    /// How many generated start positions to list.
    pub starts: usize,
    /// Seed of the start generator.
    pub seed: u64,
    /// Check every entry against its successors instead of reporting.
    pub verify: bool,
}

fn describe(v: Verdict) -> String {
    match v {
        Verdict::MateInPlies(0) => "checkmate".into(),
        Verdict::MateInPlies(n) => format!("white mates in {} ({n} plies)", n.div_ceil(2)),
        Verdict::BlackMatesInPlies(n) => format!("black mates in {} ({n} plies)", n.div_ceil(2)),
        Verdict::Draw => "draw".into(),
        Verdict::Illegal => "illegal".into(),
    }
}

/// `burnmate solve MATERIAL --verify`: every entry of the table, and first of every
/// cached table it is built from (its captures' tables, theirs in turn), checked
/// against its successors; inconsistent entries are an error naming the first table
/// that holds them, never suggesting a rebuild on top of a bad dependency.
fn verify(material: &Material, cache_dir: &Path) -> Result<()> {
    let mut order = Vec::new();
    dependencies_first(material, &mut order);
    // Verified tables and the solved bare kings: every table a capture leads to.
    let mut tables = HashMap::new();
    for checked in &order {
        for smaller in checked.captures() {
            if smaller.slots() <= 2 && !tables.contains_key(&smaller) {
                let solved = DtmTable::solve(&smaller)?;
                tables.insert(smaller, solved);
            }
        }
        let table = load_or_build_table(checked, cache_dir)?;
        let started = Instant::now();
        let wrong = table.inconsistent_entries(&tables)?;
        say!(
            "verified {}: {} entries, {} inconsistent ({:.2} s)",
            checked.name(),
            table.bytes().len(),
            wrong.len(),
            started.elapsed().as_secs_f64()
        );
        for &(turn, i) in wrong.iter().take(5) {
            say!("  inconsistent: {}", table.fen(turn, i));
        }
        if !wrong.is_empty() {
            let built_on: Vec<String> = order
                .iter()
                .skip_while(|m| *m != checked)
                .skip(1)
                .map(|m| cache_path(cache_dir, m).display().to_string())
                .collect();
            let rebuild = if built_on.is_empty() {
                String::new()
            } else {
                format!(
                    " and the tables built from it ({}), which may be wrong too",
                    built_on.join(", ")
                )
            };
            bail!(
                "the {} table has {} inconsistent entries; delete {}{rebuild} to rebuild them",
                checked.name(),
                wrong.len(),
                cache_path(cache_dir, checked).display()
            );
        }
        tables.insert(checked.clone(), table);
    }
    Ok(())
}

/// Every cached material `material` is built from, each after the tables it is built
/// from, then `material` itself (bare kings are solved, never cached).
fn dependencies_first(material: &Material, order: &mut Vec<Material>) {
    if material.slots() <= 2 || order.contains(material) {
        return;
    }
    for smaller in material.captures() {
        dependencies_first(&smaller, order);
    }
    order.push(material.clone());
}

/// `burnmate solve NAME [--fen FEN] [--starts N --seed S] [--verify]`.
pub fn solve_command(request: &SolveRequest) -> Result<()> {
    if request.material.has_pawns() {
        return pawn_report::report(request);
    }
    if request.verify {
        return verify(&request.material, request.cache_dir);
    }
    let endgame = Endgame::ALL
        .into_iter()
        .find(|&e| e.lone_king() && endgame_material(e) == request.material);
    let Some(endgame) = endgame else {
        return material_report::report(request);
    };
    // Validate the FEN before the (possibly long) build.
    let position = request
        .fen
        .map(|fen| parse_start(endgame, fen))
        .transpose()?;
    let tb = load_or_build(endgame, request.cache_dir)?;
    if let Some(position) = position {
        let verdict = tb.probe_position(&position).expect("material checked");
        say!("{}: {}", fen_of(&position), describe(verdict));
        for (m, v) in tb.move_verdicts(&position) {
            say!(
                "  {:<8} {}",
                San::from_move(&position, m).to_string(),
                describe(v)
            );
        }
        return Ok(());
    }
    if request.starts > 0 {
        let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
        for _ in 0..request.starts {
            let start = random_start(endgame, &mut rng);
            let verdict = tb
                .probe_position(&start)
                .expect("generated with the material");
            say!("{}  # {}", fen_of(&start), describe(verdict));
        }
        return Ok(());
    }
    let cache_dir = request.cache_dir;
    let [white, black] = tb
        .placement_stats()
        .expect("the lone-king endings are pawnless");
    let legal = [white.legal, black.legal];
    // Black has a lone king: white wins where white to move wins or black to move loses.
    let wins = [white.wins, black.losses];
    let mut histogram = vec![0u64; 64];
    for (plies, count) in white.win_plies.iter().enumerate() {
        histogram[(plies as u32).div_ceil(2) as usize] += count;
    }
    let longest = white.longest_win.map(|(plies, squares)| {
        let placement = Placement {
            side: Side::White,
            white_king: squares[0],
            black_king: squares[1],
            pieces: squares[2..].to_vec(),
            defenders: vec![],
        };
        (plies.div_ceil(2), placement.fen(endgame))
    });
    say!("endgame          {}", endgame.name().to_uppercase());
    say!(
        "cache            {}",
        cache_path(cache_dir, &endgame_material(endgame)).display()
    );
    say!(
        "positions        {} white to move, {} black to move",
        legal[0],
        legal[1]
    );
    say!(
        "white wins       {} (white to move), {} (black to move)",
        wins[0],
        wins[1]
    );
    say!(
        "draws            {} (white to move), {} (black to move)",
        legal[0] - wins[0],
        legal[1] - wins[1]
    );
    if let Some((moves, fen)) = longest {
        say!("longest mate     {moves} moves: {fen}");
    }
    say!("mate-in-N histogram, white to move (N moves: positions):");
    for (moves, count) in histogram.iter().enumerate().filter(|(_, c)| **c > 0) {
        say!("  {moves:>3}: {count}");
    }
    Ok(())
}
