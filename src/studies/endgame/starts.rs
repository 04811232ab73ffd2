//! The start positions of endgame runs: the shipped study starts or a given FEN.

use anyhow::{Context, Result};
use burnmate_env::endgame::{Endgame, parse_start};
use shakmaty::Chess;

use crate::studies::endgame::config::EndgameConfig;

/// Number of shipped starts per endgame (`assets/endgame-<e>.fen`).
pub const SHIPPED_STARTS: usize = 10;

/// The start position a config names: its `fen`, else shipped start `start`.
pub fn start_position(endgame: Endgame, config: &EndgameConfig) -> Result<Chess> {
    if !config.fen.trim().is_empty() {
        return Ok(parse_start(endgame, &config.fen)?);
    }
    shipped_start(endgame, config.start.unwrap_or(0))
}

/// Shipped start number `index` of `endgame`.
pub fn shipped_start(endgame: Endgame, index: usize) -> Result<Chess> {
    let fen = shipped_text(endgame)
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .nth(index)
        .with_context(|| {
            format!(
                "no start {index} among the shipped {} starts",
                endgame.name()
            )
        })?;
    Ok(parse_start(
        endgame,
        fen.split("  #").next().unwrap_or(fen),
    )?)
}

fn shipped_text(endgame: Endgame) -> &'static str {
    match endgame {
        Endgame::Kqk => include_str!("../../../assets/endgame-kqk.fen"),
        Endgame::Krk => include_str!("../../../assets/endgame-krk.fen"),
        Endgame::Kbbk => include_str!("../../../assets/endgame-kbbk.fen"),
        Endgame::Kbnk => include_str!("../../../assets/endgame-kbnk.fen"),
        // No shipped starts: these endgames are not in the study.
        Endgame::Kqkr
        | Endgame::Krkb
        | Endgame::Krkn
        | Endgame::Kpk
        | Endgame::Kqkp
        | Endgame::Krkp
        | Endgame::Kpkp => "",
    }
}
