//! The seam between a two-player game and a search: legal moves, the position after a
//! move, the value of a finished game for the side to move, and a fixed set of policy
//! indices seen from the side to move, so one network plays both colours. The
//! network's input is an [`crate::environment::Encoder`] of positions (for chess:
//! `burnmate_encode::side_to_move`, also seen from the side to move).
//!
//! The same search and self-play serve the endgames (any pawnless material: KQK,
//! KRK, KBBK, KBNK ...) and full chess: [`ChessGame`] implements the seam on
//! shakmaty's rules for any position. Like OpenSpiel's `State` (legal actions,
//! `apply_action`, `returns`) and pgx's `State` (legal-action mask, `rewards` from
//! the mover's side), but with positions as values, as a search copies them.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use crate::tactics::ForcingMoves;

/// A two-player, zero-sum game with alternating moves, as a search sees it.
pub trait TwoPlayerGame {
    /// A position (with the side to move).
    type Position: Clone;
    /// A move.
    type Move: Copy + PartialEq + std::fmt::Debug;

    /// Policy indices: every move maps to one below this.
    fn actions(&self) -> usize;

    /// The legal moves of `position` (empty when the game is over).
    fn legal_moves(&self, position: &Self::Position) -> Vec<Self::Move>;

    /// The position after `mv`.
    fn play(&self, position: &Self::Position, mv: Self::Move) -> Self::Position;

    /// The finished game's value for the side to move (-1 lost, 0 drawn, 1 won);
    /// `None` while it goes on.
    fn terminal_value(&self, position: &Self::Position) -> Option<f32>;

    /// Whether the first player (white) is to move.
    fn first_to_move(&self, position: &Self::Position) -> bool;

    /// Whether `mv` may end the game at once, told before it is played and cheaply
    /// (chess: a capture, which may leave too little material to mate). A search
    /// plays these moves when it expands a node, so it knows their end before it
    /// visits them. None by default.
    fn may_end_at_once(&self, _position: &Self::Position, _mv: Self::Move) -> bool {
        false
    }

    /// Whether `mv` is forcing of the `kind` asked (chess: [`ForcingMoves`]), the
    /// moves a search with `forcing_share` looks at whatever their prior. None by
    /// default.
    fn forcing(&self, _position: &Self::Position, _mv: Self::Move, _kind: ForcingMoves) -> bool {
        false
    }

    /// A key equal for repeated positions (the same placement and side to move),
    /// for a search told a game's earlier positions; `None`: repetitions unseen.
    fn repetition_key(&self, _position: &Self::Position) -> Option<u64> {
        None
    }

    /// The policy index of `mv` in `position`, seen from the side to move.
    fn action(&self, position: &Self::Position, mv: Self::Move) -> usize;

    /// Whether `position` keeps its value and moves under the board symmetries of
    /// [`crate::symmetry`] (policy indices mapped by `transform_action`); none by
    /// default.
    fn symmetric(&self, _position: &Self::Position) -> bool {
        false
    }
}

/// Policy indices of [`ChessGame`]: 64 x 64 (from, to) moves, queen promotions
/// included, then 72 under-promotions (8 files x 3 directions x knight/bishop/rook).
pub const CHESS_ACTIONS: usize = 64 * 64 + 8 * 3 * 3;

/// Chess on shakmaty's rules, from any position (an endgame or the initial one).
/// A game ends by mate (-1 for the mated side), stalemate, insufficient material
/// or the fifty-move rule (0). A position carries no history: a search sees
/// repetitions only when told the game's earlier positions
/// ([`TwoPlayerGame::repetition_key`]); self-play caps a game's length instead.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChessGame;

/// A position's Zobrist hash (placement, side to move, castling and en passant
/// rights): equal for repeated positions.
pub fn position_key(position: &Chess) -> u64 {
    let hash: Zobrist64 = position.zobrist_hash(EnPassantMode::Legal);
    hash.0
}

/// The square index as the side `us` sees it: black's board mirrored top to bottom
/// (`rank * 8 + file` from the mover's first rank).
pub fn seen_from(square: Square, us: Color) -> usize {
    let index = usize::from(square);
    if us == Color::White {
        index
    } else {
        index ^ 56
    }
}

impl TwoPlayerGame for ChessGame {
    type Position = Chess;
    type Move = Move;

    fn actions(&self) -> usize {
        CHESS_ACTIONS
    }

    fn legal_moves(&self, position: &Chess) -> Vec<Move> {
        position.legal_moves().into_iter().collect()
    }

