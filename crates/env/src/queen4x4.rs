//! King and queen against a randomly moving king on a 4x4 board (Luo, UZH).
//!
//! Board: row 0 is rank 4, column 0 is file a, square index = 4 * row + column
//! (0 = a4, 15 = d1). Directions, in this order everywhere: 0 south (row + 1),
//! 1 north, 2 east, 3 west, 4 south-east, 5 south-west, 6 north-east, 7 north-west.
//!
//! The rules are the study's: the black king may never step onto the queen's square
//! (the queen is untouchable), and white's legal-action mask keeps the queen off
//! undefended squares next to the black king. A game ends only in checkmate or
//! stalemate.

mod action;
mod game;
mod position;
mod square;
mod start;

pub use action::{ACTIONS, Action, KING_ACTIONS_START};
pub use game::{MATE_REWARD, Queen4x4Game};
pub use position::{Position, Queen4x4Outcome};
pub use square::{DIRECTIONS, SIDE, SQUARES, Square};
pub use start::{SpecError, parse_start, random_start, start_distribution};
