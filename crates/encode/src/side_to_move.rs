//! The afterstate learner's encoding: a position seen from the side to move ("us"),
//! so one network serves both colours.
//!
//! - 12 one-hot planes of 64 squares: our pawn .. king (planes 0-5), theirs (6-11).
//!   Black's board is mirrored top to bottom, so our pawns always move up the ranks;
//!   square index `rank * 8 + file` from our side's first rank.
//! - 10 threat counts: per side (ours first) and role (pawn .. queen), how many of
//!   that side's pieces are en prise: attacked by the other side and either not
//!   defended or attacked by a cheaper piece (pins ignored).
//! - 1 flag: we are in check.

use burnmate_env::environment::Encoder;
use burnmate_env::symmetry::transform_square;
use burnmate_env::tactics::en_prise;
use burnmate_env::two_player::seen_from;
use shakmaty::{Chess, Position, Role};

/// Piece planes (6 roles x 2 sides).
pub const PLANES: usize = 12;
/// Threat counts (5 roles x 2 sides).
pub const THREATS: usize = 10;
/// Values per encoded position.
pub const FEATURES: usize = PLANES * 64 + THREATS + 1;

/// The roles a threat count covers, in feature order.
const THREAT_ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

/// The most values an encoded position sets: 32 pieces, the 10 threat counts and the
/// check flag.
pub const MOST_SET: usize = 32 + THREATS + 1;

/// Calls `set(index, value)` for each non-zero value of `position`'s encoding, each
/// index once (the pieces, then the threat counts, then the check flag): [`encode`]
/// writes exactly these.
pub fn set_entries(position: &Chess, mut set: impl FnMut(usize, f32)) {
    let board = position.board();
    let us = position.turn();
    let mut threats = [0.0f32; THREATS];
    for (square, piece) in board.iter() {
        let side = if piece.color == us { 0 } else { 6 };
        let plane = side + usize::from(piece.role as u8) - 1;
        set(plane * 64 + seen_from(square, us), 1.0);
        if piece.role == Role::King || !en_prise(board, square, piece.color) {
            continue;
        }
        let role = THREAT_ROLES
            .iter()
            .position(|&r| r == piece.role)
            .expect("not a king");
        let side = if piece.color == us { 0 } else { 5 };
        threats[side + role] += 1.0;
    }
    for (k, &count) in threats.iter().enumerate() {
        if count != 0.0 {
            set(PLANES * 64 + k, count);
        }
    }
    if position.is_check() {
        set(FEATURES - 1, 1.0);
    }
}

/// Writes `position` seen from its side to move into `out` (`FEATURES` values).
pub fn encode(position: &Chess, out: &mut [f32]) {
    let out = &mut out[..FEATURES];
    out.fill(0.0);
    set_entries(position, |i, v| out[i] = v);
}

/// An encoded row under board symmetry `g` ([`burnmate_env::symmetry`]): the piece
/// planes' squares move, the threat counts and the check flag stay.
pub fn transform_row(row: &mut [f32], g: u8) {
    let mut planes = [0.0f32; PLANES * 64];
    for plane in 0..PLANES {
        for square in 0..64 {
            planes[plane * 64 + transform_square(square, g)] = row[plane * 64 + square];
        }
    }
    row[..PLANES * 64].copy_from_slice(&planes);
}

/// [`encode`] as an [`Encoder`] of chess positions (the search learner's input).
#[derive(Clone, Copy, Debug, Default)]
pub struct SideToMoveEncoding;

impl Encoder<Chess> for SideToMoveEncoding {
    fn width(&self) -> usize {
        FEATURES
    }