    fn play(&self, position: &Chess, mv: Move) -> Chess {
        let mut next = position.clone();
        next.play_unchecked(mv);
        next
    }

    fn terminal_value(&self, position: &Chess) -> Option<f32> {
        if position.is_checkmate() {
            Some(-1.0)
        } else if position.is_stalemate()
            || position.is_insufficient_material()
            || position.halfmoves() >= 100
        {
            Some(0.0)
        } else {
            None
        }
    }

    fn first_to_move(&self, position: &Chess) -> bool {
        position.turn() == Color::White
    }

    fn may_end_at_once(&self, _position: &Chess, mv: Move) -> bool {
        mv.is_capture()
    }

    fn forcing(&self, position: &Chess, mv: Move, kind: ForcingMoves) -> bool {
        kind.includes(position, mv)
    }

    fn repetition_key(&self, position: &Chess) -> Option<u64> {
        Some(position_key(position))
    }

    fn action(&self, position: &Chess, mv: Move) -> usize {
        let us = position.turn();
        let (from, to) = match mv {
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_king_side(rook > king);
                (king, side.king_to(us))
            }
            _ => (mv.from().expect("a board move has a from square"), mv.to()),
        };
        let (from, to) = (seen_from(from, us), seen_from(to, us));
        let under = match mv.promotion() {
            Some(Role::Knight) => Some(0),
            Some(Role::Bishop) => Some(1),
            Some(Role::Rook) => Some(2),
            _ => None,
        };
        match under {
            None => from * 64 + to,
            Some(role) => {
                let (file, direction) = (from % 8, to % 8 + 1 - from % 8);
                64 * 64 + (file * 3 + direction) * 3 + role
            }
        }
    }

    /// Pawnless with no castling rights (every endgame of the matrix).
    fn symmetric(&self, position: &Chess) -> bool {
        position.board().pawns().is_empty() && position.castles().castling_rights().is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        crate::fen::position(fen).expect("a legal FEN")
    }

    #[test]
    fn a_mated_side_to_move_has_lost_and_a_stalemate_is_drawn() {
        let game = ChessGame;
        let mated = chess("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(game.terminal_value(&mated), Some(-1.0));
        assert!(game.legal_moves(&mated).is_empty());
        let stalemate = chess("7k/8/6QK/8/8/8/8/8 b - - 0 1");
        assert_eq!(game.terminal_value(&stalemate), Some(0.0));
        let bare_kings = chess("7k/8/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(game.terminal_value(&bare_kings), Some(0.0));
        let going_on = chess("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1");
        assert_eq!(game.terminal_value(&going_on), None);
        let fifty = chess("7k/8/6K1/8/8/8/8/1Q6 w - - 100 80");
        assert_eq!(game.terminal_value(&fifty), Some(0.0));
    }

    #[test]
    fn actions_are_seen_from_the_side_to_move_and_distinct() {
        let game = ChessGame;
        let start = Chess::default();
        let white: Vec<usize> = game
            .legal_moves(&start)
            .into_iter()
            .map(|m| game.action(&start, m))
            .collect();
        // 1. e4 is e2 (12) -> e4 (28).
        let e4 = game
            .legal_moves(&start)
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .unwrap();
        assert_eq!(game.action(&start, e4), 12 * 64 + 28);
        // Black's e7-e5 is the same index: the board is mirrored for the mover.
        let after = game.play(&start, e4);
        let e5 = game
            .legal_moves(&after)
            .into_iter()
            .find(|m| m.to() == Square::E5)
            .unwrap();
        assert_eq!(game.action(&after, e5), 12 * 64 + 28);
        let mut sorted = white.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), white.len());
        // Promotions from a7 to a8: the queen's is the plain move (48 -> 56); the
        // under-promotions are file a (0), straight ahead (direction 1), N/B/R.
        let promoting = chess("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        let mut promotions: Vec<usize> = game
            .legal_moves(&promoting)
            .into_iter()
            .filter(|m| m.is_promotion())
            .map(|m| game.action(&promoting, m))
            .collect();
        promotions.sort_unstable();
        assert_eq!(promotions, [48 * 64 + 56, 4096 + 3, 4096 + 4, 4096 + 5]);
        // Castling: the king's two-square move.
        let castling = chess("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let short = game
            .legal_moves(&castling)
            .into_iter()
            .find(|m| m.is_castle())
            .unwrap();
        assert_eq!(game.action(&castling, short), 4 * 64 + 6);
    }
}
