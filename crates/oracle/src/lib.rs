#![warn(missing_docs)]
//! Ground truth for burnmate: exact solutions the learners are measured against.

pub mod checksum;
pub mod knight;
pub mod pawnless;
pub mod queen4x4;
pub mod tablebase;
pub mod uci;
