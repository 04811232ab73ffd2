//! The moves quiescence tries when not in check: every legal capture and every
//! promotion, generated without the quiet moves (shakmaty's `capture_moves` generates
//! every legal move and then drops the quiet ones, which is most of them).
//!
//! Not in check, a move is illegal only when it exposes the king: the king steps
//! onto an attacked square, a pinned piece leaves the line through its king and its
//! pinner, or en passant uncovers a slider (left to shakmaty's own en passant
//! generator). A piece is pinned when exactly one piece, ours, stands between our
//! king and an enemy slider that would attack the king along that line.

use shakmaty::attacks::{
    attacks, between, bishop_attacks, king_attacks, pawn_attacks, ray, rook_attacks,
};
use shakmaty::{Bitboard, Chess, Move, MoveList, Piece, Position, Rank, Role, Square};

/// Promotion pieces, in shakmaty's order.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Our pieces pinned to our king on `king` (each may move only along the line
/// through the king and itself, which holds its pinner).
fn pinned(position: &Chess, king: Square) -> Bitboard {
    let board = position.board();
    let (us, them) = (position.us(), position.them());
    let snipers = (rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens()
        | bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens())
        & them;
    let mut pinned = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = between(king, sniper) & board.occupied();
        if let Some(piece) = blockers.single_square()
            && us.contains(piece)
        {
            pinned.add(piece);
        }
    }
    pinned
}

/// Pushes the pawn move `from -> to` (capturing `capture`), as four promotions on
/// the last rank.
fn push_pawn_move(moves: &mut MoveList, from: Square, to: Square, capture: Option<Role>) {
    let last = matches!(to.rank(), Rank::First | Rank::Eighth);
    let promotions: &[Option<Role>] = if last {
        &[
            Some(PROMOTIONS[0]),
            Some(PROMOTIONS[1]),
            Some(PROMOTIONS[2]),
            Some(PROMOTIONS[3]),
        ]
    } else {
        &[None]
    };
    for &promotion in promotions {
        moves.push(Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion,
        });
    }
}

/// Every legal capture and promotion of `position`, which must not be in check.
pub fn tactical_moves(position: &Chess) -> MoveList {
    debug_assert!(!position.is_check(), "in check every evasion counts");
    let board = position.board();
    let turn = position.turn();
    let (us, them, occupied) = (position.us(), position.them(), board.occupied());
    let king = board.king_of(turn).expect("a king in chess");
    let pinned = pinned(position, king);
    let line_of = |from: Square| {
        if pinned.contains(from) {
            ray(king, from)
        } else {
            Bitboard::FULL
        }
    };
    let mut moves = MoveList::new();
    for from in us & !board.kings() {
        let role = board.role_at(from).expect("a piece on an occupied square");
        let allowed = line_of(from);
        if role == Role::Pawn {
            for to in pawn_attacks(turn, from) & them & allowed {
                push_pawn_move(&mut moves, from, to, board.role_at(to));
            }
            let to = from.offset(if turn.is_white() { 8 } else { -8 });
            let last = |to: &Square| matches!(to.rank(), Rank::First | Rank::Eighth);
            if let Some(to) = to.filter(last)
                && !occupied.contains(to)
                && allowed.contains(to)
            {
                push_pawn_move(&mut moves, from, to, None);
            }
        } else {
            let piece = Piece { color: turn, role };
            for to in attacks(from, piece, occupied) & them & allowed {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }
    let without_king = occupied ^ king;
    for to in king_attacks(king) & them {
        if board.attacks_to(to, !turn, without_king).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    moves.extend(position.en_passant_moves());
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
        let mut names: Vec<String> = moves
            .into_iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        names.sort();
        names
    }

    fn expected(position: &Chess) -> Vec<String> {
        sorted(
            position
                .legal_moves()
                .into_iter()
                .filter(|m| m.is_capture() || m.is_promotion()),
        )
    }

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).unwrap()
    }

    #[test]
    fn pins_promotions_en_passant_and_the_king_are_those_of_the_legal_moves() {
        let cases = [
            // A bishop pinned by a rook may not capture off the file; the rook pinned
            // on the diagonal may take its pinner.
            "4r1k1/8/8/8/4B3/3p4/2b5/4K3 w - - 0 1",
            "k7/8/8/8/8/2b5/3R4/4K3 w - - 0 1",
            // Promotions with and without captures, one pawn pinned.
            "1n2k1r1/P5P1/8/8/8/8/6K1/8 w - - 0 1",
            "4k3/8/8/8/8/8/1p4b1/B3K3 b - - 0 1",
            // En passant that would uncover a rook along the rank is illegal.
            "8/8/8/K2pP2r/8/8/8/7k w - d6 0 2",
            "8/8/8/3pP3/8/8/8/K5k1 w - d6 0 2",
            // The king may take only an undefended piece (neither position in check).
            "8/8/8/8/8/3n4/4K3/6k1 w - - 0 1",
            "8/8/8/8/2b5/3n4/4K3/6k1 w - - 0 1",
        ];
        for fen in cases {
            let p = position(fen);
            assert!(!p.is_check(), "{fen}");
            assert_eq!(sorted(tactical_moves(&p)), expected(&p), "{fen}");
        }
        assert!(position(cases[4]).ep_square(EnPassantMode::Legal).is_none());
    }

    #[test]
    fn captures_and_promotions_equal_the_legal_ones_along_random_games() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut checked = 0;
        for _ in 0..200 {
            let mut p = Chess::default();
            for _ in 0..rng.random_range(0..160) {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                // Captures twice as likely, so games reach promotions and bare kings.
                let captures: Vec<&Move> = moves.iter().filter(|m| m.is_capture()).collect();
                let m = if !captures.is_empty() && rng.random_range(0..2) == 0 {
                    *captures[rng.random_range(0..captures.len())]
                } else {
                    moves[rng.random_range(0..moves.len())]
                };
                p.play_unchecked(m);
                if !p.is_check() {
                    assert_eq!(sorted(tactical_moves(&p)), expected(&p));
                    checked += 1;
                }
            }
        }
        assert!(checked > 5_000, "{checked}");
    }
}
