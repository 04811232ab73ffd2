//! The selfplay study's board encoding: six 8x8 one-hot planes (pawn, knight, bishop,
//! rook, queen, king), +1 for a white piece and -1 for a black one, channel first
//! (`[6, 8, 8]`, Burn's NCHW) with rows = ranks 1..8 and columns = files a..h.

use shakmaty::{Board, Color, Role};

/// Planes per position.
pub const PLANES: usize = 6;
/// Values per encoded position (`6 * 8 * 8`).
pub const FEATURES: usize = PLANES * 64;

/// The plane of a piece type: pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5.
pub fn plane(role: Role) -> usize {
    usize::from(role as u8) - 1
}

/// Writes `board` into `out` (`FEATURES` values): `out[plane * 64 + square]`, square
/// index `rank * 8 + file` (a1 = 0, h8 = 63).
pub fn encode(board: &Board, out: &mut [f32]) {
    out[..FEATURES].fill(0.0);
    for (square, piece) in board.iter() {
        let sign = if piece.color == Color::White {
            1.0
        } else {
            -1.0
        };
        out[plane(piece.role) * 64 + usize::from(square)] = sign;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Square, fen::Fen};

    fn board(fen: &str) -> Board {
        fen.parse::<Fen>().unwrap().as_setup().board.clone()
    }

    #[test]
    fn every_piece_type_and_colour_lands_on_its_plane_with_its_sign() {
        let mut out = vec![9.0; FEATURES];
        encode(&Board::default(), &mut out);
        let at = |role: Role, sq: Square| out[plane(role) * 64 + usize::from(sq)];
        assert_eq!(at(Role::Pawn, Square::E2), 1.0);
        assert_eq!(at(Role::Pawn, Square::E7), -1.0);
        assert_eq!(at(Role::Knight, Square::B1), 1.0);
        assert_eq!(at(Role::Knight, Square::G8), -1.0);
        assert_eq!(at(Role::Bishop, Square::C1), 1.0);
        assert_eq!(at(Role::Bishop, Square::F8), -1.0);
        assert_eq!(at(Role::Rook, Square::H1), 1.0);
        assert_eq!(at(Role::Rook, Square::A8), -1.0);
        assert_eq!(at(Role::Queen, Square::D1), 1.0);
        assert_eq!(at(Role::Queen, Square::D8), -1.0);
        assert_eq!(at(Role::King, Square::E1), 1.0);
        assert_eq!(at(Role::King, Square::E8), -1.0);
        assert_eq!(at(Role::King, Square::E2), 0.0);
        assert_eq!(out.iter().filter(|&&v| v == 1.0).count(), 16);
        assert_eq!(out.iter().filter(|&&v| v == -1.0).count(), 16);
        assert_eq!(out.iter().filter(|&&v| v == 0.0).count(), FEATURES - 32);
    }

    #[test]
    fn square_indices_are_rank_major_from_a1() {
        let mut out = vec![0.0; FEATURES];
        encode(&board("7k/8/8/8/8/8/8/K7 w - - 0 1"), &mut out);
        assert_eq!(out[plane(Role::King) * 64], 1.0, "a1 = index 0");
        assert_eq!(out[plane(Role::King) * 64 + 63], -1.0, "h8 = index 63");
        assert_eq!(plane(Role::Pawn), 0);
        assert_eq!(plane(Role::King), 5);
    }
}
