//! One-move tactics on shakmaty's boards: which pieces can be won, and which moves
//! a search treats as forcing ([`ForcingMoves`]). Rules only, no evaluation.

use shakmaty::{Board, Chess, Color, Move, Position, Square};

use crate::selfplay::material_value;

/// Whether the piece of `owner` on `square` can be won by the other side: it is
/// attacked, and undefended or attacked by a cheaper piece (pins ignored).
pub fn en_prise(board: &Board, square: Square, owner: Color) -> bool {
    let occupied = board.occupied();
    let attackers = board.attacks_to(square, !owner, occupied);
    if attackers.is_empty() {
        return false;
    }
    let value = board.role_at(square).map_or(0.0, material_value);
    let cheapest = attackers
        .into_iter()
        .filter_map(|sq| board.role_at(sq))
        .map(material_value)
        .fold(f32::INFINITY, f32::min);
    cheapest < value || board.attacks_to(square, owner, occupied).is_empty()
}

/// How many of `owner`'s pieces other than the king are [`en_prise`].
pub fn pieces_en_prise(board: &Board, owner: Color) -> usize {
    (board.by_color(owner) & !board.kings())
        .into_iter()
        .filter(|&square| en_prise(board, square, owner))
        .count()
}

/// Which moves count as forcing for a search's `forcing_share`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForcingMoves {
    /// Checks and captures, as a chess engine's check extensions and quiescence
    /// search look at them.
    #[default]
    ChecksAndCaptures,
    /// Captures and threats: moves after which more of the opponent's pieces are
    /// [`en_prise`] than before (a king attacking a hanging knight, a fork).
    CapturesAndThreats,
    /// Checks, captures and threats.
    All,
}

impl std::str::FromStr for ForcingMoves {
    type Err = String;

    /// `checks-captures`, `captures-threats` or `all`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "checks-captures" => Ok(ForcingMoves::ChecksAndCaptures),
            "captures-threats" => Ok(ForcingMoves::CapturesAndThreats),
            "all" => Ok(ForcingMoves::All),
            _ => Err(format!(
                "forcing moves must be checks-captures, captures-threats or all, not '{text}'"
            )),
        }
    }
}

impl ForcingMoves {
    /// Whether `mv`, legal in `position`, is forcing of this kind.
    pub fn includes(self, position: &Chess, mv: Move) -> bool {
        if mv.is_capture() {
            return true;
        }
        let mut next = position.clone();
        next.play_unchecked(mv);
        let threat = || {
            let them = next.turn();
            pieces_en_prise(next.board(), them) > pieces_en_prise(position.board(), them)
        };
        match self {
            ForcingMoves::ChecksAndCaptures => next.is_check(),
            ForcingMoves::CapturesAndThreats => threat(),
            ForcingMoves::All => next.is_check() || threat(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess(fen: &str) -> Chess {
        crate::fen::position(fen).unwrap()
    }

    fn forcing(fen: &str, kind: ForcingMoves) -> Vec<String> {
        let position = chess(fen);
        position
            .legal_moves()
            .into_iter()
            .filter(|&m| kind.includes(&position, m))
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn the_kinds_are_named_and_an_unknown_name_is_refused() {
        assert_eq!(
            "checks-captures".parse(),
            Ok(ForcingMoves::ChecksAndCaptures)
        );
        assert_eq!(
            "captures-threats".parse(),
            Ok(ForcingMoves::CapturesAndThreats)
        );
        assert_eq!("all".parse(), Ok(ForcingMoves::All));
        let refused = "threats".parse::<ForcingMoves>().unwrap_err();
        assert!(refused.contains("'threats'"), "{refused}");
    }

    #[test]
    fn a_piece_is_en_prise_when_undefended_or_attacked_by_a_cheaper_one() {
        // Black's rook e5 attacks the queen f5 (defended by the king g5, but the
        // rook is cheaper) and the knight a5 (undefended); the bishop h5 is
        // attacked by nothing.
        let board = chess("8/8/8/N3rQKB/3k4/8/8/8 w - - 0 1").board().clone();
        assert!(en_prise(&board, Square::F5, Color::White));
        assert!(en_prise(&board, Square::A5, Color::White));
        assert!(!en_prise(&board, Square::H5, Color::White));
        assert!(
            !en_prise(&board, Square::G5, Color::White),
            "a king has no value to win"
        );
        assert_eq!(pieces_en_prise(&board, Color::White), 2);
        // Black's rook is attacked by the queen but defended by the king d4 and
        // cheaper than its attacker.
        assert!(!en_prise(&board, Square::E5, Color::Black));
    }

    #[test]
    fn checks_and_captures_are_forcing_and_quiet_moves_not() {
        // White: Ke1, Qd1; black: Ke8, Rd8. Qxd8+ captures; Qe2+, Qa4+, Qh5+ and
        // Qd7+ check; the queen's twelve other moves and the king's are quiet.
        assert_eq!(
            forcing(
                "3rk3/8/8/8/8/8/8/3QK3 w - - 0 1",
                ForcingMoves::ChecksAndCaptures
            ),
            ["Qd1-e2", "Qd1-a4", "Qd1-h5", "Qd1-d7", "Qd1xd8"]
        );
    }

    #[test]
    fn a_king_move_that_forks_two_pieces_is_a_threat_and_a_check_is_not() {
        // KBNK: black's king d5 attacks the knight b5 from c4 (forking it with the
        // bishop d4) and from c6; the knight hangs (the bishop does not guard b5).
        // Kxd4 is illegal (the knight guards d4), and e6, its last legal square,
        // attacks nothing.
        let black = "8/8/8/1N1k4/3B1K2/8/8/8 b - - 0 1";
        let threats = ["Kd5-c4", "Kd5-c6"];
        assert_eq!(forcing(black, ForcingMoves::CapturesAndThreats), threats);
        assert!(forcing(black, ForcingMoves::ChecksAndCaptures).is_empty());
        // White's checks are not threats: a lone king has no piece to win.
        let white = "8/8/8/1N1k4/3B1K2/8/8/8 w - - 0 1";
        assert!(forcing(white, ForcingMoves::CapturesAndThreats).is_empty());
        let checks = forcing(white, ForcingMoves::ChecksAndCaptures);
        assert!(!checks.is_empty());
        assert_eq!(forcing(white, ForcingMoves::All), checks);
        assert_eq!(forcing(black, ForcingMoves::All), threats);
    }
}
