//! The 8 symmetries of the board (the square's dihedral group). A pawnless position
//! without castling rights keeps its value and its moves under each of them, so one
//! searched position gives 8 training samples (AlphaZero's augmentation for Go).
//!
//! Symmetry `g` (0..8) acts on a square index `rank * 8 + file`: bit 2 swaps rank and
//! file (applied first), bit 0 mirrors the files, bit 1 the ranks.

use crate::two_player::CHESS_ACTIONS;

/// The number of board symmetries.
pub const SYMMETRIES: u8 = 8;

/// The square index `index` under symmetry `g`.
pub fn transform_square(index: usize, g: u8) -> usize {
    let (mut rank, mut file) = (index / 8, index % 8);
    if g & 4 != 0 {
        std::mem::swap(&mut rank, &mut file);
    }
    if g & 1 != 0 {
        file = 7 - file;
    }
    if g & 2 != 0 {
        rank = 7 - rank;
    }
    rank * 8 + file
}

/// A [`crate::two_player::ChessGame`] policy index under symmetry `g`: a (from, to)
/// move maps square by square. Under-promotions (indices from 4096) need pawns, which
/// a symmetric position has none of; they are returned unchanged.
pub fn transform_action(action: usize, g: u8) -> usize {
    debug_assert!(action < CHESS_ACTIONS);
    if action >= 64 * 64 {
        return action;
    }
    transform_square(action / 64, g) * 64 + transform_square(action % 64, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_symmetries_are_distinct_permutations_closed_under_composition() {
        let maps: Vec<Vec<usize>> = (0..SYMMETRIES)
            .map(|g| (0..64).map(|s| transform_square(s, g)).collect())
            .collect();
        for map in &maps {
            let mut sorted = map.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..64).collect::<Vec<_>>());
        }
        for a in &maps {
            for b in &maps {
                let composed: Vec<usize> = (0..64).map(|s| b[a[s]]).collect();
                assert!(maps.contains(&composed));
            }
        }
        let distinct: std::collections::BTreeSet<&Vec<usize>> = maps.iter().collect();
        assert_eq!(distinct.len(), 8);
        // a1 (0) goes to every corner: a1, h1, a8, h8.
        let corners: std::collections::BTreeSet<usize> = maps.iter().map(|m| m[0]).collect();
        assert_eq!(corners.into_iter().collect::<Vec<_>>(), [0, 7, 56, 63]);
    }
}
