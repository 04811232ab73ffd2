//! The seam between the search and what it searches for: an [`Evaluator`] scores a
//! quiet position in centipawns for the side to move. The search tells it each move
//! it makes and takes back ([`Evaluator::push`], [`Evaluator::pop`]), so an
//! efficiently updatable net can keep its accumulators in step; [`Material`], the
//! generation 0 of the full-chess learner, needs neither.

use shakmaty::{Chess, Move, Position, Role};

/// Scores positions for the search.
pub trait Evaluator {
    /// The value of `position` to its side to move, in centipawns (not a mate).
    fn evaluate(&mut self, position: &Chess) -> i32;
    /// A search starts at `root` (an incremental evaluator rebuilds its state).
    fn root(&mut self, _root: &Chess) {}
    /// `position` is about to play `mv` (`None`: a null move).
    fn push(&mut self, _position: &Chess, _mv: Option<&Move>) {}
    /// The last pushed move is taken back.
    fn pop(&mut self) {}
}

/// Centipawns of a piece (the king: none, it never leaves the board).
pub fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 300,
        Role::Bishop => 300,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Material balance alone: pawn 100, knight and bishop 300, rook 500, queen 900.
#[derive(Clone, Copy, Debug, Default)]
pub struct Material;

impl Evaluator for Material {
    fn evaluate(&mut self, position: &Chess) -> i32 {
        let board = position.board();
        let us = position.turn();
        Role::ALL
            .iter()
            .map(|&role| {
                let ours = (board.by_role(role) & board.by_color(us)).count() as i32;
                let theirs = (board.by_role(role) & board.by_color(!us)).count() as i32;
                piece_value(role) * (ours - theirs)
            })
            .sum()
    }
}
