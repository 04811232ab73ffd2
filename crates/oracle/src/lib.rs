#![warn(missing_docs)]
//! Ground truth for burnmate: exact solutions the learners are measured against,
//! the engines of the Elo ladder, and the statistics that turn games into a rating.

pub mod checksum;
pub mod engine_process;
pub mod knight;
pub mod pawnless;
pub mod pawns;
pub mod queen4x4;
pub mod rating;
pub(crate) mod retrograde;
pub mod tablebase;
pub mod uci;
pub mod xboard;
