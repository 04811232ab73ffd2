#![warn(missing_docs)]
//! Rules and environments of burnmate's games.
//!
//! This crate knows nothing of Burn or tensors: each game exposes positions, a fixed
//! action space with a legal-action mask, and `reset`/`step` functions that take an
//! explicit random number generator.

pub mod endgame;
pub mod endgame_game;
pub mod environment;
pub mod fen;
pub mod game_result;
pub mod knight;
pub mod match_game;
pub mod queen4x4;
pub mod retro;
pub mod selfplay;
pub mod symmetry;
pub mod tactics;
pub mod two_player;
