//! Afterstate TD learning for full chess (ours, beyond the selfplay study): one value
//! network for both colours, seen from the side to move, learns by self-play what
//! each position is worth to the side about to move in it.
//!
//! In a position `s` every legal move `a` is valued by its reward and the value of
//! the position it leads to, `s_a`, which belongs to the opponent:
//!
//! ```text
//! Q(s, a) = r(a) - gamma * V(s_a)        (Q(s, a) = r(a) when s_a ends the game)
//! ```
//!
//! `r(a)` is the material the move wins (pawn 0.1, knight and bishop 0.3, rook 0.5,
//! queen 0.9; a promotion adds the new piece minus the pawn), [`rewards::MATE`] for a
//! mating move; draws end with no further reward. A game cut off by the ply cap
//! still bootstraps (it is truncated, not over). The side to move plays
//! epsilon-greedily on `Q`, and the position it faced gets the TD(0) target of its
//! best move,
//!
//! ```text
//! V(s) <- max_a Q(s, a)
//! ```
//!
//! computed by the network that chose the move and stored with the position in a
//! replay buffer; minibatches from the buffer take Adam steps on the mean squared
//! error (the stored targets play the role of a target network: an update never
//! bootstraps from the weights it changes).

pub mod alpha_beta;
pub mod evaluate;
pub mod host_value;
pub mod rewards;
pub mod rows;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod tests;
pub mod trainer;
pub mod value_net;
