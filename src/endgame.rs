//! The endgame study (Boar 2022): tabular least-best-move Q-learning for KQK, KRK
//! and KBBK against a defender, measured against exact tablebases.

pub mod config;
pub mod engine_audit;
pub mod game;
pub mod play;
pub mod starts;
pub mod study;
pub mod study_plan;
pub mod study_report;
pub mod table_file;
pub mod train;