    fn encode(&self, position: &Chess, row: &mut [f32]) {
        encode(position, row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Square};

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).unwrap()
    }

    fn encoded(fen: &str) -> Vec<f32> {
        let mut out = vec![9.0; FEATURES];
        encode(&position(fen), &mut out);
        out
    }

    #[test]
    fn the_start_looks_the_same_to_both_sides() {
        let white = encoded("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let black = encoded("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
        assert_eq!(white, black);
        assert_eq!(white.iter().filter(|&&v| v == 1.0).count(), 32);
        assert_eq!(white[usize::from(Square::E2)], 1.0, "our e-pawn");
        assert_eq!(white[6 * 64 + usize::from(Square::E7)], 1.0, "their e-pawn");
        assert_eq!(white[5 * 64 + usize::from(Square::E1)], 1.0, "our king");
        assert_eq!(white[11 * 64 + usize::from(Square::E8)], 1.0, "their king");
        assert!(white[PLANES * 64..].iter().all(|&v| v == 0.0));
    }

    #[test]
    fn black_to_move_sees_its_own_pieces_first_and_mirrored() {
        let out = encoded("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
        assert_eq!(
            out[5 * 64 + usize::from(Square::E1)],
            1.0,
            "our king e8 -> e1"
        );
        assert_eq!(
            out[11 * 64 + usize::from(Square::E8)],
            1.0,
            "their king e1 -> e8"
        );
        assert_eq!(
            out[6 * 64 + usize::from(Square::E7)],
            1.0,
            "their pawn e2 -> e7"
        );
        assert_eq!(out.iter().filter(|&&v| v == 1.0).count(), 3);
    }

    #[test]
    fn threats_count_hanging_and_underdefended_pieces_of_each_side() {
        // White to move: black's queen on d5 is attacked by the e4 pawn (cheaper,
        // though defended); black's knight on a5 by the b4 pawn (cheaper, though the
        // queen defends it); white's rook on h4 by the g5 pawn; white's e4 pawn is
        // attacked by the queen but defended by the rook: not en prise.
        let out = encoded("4k3/8/8/n2q2p1/1P2P2R/P7/8/4K3 w - - 0 1");
        let threats = &out[PLANES * 64..PLANES * 64 + THREATS];
        // ours: pawn, knight, bishop, rook, queen; theirs: the same.
        assert_eq!(threats, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(out[FEATURES - 1], 0.0);
    }

    #[test]
    fn the_last_value_flags_check() {
        let out = encoded("4k3/8/8/8/8/8/8/4K2r w - - 0 1");
        assert_eq!(out[FEATURES - 1], 1.0);
        assert_eq!(out[PLANES * 64 + 5..PLANES * 64 + THREATS], [0.0; 5]);
    }

    /// `position` with every piece moved by symmetry `g` as its side to move sees
    /// the board.
    fn transformed(position: &Chess, g: u8) -> Chess {
        let us = position.turn();
        let mut board = shakmaty::Board::empty();
        for (square, piece) in position.board().iter() {
            let seen = burnmate_env::symmetry::transform_square(seen_from(square, us), g);
            // seen_from is its own inverse.
            let real = Square::new(seen_from(Square::new(seen as u32), us) as u32);
            board.set_piece_at(real, piece);
        }
        let mut setup = shakmaty::Setup::empty();
        setup.board = board;
        setup.turn = us;
        shakmaty::FromSetup::from_setup(setup, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn a_symmetric_row_and_its_moves_are_those_of_the_symmetric_position() {
        use burnmate_env::symmetry::{SYMMETRIES, transform_action};
        use burnmate_env::two_player::{ChessGame, TwoPlayerGame};
        for fen in [
            "8/8/8/3k4/8/8/2R5/4K3 w - - 0 1",
            "8/8/2k5/8/4N3/8/1B6/6K1 b - - 0 1",
            "8/2r5/8/3k4/8/6Q1/8/1K6 w - - 0 1",
            "8/8/8/3q4/8/1k6/8/4K2R b - - 0 1",
        ] {
            let p = position(fen);
            assert!(ChessGame.symmetric(&p));
            let mut row = vec![0.0; FEATURES];
            encode(&p, &mut row);
            let actions: Vec<usize> = ChessGame
                .legal_moves(&p)
                .into_iter()
                .map(|m| ChessGame.action(&p, m))
                .collect();
            for g in 0..SYMMETRIES {
                let q = transformed(&p, g);
                let mut want = vec![0.0; FEATURES];
                encode(&q, &mut want);
                let mut got = row.clone();
                transform_row(&mut got, g);
                assert_eq!(got, want, "{fen}, symmetry {g}");
                let mut mapped: Vec<usize> =
                    actions.iter().map(|&a| transform_action(a, g)).collect();
                let mut legal: Vec<usize> = ChessGame
                    .legal_moves(&q)
                    .into_iter()
                    .map(|m| ChessGame.action(&q, m))
                    .collect();
                mapped.sort_unstable();
                legal.sort_unstable();
                assert_eq!(mapped, legal, "{fen}, symmetry {g}");
            }
        }
        assert!(
            !ChessGame.symmetric(&Chess::default()),
            "pawns and castling"
        );
    }
}
