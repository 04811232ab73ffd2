//! An encoding of the 8x8 endgames for neural learners (white to move; ours, the
//! study is tabular): four one-hot planes of 64 squares (a1 = 0 .. h8 = 63).
//!
//! | slice   | meaning                                                   |
//! |---------|-----------------------------------------------------------|
//! | 0-63    | white king                                                |
//! | 64-127  | white piece in action slot 1 (queen, rook, light bishop, knight) |
//! | 128-191 | white piece in action slot 2 (dark bishop, KBNK's bishop; empty in KQK, KRK) |
//! | 192-255 | black king                                                |
//!
//! The planes follow the action slots of `burnmate_env::endgame_game`, so a piece's
//! plane and its moves' actions agree.

use burnmate_env::endgame::Match;
use burnmate_env::endgame_game::{SLOTS, slots};
use burnmate_env::environment::Encoder;
use shakmaty::{Board, Color, Position};

/// Floats per position.
pub const FEATURES: usize = (SLOTS + 1) * 64;

/// Writes the planes of `board` into `row` ([`FEATURES`] long).
pub fn encode(board: &Board, row: &mut [f32]) {
    assert_eq!(
        row.len(),
        FEATURES,
        "an endgame row holds {FEATURES} floats"
    );
    row.fill(0.0);
    for (slot, square) in slots(board).into_iter().enumerate() {
        row[64 * slot + usize::from(square)] = 1.0;
    }
    if let Some(king) = board.king_of(Color::Black) {
        row[64 * SLOTS + usize::from(king)] = 1.0;
    }
}

/// The planes as an [`Encoder`] of matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndgameEncoding;

impl Encoder<Match> for EndgameEncoding {
    fn width(&self) -> usize {
        FEATURES
    }

    fn encode(&self, state: &Match, row: &mut [f32]) {
        encode(state.position().board(), row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_env::endgame::{Endgame, parse_start};
    use shakmaty::Square;

    #[test]
    fn each_piece_sets_one_square_of_its_plane() {
        let p = parse_start(Endgame::Kbbk, "7k/8/8/8/2B5/8/8/2B1K3 w - - 0 1").unwrap();
        let mut row = vec![9.0; FEATURES];
        encode(p.board(), &mut row);
        let ones: Vec<usize> = (0..FEATURES).filter(|&i| row[i] == 1.0).collect();
        let sq = |s: Square| usize::from(s);
        assert_eq!(
            ones,
            [
                sq(Square::E1),
                64 + sq(Square::C4),
                128 + sq(Square::C1),
                192 + sq(Square::H8)
            ]
        );
        assert_eq!(row.iter().sum::<f32>(), 4.0);
    }
}
