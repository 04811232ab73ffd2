//! `burnmate solve` for material with pawns (kpk, kqkp, krkp, kpkp, kbpk ...):
//! loaded from the cache or built with every table its captures and promotions lead
//! to, then won, drawn and lost positions for each side to move with the longest
//! wins, one position's moves with their values, or every entry checked against its
//! moves.

use std::time::Instant;

use anyhow::{Context, Result, bail};
use burnmate_oracle::pawnless::{Dtm, Material};
use burnmate_oracle::pawns::{PawnTable, Tables};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Position};

use super::material_report::{describe, move_rank, print_sides};
use super::{SolveRequest, cache_path};
use crate::output::pgn::fen_of;
use crate::run::tablebases::load_or_build_tables;

/// `burnmate solve MATERIAL` for a material with pawns.
pub(super) fn report(request: &SolveRequest) -> Result<()> {
    let material = &request.material;
    if request.starts > 0 {
        bail!(
            "--starts lists the study's starts of kqk, krk, kbbk and kbnk only, not {}",
            material.name()
        );
    }
    // Validate the FEN before the build.
    let position = request
        .fen
        .map(|fen| parse_position(material, fen))
        .transpose()?;
    let tables = load_or_build_tables(material, request.cache_dir)?;
    let table = tables.pawn_tables().get(material).expect("loaded above");
    if request.verify {
        return verify(&tables);
    }
    if let Some(position) = position {
        return analyse(&tables, table, &position);
    }
    say!("material         {}", material.name().to_uppercase());
    say!(
        "cache            {}",
        cache_path(request.cache_dir, material).display()
    );
    let stats = table.stats();
    let legal = |k: usize| stats[k].wins + stats[k].draws + stats[k].losses;
    say!(
        "positions        {} white to move, {} black to move (each with its mirror image; no en passant right)",
        legal(0),
        legal(1)
    );
    print_sides(&stats, |turn, i| table.fen(turn, i));
    Ok(())
}

/// Every table with pawns loaded (the material's and those it converts to) checked
/// entry by entry; the pawnless ones are `burnmate solve kqk --verify`'s.
fn verify(tables: &Tables) -> Result<()> {
    let mut wrong_tables = Vec::new();
    let mut with_pawns: Vec<&PawnTable> = tables.pawn_tables().values().collect();
    with_pawns.sort_by_key(|t| (t.material().slots(), t.material().name()));
    for table in with_pawns {
        let started = Instant::now();
        let wrong = table.inconsistent_entries(tables);
        say!(
            "verified {}: {} entries, {} inconsistent ({:.2} s)",
            table.material().name(),
            table.bytes().len(),
            wrong.len(),
            started.elapsed().as_secs_f64()
        );
        if !wrong.is_empty() {
            wrong_tables.push(table.material().name());
        }
    }
    if !wrong_tables.is_empty() {
        bail!("inconsistent entries in {}", wrong_tables.join(", "));
    }
    Ok(())
}

fn parse_position(material: &Material, fen: &str) -> Result<Chess> {
    let position: Chess = fen
        .parse::<Fen>()
        .with_context(|| format!("invalid FEN '{fen}'"))?
        .into_position(CastlingMode::Standard)
        .with_context(|| format!("illegal position '{fen}'"))?;
    if Material::of(position.board()).as_ref() != Some(material) {
        bail!("'{fen}' is not a {} position", material.name());
    }
    Ok(position)
}

/// The position's value and each legal move's, best first for the side to move.
fn analyse(tables: &Tables, table: &PawnTable, position: &Chess) -> Result<()> {
    let value = table.probe_position(position).expect("material checked");
    say!("{}: {}", fen_of(position), describe(position.turn(), value));
    let mut moves = Vec::new();
    for m in position.legal_moves() {
        let mut next = position.clone();
        next.play_unchecked(m);
        let value: Dtm = match table.probe_position(&next) {
            Some(value) => value,
            None => tables.value(next.board(), next.turn()),
        };
        moves.push((
            move_rank(value),
            San::from_move(position, m).to_string(),
            next.turn(),
            value,
        ));
    }
    moves.sort_by_key(|(rank, ..)| *rank);
    for (_, san, turn, value) in moves {
        say!("  {san:<8} {}", describe(turn, value));
    }
    Ok(())
}
