//! The inputs of the efficiently updatable net: 768 features (colour x role x
//! square) seen from each side. From side `p`'s perspective a piece is "ours" when it
//! is `p`'s, and the board is flipped vertically for black, so both sides see their
//! pieces marching up the board:
//!
//! ```text
//! feature(p, piece, square) = 384 [piece is not p's] + 64 (role - 1) + square'
//! square' = square for white's perspective, square ^ 56 (rank mirrored) for black's
//! ```
//!
//! A net may keep several output layers (buckets) and use the one of a position's
//! material, as bullet's `MaterialCount` does: the pieces on the board, kings
//! included, pick the bucket:
//!
//! ```text
//! bucket(pieces, B) = (pieces - 2) / ceil(32 / B)      B = 8: 2-5 pieces -> 0, 30-32 -> 7
//! ```

use shakmaty::{Board, Color, Piece, Square};

/// Features per perspective.
pub const INPUTS: usize = 768;

/// The output bucket of a position with `pieces` pieces (kings included) among
/// `buckets` (at least one; more than 32 are never chosen).
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    let per_bucket = 32usize.div_ceil(buckets.max(1));
    (pieces.saturating_sub(2) / per_bucket).min(buckets.max(1) - 1)
}

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
    fn the_material_picks_the_output_bucket() {
        let eight: Vec<usize> = [2, 5, 6, 17, 29, 30, 32]
            .map(|n| output_bucket(n, 8))
            .to_vec();
        assert_eq!(eight, [0, 0, 1, 3, 6, 7, 7]);
        assert_eq!(output_bucket(32, 1), 0);
        assert_eq!(output_bucket(2, 1), 0);
        // 32 / 3 rounds up to 11 pieces a bucket.
        assert_eq!([12, 13, 24, 32].map(|n| output_bucket(n, 3)), [0, 1, 2, 2]);
    }

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
