//! Opening positions for matches and self-play: EPD or FEN lines (the first four fields, board to
//! en passant, matter; `#` starts a comment line). The shipped set,
//! `data/openings.epd`, holds 300 positions after 4 to 8 random plies that Stockfish
//! 15.1 scores within ±50 centipawns at depth 12, none in check
//! (`examples/make_openings.rs`).

use std::path::Path;

use anyhow::{Context, Result, bail};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// The shipped openings.
const SHIPPED: &str = include_str!("../../../data/openings.epd");

/// The openings in `path`, or the shipped set.
pub fn load(path: Option<&Path>) -> Result<Vec<Chess>> {
    match path {
        None => parse(SHIPPED, "data/openings.epd"),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read openings {}", path.display()))?;
            parse(&text, &path.display().to_string())
        }
    }
}

/// The positions of an EPD text named `source` in errors; each must be legal and
/// not already over.
pub fn parse(text: &str, source: &str) -> Result<Vec<Chess>> {
    let mut openings = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        let fen = format!("{} 0 1", fields.join(" "));
        let position = fen
            .parse::<Fen>()
            .ok()
            .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
            .filter(|p| !p.is_game_over())
            .with_context(|| {
                format!(
                    "{source} line {}: not a legal, playable position: '{line}'",
                    number + 1
                )
            })?;
        openings.push(position);
    }
    if openings.is_empty() {
        bail!("{source} holds no opening positions");
    }
    Ok(openings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_openings_are_300_distinct_positions_out_of_check() {
        let openings = load(None).unwrap();
        assert_eq!(openings.len(), 300);
        assert!(openings.iter().all(|p| !p.is_check()));
        let distinct: std::collections::HashSet<String> =
            openings.iter().map(crate::output::pgn::fen_of).collect();
        assert_eq!(distinct.len(), 300);
    }

    #[test]
    fn a_bad_line_is_named_with_its_number() {
        let text =
            "# two openings\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nnot a fen\n";
        let err = parse(text, "my.epd").unwrap_err().to_string();
        assert_eq!(
            err,
            "my.epd line 3: not a legal, playable position: 'not a fen'"
        );
        assert!(parse("# nothing\n", "empty.epd").is_err());
    }
}
