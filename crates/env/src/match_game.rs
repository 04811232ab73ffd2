//! Chess as an endgame [`Match`](crate::endgame::Match) scores it, for a search: the
//! rules of [`ChessGame`], and a game ended the moment black takes one of white's
//! pieces, drawn ([`MatchEnd::PieceLost`](crate::endgame::MatchEnd::PieceLost)),
//! where chess itself goes on (KQKR's rook takes the queen: black then has king and
//! rook against the king). A search that plays the match sees the capture's end when
//! it expands the node before it (captures may end the game at once), as it sees
//! the draw of a king taking a lone piece in KQK. The search learner's self-play
//! and its evaluation both play by it. In the lone-king endings and in KRKB and
//! KRKN it changes nothing (the capture leaves too little material to mate); in
//! KQKR it ends the game where chess would go on.

use shakmaty::{Chess, Move, Position};

use crate::endgame::{Endgame, white_lost_a_piece};
use crate::tactics::ForcingMoves;
use crate::two_player::{ChessGame, TwoPlayerGame};

/// Chess played as an endgame match of `endgame` (white the attacker): see the
/// module doc.
#[derive(Clone, Copy, Debug)]
pub struct EndgameMatchGame {
    /// The endgame whose white pieces count.
    pub endgame: Endgame,
}

impl TwoPlayerGame for EndgameMatchGame {
    type Position = Chess;
    type Move = Move;

    fn actions(&self) -> usize {
        ChessGame.actions()
    }

    fn legal_moves(&self, position: &Chess) -> Vec<Move> {
        if white_lost_a_piece(self.endgame, position.board()) {
            return Vec::new();
        }
        ChessGame.legal_moves(position)
    }

    fn play(&self, position: &Chess, mv: Move) -> Chess {
        ChessGame.play(position, mv)
    }

    fn terminal_value(&self, position: &Chess) -> Option<f32> {
        match ChessGame.terminal_value(position) {
            None if white_lost_a_piece(self.endgame, position.board()) => Some(0.0),
            value => value,
        }
    }

    fn first_to_move(&self, position: &Chess) -> bool {
        ChessGame.first_to_move(position)
    }

    fn may_end_at_once(&self, position: &Chess, mv: Move) -> bool {
        ChessGame.may_end_at_once(position, mv)
    }

    fn forcing(&self, position: &Chess, mv: Move, kind: ForcingMoves) -> bool {
        ChessGame.forcing(position, mv, kind)
    }

    fn repetition_key(&self, position: &Chess) -> Option<u64> {
        ChessGame.repetition_key(position)
    }

    fn action(&self, position: &Chess, mv: Move) -> usize {
        ChessGame.action(position, mv)
    }

    fn symmetric(&self, position: &Chess) -> bool {
        ChessGame.symmetric(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        crate::fen::position(fen).expect("a legal FEN")
    }

    fn after(fen: &str, uci: &str) -> Chess {
        let position = chess(fen);
        let mv = uci
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&position)
            .unwrap();
        ChessGame.play(&position, mv)
    }

    #[test]
    fn black_taking_a_white_piece_ends_the_match_drawn_where_chess_goes_on() {
        let kqkr = EndgameMatchGame {
            endgame: Endgame::Kqkr,
        };
        // The rook takes the hanging queen: chess goes on (king and rook against the
        // king), the match is drawn.
        let taken = after("3r2k1/8/8/8/3Q4/8/8/K7 b - - 0 1", "d8d4");
        assert_eq!(ChessGame.terminal_value(&taken), None);
        assert_eq!(kqkr.terminal_value(&taken), Some(0.0));
        assert!(kqkr.legal_moves(&taken).is_empty());
        // White taking the rook goes on in both (KQK, white to mate).
        let took = after("3r2k1/8/8/8/3Q4/8/8/K7 w - - 0 1", "d4d8");
        assert_eq!(kqkr.terminal_value(&took), None);
        assert_eq!(kqkr.legal_moves(&took), ChessGame.legal_moves(&took));
        // A mate is still a mate, for the side to move: lost.
        let mated = chess("3Q2k1/5ppp/8/8/8/8/8/K7 b - - 0 1");
        assert!(mated.is_checkmate());
        assert_eq!(kqkr.terminal_value(&mated), Some(-1.0));
        // In KQK the king taking the queen was a draw already (too little material).
        let kqk = EndgameMatchGame {
            endgame: Endgame::Kqk,
        };
        let bare = after("6k1/6Q1/8/8/8/8/8/K7 b - - 0 1", "g8g7");
        assert_eq!(ChessGame.terminal_value(&bare), Some(0.0));
        assert_eq!(kqk.terminal_value(&bare), Some(0.0));
    }
}
