#![warn(missing_docs)]
//! State encoders: each writes one state into a `&mut [f32]` row, so a batch of
//! states is one buffer and one tensor upload. Knows nothing of Burn.

pub mod endgame;
pub mod knight;
pub mod nnue;
pub mod queen4x4;
pub mod selfplay;
pub mod side_to_move;
