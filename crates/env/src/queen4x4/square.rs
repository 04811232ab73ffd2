//! Squares of the 4x4 board and the eight directions.

use std::fmt;

/// Board side length.
pub const SIDE: i8 = 4;
/// Number of squares on the board.
pub const SQUARES: usize = 16;

/// The eight directions as (row step, column step), in the study's order:
/// south, north, east, west, south-east, south-west, north-east, north-west.
pub const DIRECTIONS: [(i8, i8); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// A square of the 4x4 board, index `4 * row + column` (row 0 = rank 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with this index, if it is on the board.
    pub fn from_index(index: usize) -> Option<Square> {
        (index < SQUARES).then_some(Square(index as u8))
    }

    /// The square at (row, column), if it is on the board.
    pub fn at(row: i8, col: i8) -> Option<Square> {
        ((0..SIDE).contains(&row) && (0..SIDE).contains(&col))
            .then(|| Square((row * SIDE + col) as u8))
    }

    /// All 16 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// Index `4 * row + column`.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Row, 0 = rank 4.
    pub fn row(self) -> i8 {
        self.0 as i8 / SIDE
    }

    /// Column, 0 = file a.
    pub fn col(self) -> i8 {
        self.0 as i8 % SIDE
    }

    /// One bit set at this square's index.
    pub fn bit(self) -> u16 {
        1 << self.0
    }

    /// The square `steps` steps away in `direction`, if on the board.
    pub fn step(self, direction: usize, steps: i8) -> Option<Square> {
        let (dr, dc) = DIRECTIONS[direction];
        Square::at(self.row() + dr * steps, self.col() + dc * steps)
    }

    /// Whether the two squares touch (king distance 1).
    pub fn touches(self, other: Square) -> bool {
        self != other
            && (self.row() - other.row()).abs() <= 1
            && (self.col() - other.col()).abs() <= 1
    }

    /// Parses algebraic names "a1".."d4".
    pub fn parse(name: &str) -> Option<Square> {
        let mut chars = name.chars();
        let file = chars.next()?;
        let rank = chars.next()?;
        if chars.next().is_some() || !('a'..='d').contains(&file) || !('1'..='4').contains(&rank) {
            return None;
        }
        Square::at(SIDE - (rank as i8 - b'0' as i8), file as i8 - b'a' as i8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = (b'a' + self.col() as u8) as char;
        let rank = SIDE - self.row();
        write!(f, "{file}{rank}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_layout_matches_the_study() {
        assert_eq!(Square::parse("a4").unwrap().index(), 0);
        assert_eq!(Square::parse("d4").unwrap().index(), 3);
        assert_eq!(Square::parse("a1").unwrap().index(), 12);
        assert_eq!(Square::parse("d1").unwrap().index(), 15);
        for sq in Square::all() {
            assert_eq!(Square::parse(&sq.to_string()), Some(sq));
        }
    }

    #[test]
    fn south_increases_the_row() {
        let a4 = Square::parse("a4").unwrap();
        assert_eq!(a4.step(0, 1), Square::parse("a3"));
        assert_eq!(a4.step(1, 1), None);
        assert_eq!(a4.step(2, 3), Square::parse("d4"));
        assert_eq!(a4.step(4, 1), Square::parse("b3"));
    }

    #[test]
    fn bad_names_are_rejected() {
        for bad in ["", "e1", "a5", "a0", "a11", "A1"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }
}
