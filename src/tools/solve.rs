//! `burnmate solve MATERIAL` (kqk, krk, kbbk, kbnk, or any pawnless material up to
//! five pieces: kqkr, krbkr ...): build (or load from cache) a DTM tablebase and
//! print its statistics. The cache holds a checksum; a corrupt or truncated cache
//! is reported and rebuilt, never trusted.

mod material_report;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burnmate_env::endgame::{parse_start, random_start};
use burnmate_oracle::pawnless::{DtmTable, Material};
use burnmate_oracle::tablebase::{Endgame, Placement, Side, Tablebase, Verdict};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::san::San;

use crate::output::pgn::fen_of;
use crate::run::checkpoint::fnv1a;
use crate::run::files::write_atomic;

/// File tag and format version (4: one value per symmetry class of positions, any
/// pawnless material, the king pair innermost; 3 had it outermost; 2 held every
/// placement of the four lone-king endings).
const MAGIC: &[u8; 8] = b"BMTB\x04\0\0\0";
/// Header bytes: tag, material name (8 bytes, zero-padded), checksum, length.
const HEADER: usize = 32;

/// The material's name as the header's 8-byte field.
fn material_field(material: &Material) -> [u8; 8] {
    let mut field = [0u8; 8];
    field[..material.name().len()].copy_from_slice(material.name().as_bytes());
    field
}

fn cache_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{}.bmtb", material.name()))
}

use burnmate_oracle::tablebase::material as endgame_material;

/// Reads a cached table; `Err` says why it cannot be trusted.
fn read_cache(path: &Path, material: &Material) -> Result<DtmTable> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        bail!("{} is not a burnmate tablebase (version 4)", path.display());
    }
    if bytes[8..16] != material_field(material) {
        let held = String::from_utf8_lossy(&bytes[8..16]);
        bail!(
            "{} holds a {} table, not {}",
            path.display(),
            held.trim_end_matches('\0'),
            material.name()
        );
    }
    let stored = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
    let length = u64::from_le_bytes(bytes[24..32].try_into().expect("8 bytes"));
    let data = &bytes[HEADER..];
    if data.len() as u64 != length {
        bail!("{} is truncated", path.display());
    }
    if fnv1a(data) != stored {
        bail!("{} is corrupt (checksum mismatch)", path.display());
    }
    DtmTable::from_bytes(material.clone(), data.to_vec())
        .with_context(|| format!("{} holds a table of the wrong size", path.display()))
}

fn write_cache(path: &Path, table: &DtmTable) -> Result<()> {
    let data = table.bytes();
    let mut bytes = Vec::with_capacity(HEADER + data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&material_field(table.material()));
    bytes.extend_from_slice(&fnv1a(data).to_le_bytes());
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(data);
    write_atomic(path, &bytes)
}

/// The directory of cached tables every command reads and writes: `$BURNMATE_TABLEBASES`,
/// or `tablebases` in the working directory.
pub fn tablebase_dir() -> PathBuf {
    std::env::var_os("BURNMATE_TABLEBASES")
        .map_or_else(|| PathBuf::from("tablebases"), PathBuf::from)
}

/// Loads the endgame's table, and those its captures lead to, from `cache_dir`, or
/// builds and caches them.
pub fn load_or_build(endgame: Endgame, cache_dir: &Path) -> Result<Tablebase> {
    let mut materials = vec![endgame_material(endgame)];
    let mut tables = Vec::new();
    while let Some(material) = materials.pop() {
        if material.slots() > 2 && !tables.iter().any(|t: &DtmTable| *t.material() == material) {
            materials.extend(material.captures());
            tables.push(load_or_build_table(&material, cache_dir)?);
        }
    }
    Ok(Tablebase::from_tables(endgame, tables).expect("the endgame's material"))
}

/// Loads any pawnless material's table from `cache_dir`, or builds and caches it
/// (and, first, the tables its captures lead to).
pub fn load_or_build_table(material: &Material, cache_dir: &Path) -> Result<DtmTable> {
    let path = cache_path(cache_dir, material);
    if path.exists() {
        match read_cache(&path, material) {
            Ok(table) => return Ok(table),
            Err(e) => eprintln!("warning: {e:#}; rebuilding it"),
        }
    }
    // The tables its captures lead to come from the cache too (bare kings aside).
    let mut known = HashMap::new();
    for smaller in material.captures() {
        if smaller.slots() > 2 {
            let table = load_or_build_table(&smaller, cache_dir)?;
            known.insert(smaller, table);
        }
    }
    let started = Instant::now();
    let table = DtmTable::solve_with(material, known)?;
    eprintln!(
        "built {} in {:.2} s",
        material.name(),
        started.elapsed().as_secs_f64()
    );
    // A table that cannot be cached is still the answer: minutes of work are not
    // thrown away for a read-only or full cache directory.
    let cached = std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("cannot create {}", cache_dir.display()))
        .and_then(|()| write_cache(&path, &table));
    if let Err(e) = cached {
        eprintln!("warning: {e:#}; the table is not cached");
    }
    Ok(table)
}

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

/// `burnmate solve MATERIAL --verify`: every entry of the table checked against its
/// successors (captures through the smaller tables); inconsistent entries are an
/// error naming the first few.
fn verify(material: &Material, cache_dir: &Path) -> Result<()> {
    let table = load_or_build_table(material, cache_dir)?;
    let mut tables = HashMap::new();
    for smaller in material.captures() {
        let table = if smaller.slots() > 2 {
            load_or_build_table(&smaller, cache_dir)?
        } else {
            DtmTable::solve(&smaller)?
        };
        tables.insert(smaller, table);
    }
    let started = Instant::now();
    let wrong = table.inconsistent_entries(&tables)?;
    say!(
        "verified {}: {} entries, {} inconsistent ({:.2} s)",
        material.name(),
        table.bytes().len(),
        wrong.len(),
        started.elapsed().as_secs_f64()
    );
    for &(turn, i) in wrong.iter().take(5) {
        say!("  inconsistent: {}", table.fen(turn, i));
    }
    if !wrong.is_empty() {
        bail!(
            "the {} table has {} inconsistent entries; delete its cache file to rebuild it",
            material.name(),
            wrong.len()
        );
    }
    Ok(())
}

/// `burnmate solve NAME [--fen FEN] [--starts N --seed S] [--verify]`.
pub fn solve_command(request: &SolveRequest) -> Result<()> {
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
    let [white, black] = tb.placement_stats();
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
