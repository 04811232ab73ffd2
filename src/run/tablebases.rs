//! The tablebase cache every command shares: `tablebases/<material>.bmtb` (or
//! `$BURNMATE_TABLEBASES`), each file a header with a checksum and one table; a
//! corrupt or truncated file is reported and rebuilt, never trusted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use burnmate_oracle::pawnless::{DtmTable, Material};
use burnmate_oracle::pawns::{PawnTable, Tables, conversions};
use burnmate_oracle::tablebase::material as endgame_material;
use burnmate_oracle::tablebase::{Endgame, Tablebase};

use crate::run::checkpoint::fnv1a;
use crate::run::files::write_atomic;

/// File tag and format version (4: one value per symmetry class of positions, any
/// pawnless material, the king pair innermost, and since 2026-12-05 material with
/// pawns on its mirror-only index; 3 had the king pair outermost; 2 held every
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

/// Where `dir` caches `material`'s table.
pub fn cache_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{}.bmtb", material.name()))
}

/// Reads a cached table's values; `Err` says why they cannot be trusted.
fn read_values(path: &Path, material: &Material) -> Result<Vec<u8>> {
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
    Ok(data.to_vec())
}

/// Reads a cached pawnless table; `Err` says why it cannot be trusted.
fn read_cache(path: &Path, material: &Material) -> Result<DtmTable> {
    DtmTable::from_bytes(material.clone(), read_values(path, material)?)
        .with_context(|| format!("{} holds a table of the wrong size", path.display()))
}

fn write_cache(path: &Path, material: &Material, data: &[u8]) -> Result<()> {
    let mut bytes = Vec::with_capacity(HEADER + data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&material_field(material));
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

/// Loads the endgame's table, and those its captures and promotions lead to, from
/// `cache_dir`, or builds and caches them.
pub fn load_or_build(endgame: Endgame, cache_dir: &Path) -> Result<Tablebase> {
    let tables = load_or_build_tables(&endgame_material(endgame), cache_dir)?;
    Ok(Tablebase::from_tables(endgame, tables).expect("the endgame's material"))
}

/// `material`'s table if `cache_dir` holds a sound one (nothing is built).
pub fn load_cached(material: &Material, cache_dir: &Path) -> Option<DtmTable> {
    let path = cache_path(cache_dir, material);
    path.exists()
        .then(|| read_cache(&path, material).ok())
        .flatten()
}

/// Loads any pawnless material's table from `cache_dir`, or builds and caches it
/// (and, first, the tables its captures lead to).
pub fn load_or_build_table(material: &Material, cache_dir: &Path) -> Result<DtmTable> {
    let path = cache_path(cache_dir, material);
    if path.exists() {
        match read_cache(&path, material) {
            Ok(table) => return Ok(table),
            Err(e) => crate::note!("warning: {e:#}; rebuilding it"),
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
    let seconds = started.elapsed().as_secs_f64();
    // A table that cannot be cached is still the answer: minutes of work are not
    // thrown away for a read-only or full cache directory.
    let cached = std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("cannot create {}", cache_dir.display()))
        .and_then(|()| write_cache(&path, material, table.bytes()));
    // Reported after the table is safe: a closed stderr loses a line, never the table.
    crate::note!("built {} in {seconds:.2} s", material.name());
    if let Err(e) = cached {
        crate::note!("warning: {e:#}; the table is not cached");
    }
    Ok(table)
}

/// Loads a material's table (with pawns or pawnless), and every table its captures
/// and promotions lead to, from `cache_dir`, or builds and caches them.
pub fn load_or_build_tables(material: &Material, cache_dir: &Path) -> Result<Tables> {
    let mut tables = Tables::new();
    add_with_conversions(material, cache_dir, &mut tables)?;
    Ok(tables)
}

/// Adds `material`'s table to `tables` after the tables it is built from, each
/// loaded from `cache_dir` or built and cached.
fn add_with_conversions(material: &Material, cache_dir: &Path, tables: &mut Tables) -> Result<()> {
    if material.slots() <= 2 || tables.contains(material) {
        return Ok(());
    }
    for converted in conversions(material) {
        add_with_conversions(&converted, cache_dir, tables)?;
    }
    if !material.has_pawns() {
        tables.insert_pawnless(load_or_build_table(material, cache_dir)?);
        return Ok(());
    }
    let path = cache_path(cache_dir, material);
    if path.exists() {
        let loaded = read_values(&path, material).and_then(|values| {
            PawnTable::from_bytes(material.clone(), values)
                .with_context(|| format!("{} holds a table of the wrong size", path.display()))
        });
        match loaded {
            Ok(table) => {
                tables.insert_pawns(table);
                return Ok(());
            }
            Err(e) => crate::note!("warning: {e:#}; rebuilding it"),
        }
    }
    let started = Instant::now();
    tables.solve(material)?;
    let seconds = started.elapsed().as_secs_f64();
    let table = tables.pawn_tables().get(material).expect("solved above");
    let cached = std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("cannot create {}", cache_dir.display()))
        .and_then(|()| write_cache(&path, material, table.bytes()));
    crate::note!("built {} in {seconds:.2} s", material.name());
    if let Err(e) = cached {
        crate::note!("warning: {e:#}; the table is not cached");
    }
    Ok(())
}
