//! The studies: each trains, evaluates, checkpoints and reports one kind of run; [`study`] is the one table the CLI reads to hand a run to its study.

pub mod chess;
pub mod endgame;
pub mod experiment;
pub mod knight;
pub mod queen4x4;
pub mod scenario;
pub mod search;
pub mod selfplay;
pub mod study;
