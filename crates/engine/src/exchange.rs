//! Static exchange evaluation (chessprogramming.org's "SEE - The Swap Algorithm"):
//! what a capture wins or loses once both sides have recaptured on its square as
//! long as it pays, each with its least valuable attacker, pieces behind the
//! capturers (x-rays) joining as the ones in front leave. Pins and checks are
//! ignored, as engines do: it is an estimate for ordering and pruning.
//!
//! ```text
//! gain[0] = the victim (+ a promotion's gain)
//! gain[d] = the piece that took at step d-1 - gain[d-1]   (the side to take at d
//!           takes it, speculatively)
//! unwind: gain[d-1] = -max(-gain[d-1], gain[d])           (each side may stop)
//! ```

use shakmaty::{Bitboard, Board, Chess, Move, Position, Role, Square};

use super::evaluate::piece_value;

/// Longest exchange followed (32 pieces at most stand on a board).
const MAX_EXCHANGE: usize = 32;

/// The roles from least to most valuable (the order in which exchanges use them).
const CHEAPEST_FIRST: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The material `m` (a capture or a promotion of the side to move in `position`)
/// wins in centipawns after the exchange on its target square: negative when it
/// likely loses material.
pub fn static_exchange(position: &Chess, m: &Move) -> i32 {
    let board = position.board();
    let Some(from) = m.from() else {
        return 0;
    };
    let to = m.to();
    let mut occupied = board.occupied() ^ Bitboard::from_square(from);
    if let Move::EnPassant { .. } = m {
        // The captured pawn stands beside the target, on the mover's rank.
        occupied ^= Bitboard::from_square(Square::from_coords(to.file(), from.rank()));
    }
    let promotion_gain = m
        .promotion()
        .map_or(0, |role| piece_value(role) - piece_value(Role::Pawn));
    let mut gains = [0i32; MAX_EXCHANGE];
    gains[0] = m.capture().map_or(0, piece_value) + promotion_gain;
    let mut on_square = m.promotion().map_or(piece_value(m.role()), piece_value);
    let mut side = !position.turn();
    let mut d = 0;
    while d + 1 < MAX_EXCHANGE {
        let attackers = board.attacks_to(to, side, occupied) & occupied;
        let Some((square, role)) = cheapest(board, attackers) else {
            break;
        };
        if role == Role::King && (board.attacks_to(to, !side, occupied) & occupied).any() {
            break; // the king may not take a defended piece
        }
        d += 1;
        gains[d] = on_square - gains[d - 1];
        on_square = piece_value(role);
        occupied ^= Bitboard::from_square(square);
        side = !side;
    }
    while d > 0 {
        gains[d - 1] = -(-gains[d - 1]).max(gains[d]);
        d -= 1;
    }
    gains[0]
}

/// Whether `m` likely loses material: a capture or promotion whose exchange loses.
/// A capture of a piece worth at least the capturer's never does (it is not
/// computed).
pub fn loses_material(position: &Chess, m: &Move) -> bool {
    let victim = m.capture().map_or(0, piece_value);
    victim < piece_value(m.role()) && static_exchange(position, m) < 0
}

/// The least valuable of `attackers` (all of one side): its square and role.
fn cheapest(board: &Board, attackers: Bitboard) -> Option<(Square, Role)> {
    CHEAPEST_FIRST.iter().find_map(|&role| {
        (attackers & board.by_role(role))
            .first()
            .map(|square| (square, role))
    })
}
