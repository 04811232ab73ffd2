//! The study's 58-feature encoding of a 4x4 position with white to move.
//!
//! | slice  | meaning                                                         |
//! |--------|-----------------------------------------------------------------|
//! | 0-15   | white king, one-hot over square index `4 * row + col`           |
//! | 16-31  | queen, one-hot                                                  |
//! | 32-47  | black king, one-hot                                             |
//! | 48-49  | black in check, one-hot: `[48]` not in check, `[49]` in check   |
//! | 50-57  | number of black king legal moves (0..=7), one-hot               |
//!
//! With white to move black is never in check, so slot 48 is always 1; the study
//! kept the slot and so do we, to keep its network shape.

use burnmate_env::environment::Encoder;
use burnmate_env::queen4x4::{Position, SQUARES};

/// The study's 58-feature encoding as an [`Encoder`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queen4x4Encoding;

impl Encoder<Position> for Queen4x4Encoding {
    fn width(&self) -> usize {
        FEATURES
    }

    fn encode(&self, position: &Position, row: &mut [f32]) {
        encode(position, row);
    }
}

/// Number of features.
pub const FEATURES: usize = 58;
/// Offset of the white king's one-hot block.
pub const WHITE_KING: usize = 0;
/// Offset of the queen's one-hot block.
pub const QUEEN: usize = 16;
/// Offset of the black king's one-hot block.
pub const BLACK_KING: usize = 32;
/// Offset of the check one-hot pair.
pub const CHECK: usize = 48;
/// Offset of the black-king-mobility one-hot block.
pub const MOBILITY: usize = 50;
/// Largest mobility count with its own slot; larger counts share the last slot.
pub const MAX_MOBILITY: usize = 7;

/// Writes the 58 features of `position` into `row` (which must hold [`FEATURES`]).
pub fn encode(position: &Position, row: &mut [f32]) {
    assert_eq!(
        row.len(),
        FEATURES,
        "a queen4x4 row holds {FEATURES} floats"
    );
    row.fill(0.0);
    row[WHITE_KING + position.white_king.index()] = 1.0;
    row[QUEEN + position.queen.index()] = 1.0;
    row[BLACK_KING + position.black_king.index()] = 1.0;
    row[CHECK + usize::from(position.black_in_check())] = 1.0;
    let mobility = (position.black_king_moves().count_ones() as usize).min(MAX_MOBILITY);
    row[MOBILITY + mobility] = 1.0;
}

const _: () = assert!(MOBILITY + MAX_MOBILITY + 1 == FEATURES && BLACK_KING + SQUARES == CHECK);

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_env::queen4x4::{Square, parse_start};

    fn row(spec: &str) -> Vec<f32> {
        let mut row = vec![9.0; FEATURES];
        encode(&parse_start(spec).unwrap(), &mut row);
        row
    }

    fn ones(row: &[f32]) -> Vec<usize> {
        (0..row.len()).filter(|&i| row[i] == 1.0).collect()
    }

    #[test]
    fn each_slice_is_one_hot_at_the_right_index() {
        let r = row("Qa1 Ka2 / Kc2");
        let a2 = Square::parse("a2").unwrap().index();
        let a1 = Square::parse("a1").unwrap().index();
        let c2 = Square::parse("c2").unwrap().index();
        // Black king on c2: b1/b2/b3 touch the white king on a2, c1 and d1 lie on
        // the queen's first rank, c3 on her long diagonal; d2 and d3 are free.
        assert_eq!(ones(&r), vec![a2, 16 + a1, 32 + c2, 48, 50 + 2]);
        assert!(r.iter().all(|&v| v == 0.0 || v == 1.0));
    }

    #[test]
    fn mobility_slot_counts_black_king_moves() {
        // Black king a4: a3 lies on the queen's c1-a3 diagonal, b4 and b3 are free.
        let r = row("Qc1 Kd3 / Ka4");
        assert_eq!(ones(&r[MOBILITY..]), vec![2]);
    }
}
