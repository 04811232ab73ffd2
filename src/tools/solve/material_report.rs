//! `burnmate solve` for materials beyond the four lone-king endgames (kqkr, krkb,
//! krbkr ...): won, drawn and lost positions for each side to move, the longest
//! wins, or one position's legal moves with their values.

use anyhow::{Context, Result, bail};
use burnmate_oracle::pawnless::{Dtm, DtmTable, Material, SideStats};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, Color, Position};

use super::{SolveRequest, cache_path, load_or_build_table};
use crate::output::pgn::fen_of;

/// Prints the table's statistics, or the analysis of `--fen`.
pub(super) fn report(request: &SolveRequest) -> Result<()> {
    let material = &request.material;
    if request.starts > 0 {
        bail!(
            "--starts lists the study's starts of kqk, krk, kbbk and kbnk only, not {}",
            material.name()
        );
    }
    // Validate the FEN before the (possibly long) build.
    let position = request
        .fen
        .map(|fen| parse_position(material, fen))
        .transpose()?;
    let table = load_or_build_table(material, request.cache_dir)?;
    if let Some(position) = position {
        return analyse(&table, &position, request);
    }
    let stats = table.stats();
    let legal = |k: usize| stats[k].wins + stats[k].draws + stats[k].losses;
    say!("material         {}", material.name().to_uppercase());
    say!(
        "cache            {}",
        cache_path(request.cache_dir, material).display()
    );
    say!(
        "positions        {} white to move, {} black to move (one per symmetry class)",
        legal(0),
        legal(1)
    );
    print_sides(&stats, |turn, i| table.fen(turn, i));
    Ok(())
}

/// Prints each side to move's wins, draws and losses and its longest win, whose
/// stored index `fen` turns into a FEN.
pub(super) fn print_sides(stats: &[SideStats; 2], fen: impl Fn(Color, usize) -> String) {
    for (k, (side, turn)) in [("white", Color::White), ("black", Color::Black)]
        .into_iter()
        .enumerate()
    {
        let s = &stats[k];
        say!(
            "{side} to move    {} wins, {} draws, {} losses",
            s.wins,
            s.draws,
            s.losses
        );
        if let Some((plies, i)) = s.longest_win {
            say!(
                "  longest win    {} moves ({plies} plies): {}",
                plies.div_ceil(2),
                fen(turn, i)
            );
        }
    }
}

/// Where a move to a position of `value` (for the opponent) ranks for the mover,
/// smallest best: the opponent's fastest loss, then a draw, then its slowest win.
pub(super) fn move_rank(value: Dtm) -> (u8, i64) {
    match value {
        Dtm::Loss(plies) => (0, i64::from(plies)),
        Dtm::Draw | Dtm::Illegal => (1, 0),
        Dtm::Win(plies) => (2, -i64::from(plies)),
    }
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

/// The value of a position for its side to move, in words.
pub(super) fn describe(turn: Color, value: Dtm) -> String {
    let (mover, other) = match turn {
        Color::White => ("white", "black"),
        Color::Black => ("black", "white"),
    };
    match value {
        Dtm::Loss(0) => "checkmate".into(),
        Dtm::Win(plies) => format!("{mover} mates in {} ({plies} plies)", plies.div_ceil(2)),
        Dtm::Loss(plies) => format!("{other} mates in {} ({plies} plies)", plies / 2),
        Dtm::Draw => "draw".into(),
        Dtm::Illegal => "illegal".into(),
    }
}

/// The position's value and each legal move's, best first for the side to move
/// (captures are valued by the smaller material's table, built if missing).
fn analyse(table: &DtmTable, position: &Chess, request: &SolveRequest) -> Result<()> {
    let value = table.probe_position(position).expect("material checked");
    say!("{}: {}", fen_of(position), describe(position.turn(), value));
    let mut moves = Vec::new();
    for m in position.legal_moves() {
        let mut next = position.clone();
        next.play_unchecked(m);
        let material = Material::of(next.board()).expect("a pawnless position");
        let value = if material == *table.material() {
            table.probe_position(&next)
        } else {
            load_or_build_table(&material, request.cache_dir)?.probe_position(&next)
        }
        .expect("the material's table");
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
