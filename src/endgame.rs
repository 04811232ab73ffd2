//! The endgame study (Boar 2022): tabular least-best-move Q-learning for KQK, KRK
//! and KBBK against a defender, measured against exact tablebases.

pub mod config;
pub mod game;
pub mod train;
