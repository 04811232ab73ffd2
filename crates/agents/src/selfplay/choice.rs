//! How the selfplay study turns selector outputs into a move (host side, pure).
//!
//! Every legal move maps to (from square, destination square, piece type): a
//! promotion is the pawn's move to the last rank (always promoting to a queen;
//! under-promotions are never chosen), castling is the king's move to its castled
//! square (g1/c1, g8/c8), en passant is the pawn's move to the square it lands on.

use shakmaty::{Board, Chess, Color, Move, Position, Rank, Role, Square, attacks};

use burnmate_encode::selfplay::plane;

/// How a piece value `p` and a move value `m` combine into a move's score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Combine {
    /// The study's code: `p*m`, but `-2*p*m` when both are negative and `1.5*p*m`
    /// when `p > 0 > m` (default).
    Reference,
    /// The text: the plain product `p*m`.
    Product,
}

impl Combine {
    /// The score of a move with piece value `p` and move value `m`.
    pub fn score(self, p: f32, m: f32) -> f32 {
        match self {
            Combine::Product => p * m,
            Combine::Reference if p < 0.0 && m < 0.0 => -2.0 * p * m,
            Combine::Reference if p > 0.0 && m < 0.0 => 1.5 * p * m,
            Combine::Reference => p * m,
        }
    }
}

/// One legal move as the selectors see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelectorMove {
    /// The move.
    pub mv: Move,
    /// Square the piece leaves.
    pub from: usize,
    /// Square the piece lands on (the king's square for castling).
    pub to: usize,
    /// Plane of the piece type (pawn 0 .. king 5).
    pub role: usize,
}

/// The destination of `m` as the move selectors see it.
pub fn destination(m: &Move, turn: Color) -> Square {
    match m.castling_side() {
        Some(side) => side.king_to(turn),
        None => m.to(),
    }
}

/// The selectable moves of `position`: all legal moves, promotions to a queen only.
pub fn selectable_moves(position: &Chess) -> Vec<SelectorMove> {
    let turn = position.turn();
    position
        .legal_moves()
        .into_iter()
        .filter(|m| matches!(m.promotion(), None | Some(Role::Queen)))
        .map(|mv| SelectorMove {
            mv,
            from: usize::from(mv.from().expect("chess moves have a from square")),
            to: usize::from(destination(&mv, turn)),
            role: plane(mv.role()),
        })
        .collect()
}

/// The moves of `color`'s pieces on `board` under the study's code's simplified rules
/// (no check, so kings may be captured; no castling, en passant or promotion),
/// whoever is to move: the moves a side could still choose from once a game is over,
/// which the study's code bootstraps from at the end of every game.
pub fn pseudo_legal_moves(board: &Board, color: Color) -> Vec<SelectorMove> {
    let occupied = board.occupied();
    let mut moves = Vec::new();
    for from in board.by_color(color) {
        let piece = board.piece_at(from).expect("an own piece");
        let destinations = if piece.role == Role::Pawn {
            let captures = attacks::pawn_attacks(color, from) & board.by_color(!color);
            let (step, home) = match color {
                Color::White => (8, Rank::Second),
                Color::Black => (-8, Rank::Seventh),
            };
            let mut pushes = shakmaty::Bitboard::EMPTY;
            if let Some(one) = from.offset(step).filter(|s| !occupied.contains(*s)) {
                pushes.add(one);
                if let Some(two) = one
                    .offset(step)
                    .filter(|s| from.rank() == home && !occupied.contains(*s))
                {
                    pushes.add(two);
                }
            }
            captures | pushes
        } else {
            attacks::attacks(from, piece, occupied) & !board.by_color(color)
        };
        moves.extend(destinations.into_iter().map(|to| SelectorMove {
            mv: Move::Normal {
                role: piece.role,
                from,
                capture: board.role_at(to),
                to,
                promotion: None,
            },
            from: usize::from(from),
            to: usize::from(to),
            role: plane(piece.role),
        }));
    }
    moves
}

/// The masks of the study's code: the piece mask holds every own piece (even one
/// without a move); move mask `r` holds every destination of the own pieces of type `r`.
pub fn masks(position: &Chess, moves: &[SelectorMove]) -> ([f32; 64], [[f32; 64]; 6]) {
    let mut piece = [0.0; 64];
    for square in position.us() {
        piece[usize::from(square)] = 1.0;
    }
    let mut destinations = [[0.0; 64]; 6];
    for m in moves {
        destinations[m.role][m.to] = 1.0;
    }
    (piece, destinations)
}

/// The move to play: for each own piece with a legal move its best destination by
/// its type's move value, scored against the piece value; the best score wins (first
/// in move order on ties). `piece` and `move_values[r]` are the raw network outputs.
pub fn choose(
    moves: &[SelectorMove],
    piece: &[f32],
    move_values: &[&[f32]; 6],
    combine: Combine,
) -> usize {
    choose_scored(moves, piece, move_values, combine).0
}

