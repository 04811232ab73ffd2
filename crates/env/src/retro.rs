//! Starts grown backwards from mate, on the rules alone: a random checkmate of an
//! endgame's material, then a random walk of un-moves (retro moves). A walk of `k`
//! un-moves from a mate gives a position whose side to move can mate in at most
//! `(k + 1) / 2` moves if the defender replays the walk, so short walks give easy
//! starts and a curriculum lengthens them as the learner succeeds.
//!
//! An un-move takes back a non-capturing move of the side that moved last (the
//! material stays the endgame's): a piece goes back to a square it could have come
//! from, and the result must be a legal position with that side to move. No
//! tablebase is read.

use rand::{Rng, RngExt};
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup, Square,
    attacks,
};

use crate::endgame::Endgame;

/// Squares a piece of `role` on `square` could have come from on `board` without
/// capturing (every pawnless move is reversible along the same line).
fn origins(board: &Board, square: Square, role: Role) -> Bitboard {
    let occupied = board.occupied();
    let reach = match role {
        Role::King => attacks::king_attacks(square),
        Role::Knight => attacks::knight_attacks(square),
        Role::Bishop => attacks::bishop_attacks(square, occupied),
        Role::Rook => attacks::rook_attacks(square, occupied),
        Role::Queen => attacks::queen_attacks(square, occupied),
        Role::Pawn => Bitboard::EMPTY,
    };
    reach & !occupied
}

/// A position from `board` with `turn` to move (no castling, no en passant), if legal.
fn position(board: Board, turn: Color) -> Option<Chess> {
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = turn;
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

/// Every position one un-move before `position`: the side that moved last takes
/// back one non-capturing piece move (a pawn stays where it stands, so a KRKP walk
/// keeps black's pawn on its square).
pub fn unmoves(position: &Chess) -> Vec<Chess> {
    let mover = !position.turn();
    let board = position.board();
    let mut before = Vec::new();
    for square in board.by_color(mover) {
        let role = board.role_at(square).expect("an occupied square");
        for origin in origins(board, square, role) {
            let mut earlier = board.clone();
            let piece = earlier.remove_piece_at(square).expect("the piece");
            earlier.set_piece_at(origin, piece);
            if let Some(p) = self::position(earlier, mover) {
                before.push(p);
            }
        }
    }
    before
}

/// A checkmate of `endgame`'s material, black mated: pieces placed uniformly at
/// random until the placement is a mate (KBBK's bishops on opposite colours).
pub fn random_mate(endgame: Endgame, rng: &mut (impl Rng + ?Sized)) -> Chess {
    loop {
        let mut board = Board::empty();
        let pieces = [(Color::White, Role::King), (Color::Black, Role::King)]
            .into_iter()
            .chain(endgame.other_pieces());
        for (color, role) in pieces {
            let free: Vec<Square> = (!board.occupied()).into_iter().collect();
            board.set_piece_at(free[rng.random_range(0..free.len())], Piece { color, role });
        }
        let bishops = board.bishops();
        if endgame == Endgame::Kbbk && (bishops & Bitboard::LIGHT_SQUARES).count() != 1 {
            continue;
        }
        if let Some(p) = position(board, Color::Black).filter(Position::is_checkmate) {
            return p;
        }
    }
}

/// A random mate of `endgame`, then `plies` random un-moves (fewer if a walk
/// reaches a position without un-moves; it then starts again from a new mate).
/// Odd `plies` leave white to move.
pub fn retro_start(endgame: Endgame, plies: u32, rng: &mut (impl Rng + ?Sized)) -> Chess {
    'walk: loop {
        let mut p = random_mate(endgame, rng);
        for _ in 0..plies {
            let before = unmoves(&p);
            if before.is_empty() {
                continue 'walk;
            }
            p = before[rng.random_range(0..before.len())].clone();
        }
        return p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The pawn endings mated with black's pawn on the board (it never un-moves).
    const BLACK_PAWN_ONLY: [Endgame; 2] = [Endgame::Kqkp, Endgame::Krkp];

    #[test]
    fn every_unmove_is_legal_and_its_forward_move_returns_to_the_source() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for endgame in Endgame::ALL.into_iter().chain(BLACK_PAWN_ONLY) {
            for plies in [0, 1, 2, 5, 12] {
                let source = retro_start(endgame, plies, &mut rng);
                let before = unmoves(&source);
                assert!(!before.is_empty() || plies == 0, "{endgame:?} {plies}");
                for earlier in before {
                    assert_eq!(earlier.turn(), !source.turn());
                    assert_eq!(earlier.board().material(), source.board().material());
                    let returns = earlier.legal_moves().into_iter().any(|m| {
                        let mut after = earlier.clone();
                        after.play_unchecked(m);
                        !m.is_capture() && after.board() == source.board()
                    });
                    assert!(returns, "{endgame:?}: no move back to the source");
                }
            }
        }
    }

    #[test]
    fn walks_start_from_a_mate_of_the_endgames_material() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        for endgame in Endgame::ALL.into_iter().chain(BLACK_PAWN_ONLY) {
            let mate = random_mate(endgame, &mut rng);
            assert!(mate.is_checkmate() && mate.turn() == Color::Black);
            assert!(crate::endgame::has_material(endgame, mate.board()));
            // One un-move from a mate: white to move, and the mating move is legal.
            let one = retro_start(endgame, 1, &mut rng);
            assert_eq!(one.turn(), Color::White);
            let mates = one.legal_moves().into_iter().any(|m| {
                let mut after = one.clone();
                after.play_unchecked(m);
                after.is_checkmate()
            });
            assert!(mates, "{endgame:?}: a walk of one un-move is a mate in one");
        }
    }

    #[test]
    fn the_unmoves_of_a_hand_made_position_are_all_found() {
        // White Kh1 in check from the black rook on a1, black Kh8, white to move:
        // black moved last. The rook came from a2..a8; not from b1..g1 (white would
        // have been in check with black to move), and the king did not move (the
        // rook's check would have stood with black to move).
        let p = crate::fen::position("7k/8/8/8/8/8/8/r6K w - - 0 1").unwrap();
        let mut rook_from: Vec<Square> = unmoves(&p)
            .iter()
            .map(|q| {
                assert_eq!(q.turn(), Color::Black);
                (q.board().rooks() & q.board().black()).first().unwrap()
            })
            .collect();
        rook_from.sort();
        let a_file: Vec<Square> = (1..8)
            .map(|rank| Square::from_coords(shakmaty::File::A, shakmaty::Rank::new(rank)))
            .collect();
        assert_eq!(rook_from, a_file);
    }
}
