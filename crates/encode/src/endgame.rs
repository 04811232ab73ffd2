//! An encoding of the 8x8 endgames for neural learners (white to move; ours, the
//! study is tabular): four one-hot planes of 64 squares (a1 = 0 .. h8 = 63), and a
//! fifth for black's piece in the endgames where black keeps one (KQKR, KRKB).
//!
//! | slice   | meaning                                                   |
//! |---------|-----------------------------------------------------------|
//! | 0-63    | white king                                                |
//! | 64-127  | white piece in action slot 1 (queen, rook, light bishop, knight) |
//! | 128-191 | white piece in action slot 2 (dark bishop, KBNK's bishop; empty in KQK, KRK) |
//! | 192-255 | black king                                                |
//! | 256-319 | black's other piece (KQKR, KRKB only; empty once taken)   |
//!
//! The planes follow the action slots of `burnmate_env::endgame_game`, so a piece's
//! plane and its moves' actions agree.

use burnmate_env::endgame::{Endgame, Match};
use burnmate_env::endgame_game::{SLOTS, slots};
use burnmate_env::environment::Encoder;
use shakmaty::{Board, Color, Position};

/// Floats per position of a lone-king endgame.
pub const FEATURES: usize = (SLOTS + 1) * 64;

/// Writes the planes of `board` into `row` ([`FEATURES`] long, or 64 more for the
/// plane of black's other piece).
pub fn encode(board: &Board, row: &mut [f32]) {
    assert!(
        row.len() == FEATURES || row.len() == FEATURES + 64,
        "an endgame row holds {FEATURES} or {} floats",
        FEATURES + 64
    );
    row.fill(0.0);
    if row.len() > FEATURES {
        for square in board.by_color(Color::Black) & !board.kings() {
            row[FEATURES + usize::from(square)] = 1.0;
        }
    }
    for (slot, square) in slots(board).into_iter().enumerate() {
        row[64 * slot + usize::from(square)] = 1.0;
    }
    if let Some(king) = board.king_of(Color::Black) {
        row[64 * SLOTS + usize::from(king)] = 1.0;
    }
}

/// The planes as an [`Encoder`] of matches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndgameEncoding {
    /// Whether the plane of black's other piece is written.
    defender_plane: bool,
}

impl EndgameEncoding {
    /// The four planes of the lone-king endgames.
    pub const LONE_KING: EndgameEncoding = EndgameEncoding {
        defender_plane: false,
    };

    /// The planes `endgame` needs.
    pub fn of(endgame: Endgame) -> EndgameEncoding {
        EndgameEncoding {
            defender_plane: !endgame.lone_king(),
        }
    }
}

impl Encoder<Match> for EndgameEncoding {
    fn width(&self) -> usize {
        FEATURES + if self.defender_plane { 64 } else { 0 }
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

    #[test]
    fn black_s_piece_has_its_own_plane_where_the_endgame_has_one() {
        let p = parse_start(Endgame::Kqkr, "7k/8/8/8/2r5/8/8/2Q1K3 w - - 0 1").unwrap();
        let encoding = EndgameEncoding::of(Endgame::Kqkr);
        assert_eq!(encoding.width(), FEATURES + 64);
        assert_eq!(
            EndgameEncoding::of(Endgame::Kbnk),
            EndgameEncoding::LONE_KING
        );
        let mut row = vec![9.0; encoding.width()];
        encode(p.board(), &mut row);
        assert_eq!(row[FEATURES + usize::from(Square::C4)], 1.0);
        assert_eq!(row.iter().sum::<f32>(), 4.0);
    }
}
