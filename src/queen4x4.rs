//! The queen4x4 study (Luo): K+Q vs a randomly moving K on a 4x4 board.

pub mod config;
pub mod eval;
pub mod grid;
pub mod grid_cell;
pub mod grid_report;
pub mod model_file;
pub mod play;
pub mod summary;
pub mod train;
