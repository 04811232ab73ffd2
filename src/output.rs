//! What runs write besides their numbers: SVG plots and PGN games.

pub mod pgn;
pub mod plot;
