//! Scores in centipawns from the side to move's view; a mate is
//! `MATE - plies to mate` (the side to move mates) or its negation (it is mated),
//! so shorter mates score higher. In the transposition table a mate is stored
//! relative to the node (plies from the node, not from the root) and moved back to
//! the root's frame on reading, so a mate found through a transposition keeps its
//! true distance.

/// The score of mate at the root (never reached: a mate is at least one ply away).
pub const MATE: i32 = 30_000;
/// Scores beyond this are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A win an endgame table proves without saying in how many moves (Syzygy's WDL):
/// above every evaluation (they stop at 20,000), below every mate.
pub const TABLE_WIN: i32 = 25_000;
/// Above every score: the window of a full search.
pub const INFINITE: i32 = MATE + 1;

/// The score of being mated at `ply` plies from the root.
pub fn mated_at(ply: u32) -> i32 {
    -MATE + ply as i32
}

/// Whether `score` says a side mates.
pub fn is_mate(score: i32) -> bool {
    score.abs() > MATE_BOUND
}

/// Moves to mate (positive: the side to move mates; negative: it is mated), as UCI's
/// `score mate N` gives them; `None` for a centipawn score.
pub fn mate_in_moves(score: i32) -> Option<i32> {
    if !is_mate(score) {
        return None;
    }
    let plies = MATE - score.abs();
    let moves = (plies + 1) / 2;
    Some(if score > 0 { moves } else { -moves })
}

/// `score` at `ply` as the table keeps it (mates counted from the node).
pub fn to_table(score: i32, ply: u32) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A table score read at `ply` (mates counted from the root again).
pub fn from_table(score: i32, ply: u32) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
