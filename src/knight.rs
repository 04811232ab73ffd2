//! The knight study (Solime): a knight must check a fixed king within 10 moves.

pub mod config;
pub mod eval;
pub mod model_file;
pub mod summary;
pub mod train;
pub mod vector;
