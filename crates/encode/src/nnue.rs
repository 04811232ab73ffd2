//! The inputs of the efficiently updatable net: 768 features (colour x role x
//! square) seen from each side. From side `p`'s perspective a piece is "ours" when it
//! is `p`'s, and the board is flipped vertically for black, so both sides see their
//! pieces marching up the board:
//!
//! ```text
//! feature(p, piece, square) = 384 [piece is not p's] + 64 (role - 1) + square'
//! square' = square for white's perspective, square ^ 56 (rank mirrored) for black's
//! ```

use shakmaty::{Board, Color, Piece, Square};

/// Features per perspective.
pub const INPUTS: usize = 768;

/// The feature of `piece` on `square` from `perspective`'s side.
pub fn feature(perspective: Color, piece: Piece, square: Square) -> usize {
    let theirs = usize::from(piece.color != perspective) * 384;
    let square = usize::from(square) ^ if perspective.is_white() { 0 } else { 56 };
    theirs + 64 * (piece.role as usize - 1) + square
}

/// The features set on `board` from `perspective`'s side (one a piece).
pub fn active(board: &Board, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    board
        .occupied()
        .into_iter()
        .map(move |sq| feature(perspective, board.piece_at(sq).expect("occupied"), sq))
}

/// Writes `board`'s features from `perspective` as a dense 0/1 row of [`INPUTS`].
pub fn write_row(board: &Board, perspective: Color, row: &mut [f32]) {
    row.fill(0.0);
    for f in active(board, perspective) {
        row[f] = 1.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Role};

    #[test]
    fn features_of_the_start_mirror_between_the_two_sides() {
        let start = Chess::default();
        let mut white: Vec<usize> = active(start.board(), Color::White).collect();
        let mut black: Vec<usize> = active(start.board(), Color::Black).collect();
        white.sort_unstable();
        black.sort_unstable();
        assert_eq!(white.len(), 32);
        // The start is symmetric: each side sees the same set.
        assert_eq!(white, black);
        // White's king on e1 from white's view, black's king on e8 from black's.
        let king = |color| Piece {
            color,
            role: Role::King,
        };
        assert_eq!(
            feature(Color::White, king(Color::White), Square::E1),
            5 * 64 + 4
        );
        assert_eq!(
            feature(Color::Black, king(Color::Black), Square::E8),
            5 * 64 + 4
        );
        assert_eq!(
            feature(Color::White, king(Color::Black), Square::E8),
            384 + 5 * 64 + 60
        );
    }
}
