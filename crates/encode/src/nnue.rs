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
//! A net may also place each perspective's features by where its own king stands
//! ([`KingBuckets`], bullet's mirrored input buckets): with the king on files e-h
//! the board is mirrored left to right (so the king always stands on files a-d),
//! and the king's square picks one of `N` blocks of 768 inputs:
//!
//! ```text
//! input(p, piece, square) = 768 block(king'') + feature(p, piece, square) ^ flip
//! flip = 7 (the file mirrored) when p's king stands on files e-h, else 0
//! king'' = p's king square from p's side, mirrored with it
//! ```
//!
//! A net may keep several output layers (buckets) and use the one of a position's
//! material, as bullet's `MaterialCount` does: the pieces on the board, kings
//! included, pick the bucket:
//!
//! ```text
//! bucket(pieces, B) = (pieces - 2) / ceil(32 / B)      B = 8: 2-5 pieces -> 0, 30-32 -> 7
//! ```

use serde::{Deserialize, Serialize};
use shakmaty::{Board, Color, Piece, Role, Square};

/// Features per perspective.
pub const INPUTS: usize = 768;

/// Where a perspective's own king puts its features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KingBuckets {
    /// The 768 features as they are.
    #[default]
    Plain,
    /// Mirrored left to right when the king stands on files e-h; one block.
    Mirrored,
    /// Mirrored, and four blocks by the (mirrored) king square: the back rank's
    /// files a-b (castled short), its files c-d (at home or castled long), the
    /// second rank, and the rest of the board.
    Four,
}

/// How one perspective's features are placed: the first input of its block and
/// the file flip (0 or 7) applied to each feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KingView {
    offset: usize,
    flip: usize,
}

impl KingView {
    /// The input of feature `f` (of [`feature`]) in this view.
    pub fn input(self, f: usize) -> usize {
        self.offset + (f ^ self.flip)
    }
}

/// The feature of "our" king on square 0 from the perspective's side: our king's
/// features are `KING_FEATURES..KING_FEATURES + 64`.
const KING_FEATURES: usize = 64 * (Role::King as usize - 1);

impl KingBuckets {
    /// Blocks of [`INPUTS`] inputs.
    pub fn blocks(self) -> usize {
        match self {
            KingBuckets::Plain | KingBuckets::Mirrored => 1,
            KingBuckets::Four => 4,
        }
    }

    /// Inputs of the net's first layer.
    pub fn inputs(self) -> usize {
        INPUTS * self.blocks()
    }

    /// The view of a perspective whose own king stands on `king` (a square index
    /// from that perspective's side: rank 0 is its back rank).
    pub fn view(self, king: usize) -> KingView {
        let flip = if self != KingBuckets::Plain && king % 8 >= 4 {
            7
        } else {
            0
        };
        let king = king ^ flip;
        let block = match (self, king / 8, king % 8) {
            (KingBuckets::Four, 0, 0 | 1) => 0,
            (KingBuckets::Four, 0, _) => 1,
            (KingBuckets::Four, 1, _) => 2,
            (KingBuckets::Four, _, _) => 3,
            _ => 0,
        };
        KingView {
            offset: INPUTS * block,
            flip,
        }
    }

    /// The view of `perspective` on `board` (a board without that king: the plain
    /// view).
    pub fn view_of(self, board: &Board, perspective: Color) -> KingView {
        match board.king_of(perspective) {
            Some(king) => self.view(
                feature(
                    perspective,
                    Piece {
                        color: perspective,
                        role: Role::King,
                    },
                    king,
                ) - KING_FEATURES,
            ),
            None => KingView::default(),
        }
    }

    /// The view of the perspective whose set features are `set` (its own king's
    /// feature among them; none: the plain view).
    pub fn view_of_set(self, set: &[u16]) -> KingView {
        let king = set
            .iter()
            .map(|&f| usize::from(f))
            .find(|f| (KING_FEATURES..KING_FEATURES + 64).contains(f));
        king.map_or_else(KingView::default, |f| self.view(f - KING_FEATURES))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, Role};

    #[test]
    fn the_king_places_the_features_in_their_block_mirrored() {
        let board = |fen: &str| burnmate_env::fen::position(fen).unwrap().board().clone();
        // White castled short (g1), black's king at home (e8).
        let castled = board("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4");
        let pawn_a2 = feature(
            Color::White,
            Piece {
                color: Color::White,
                role: Role::Pawn,
            },
            Square::A2,
        );
        // White: g1 mirrors to b1, block 0; a2 mirrors to h2.
        let white = KingBuckets::Four.view_of(&castled, Color::White);
        assert_eq!(white.input(pawn_a2), usize::from(Square::H2));
        // Black: e8 is e1 from black's side, mirrored to d1, block 1.
        let black = KingBuckets::Four.view_of(&castled, Color::Black);
        let black_pawn_a7 = feature(
            Color::Black,
            Piece {
                color: Color::Black,
                role: Role::Pawn,
            },
            Square::A7,
        );
        assert_eq!(black.input(black_pawn_a7), 768 + usize::from(Square::H2));
        // Mirrored only: one block; plain: neither.
        assert_eq!(
            KingBuckets::Mirrored
                .view_of(&castled, Color::Black)
                .input(black_pawn_a7),
            usize::from(Square::H2)
        );
        assert_eq!(
            KingBuckets::Plain
                .view_of(&castled, Color::Black)
                .input(black_pawn_a7),
            usize::from(Square::A2)
        );
        // Second rank (block 2) and the rest (block 3), king on files a-d: no flip.
        assert_eq!(
            KingBuckets::Four.view(usize::from(Square::C2)).input(5),
            2 * 768 + 5
        );
        assert_eq!(
            KingBuckets::Four.view(usize::from(Square::D5)).input(5),
            3 * 768 + 5
        );
        // The stored set finds the same view as the board.
        let set: Vec<u16> = active(&castled, Color::Black).map(|f| f as u16).collect();
        assert_eq!(KingBuckets::Four.view_of_set(&set), black);
        assert_eq!(KingBuckets::Four.inputs(), 3072);
    }

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