/// [`choose`]'s move and its score (the combined piece and move value).
pub fn choose_scored(
    moves: &[SelectorMove],
    piece: &[f32],
    move_values: &[&[f32]; 6],
    combine: Combine,
) -> (usize, f32) {
    let mut best_for_piece: [Option<usize>; 64] = [None; 64];
    for (i, m) in moves.iter().enumerate() {
        let value = move_values[m.role][m.to];
        match best_for_piece[m.from] {
            Some(j) if move_values[moves[j].role][moves[j].to] >= value => {}
            _ => best_for_piece[m.from] = Some(i),
        }
    }
    let mut best: Option<(usize, f32)> = None;
    for i in best_for_piece.iter().flatten().copied() {
        let m = &moves[i];
        let score = combine.score(piece[m.from], move_values[m.role][m.to]);
        if best.is_none_or(|(_, s)| score > s) {
            best = Some((i, score));
        }
    }
    best.expect("a position with legal moves")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).expect("a legal FEN")
    }

    #[test]
    fn the_reference_combination_punishes_negative_move_values() {
        assert_eq!(Combine::Reference.score(2.0, 3.0), 6.0);
        assert_eq!(Combine::Reference.score(-2.0, -3.0), -12.0);
        assert_eq!(Combine::Reference.score(2.0, -3.0), -9.0);
        assert_eq!(Combine::Reference.score(-2.0, 3.0), -6.0);
        assert_eq!(Combine::Product.score(-2.0, -3.0), 6.0);
    }

    #[test]
    fn castling_promotion_and_en_passant_map_to_their_landing_squares() {
        let p = position("4k3/1P6/8/3pP3/8/8/8/R3K2R w KQ d6 0 1");
        let moves = selectable_moves(&p);
        let find = |from: Square, to: Square| {
            moves
                .iter()
                .find(|m| m.from == usize::from(from) && m.to == usize::from(to))
                .copied()
        };
        let short = find(Square::E1, Square::G1).expect("O-O is the king to g1");
        assert!(short.mv.is_castle());
        assert_eq!(short.role, 5);
        assert!(find(Square::E1, Square::C1).unwrap().mv.is_castle());
        let promotion = find(Square::B7, Square::B8).expect("b8=Q");
        assert_eq!(promotion.mv.promotion(), Some(Role::Queen));
        assert_eq!(
            moves.iter().filter(|m| m.mv.promotion().is_some()).count(),
            1,
            "under-promotions are not selectable"
        );
        let ep = find(Square::E5, Square::D6).expect("exd6 e.p.");
        assert!(ep.mv.is_en_passant());
        assert_eq!(ep.role, 0);
    }

    #[test]
    fn pseudo_legal_moves_ignore_check_and_whose_turn_it_is() {
        // White is in check from the rook on h1: legally only Ka2 and the pawn's
        // moves; pseudo-legally also Kb1. Black (not to move) may take the king on a1.
        let p = position("k7/8/8/8/8/8/1P6/K6r w - - 0 1");
        let white = pseudo_legal_moves(p.board(), Color::White);
        let squares = |moves: &[SelectorMove]| {
            let mut s: Vec<(usize, usize)> = moves.iter().map(|m| (m.from, m.to)).collect();
            s.sort();
            s
        };
        let sq = |s: Square| usize::from(s);
        let mut want = vec![
            (sq(Square::A1), sq(Square::A2)),
            (sq(Square::A1), sq(Square::B1)),
            (sq(Square::B2), sq(Square::B3)),
            (sq(Square::B2), sq(Square::B4)),
        ];
        want.sort();
        assert_eq!(squares(&white), want);
        let black = pseudo_legal_moves(p.board(), Color::Black);
        assert_eq!(
            black.len(),
            7 + 7 + 3,
            "rook: h2-h8 and g1-a1; king: a7 b7 b8"
        );
        let takes_king = black.iter().find(|m| m.to == sq(Square::A1)).expect("Rxa1");
        assert_eq!(takes_king.mv.capture(), Some(Role::King));
        assert_eq!(takes_king.role, 3);
    }

    #[test]
    fn masks_hold_every_own_piece_and_the_destinations_per_type() {
        let p = position("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1");
        let moves = selectable_moves(&p);
        let (piece, dest) = masks(&p, &moves);
        assert_eq!(piece.iter().sum::<f32>(), 3.0);
        assert_eq!(piece[usize::from(Square::A1)], 1.0);
        // The rook reaches b1, c1, d1 (a-file blocked by its own pawn).
        assert_eq!(dest[3].iter().sum::<f32>(), 3.0);
        assert_eq!(
            dest[0][usize::from(Square::A4)],
            1.0,
            "the pawn's double step"
        );
        assert_eq!(dest[4].iter().sum::<f32>(), 0.0, "no queen");
    }

    #[test]
    fn choose_takes_each_pieces_best_square_then_the_best_score() {
        // White: king e1, rook a1, pawn a2. Make the rook's best square d1 and the
        // king's best square f1; the king's piece value wins.
        let p = position("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1");
        let moves = selectable_moves(&p);
        let mut piece = vec![0.0; 64];
        piece[usize::from(Square::A1)] = 1.0;
        piece[usize::from(Square::E1)] = 2.0;
        piece[usize::from(Square::A2)] = -5.0;
        let mut values = vec![vec![0.0f32; 64]; 6];
        values[3][usize::from(Square::D1)] = 3.0;
        values[3][usize::from(Square::C1)] = 2.0;
        values[5][usize::from(Square::F1)] = 2.0;
        values[5][usize::from(Square::D1)] = 1.0;
        values[0][usize::from(Square::A3)] = 1.0;
        let refs: [&[f32]; 6] = std::array::from_fn(|r| values[r].as_slice());
        let i = choose(&moves, &piece, &refs, Combine::Reference);
        assert_eq!(moves[i].from, usize::from(Square::E1));
        assert_eq!(moves[i].to, usize::from(Square::F1));
        piece[usize::from(Square::E1)] = 1.0;
        let i = choose(&moves, &piece, &refs, Combine::Reference);
        assert_eq!(
            moves[i].to,
            usize::from(Square::D1),
            "rook: 1 * 3 beats king 1 * 2"
        );
    }
}
