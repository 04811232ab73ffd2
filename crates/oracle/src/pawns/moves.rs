//! The moves of positions with pawns as the retrograde solver and the verifier walk
//! them. Moves within the material (a piece's quiet move, a pawn's push) lead to
//! stored children; captures and promotions are conversions, valued by the tables
//! already solved. The en passant flag of a child after a double push is set exactly
//! when a legal en passant capture follows, so each position has one index.

use shakmaty::attacks::{attacks, king_attacks, pawn_attacks};
use shakmaty::{Board, Color, Piece, Role, Square};

use super::Tables;
use super::index::{PawnIndexer, Squares};
use crate::pawnless::Dtm;
use crate::retrograde::{Captures, Class, MoveGraph};

/// The pieces a pawn may promote to.
const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Wanted {
    /// Every legal move.
    All,
    /// Moves within the material only (quiet moves and pushes).
    Stored,
    /// Captures and promotions only.
    Converted,
}

/// Where a legal move leads.
pub(super) enum Child {
    /// A position of this material: its index in the other side's half.
    Stored(usize),
    /// A capture or promotion: the board after it (the other side to move).
    Converted(Board),
}

/// One material with pawns: its pieces, indexer and the tables its conversions use.
pub(super) struct PawnGraph<'a> {
    pub(super) pieces: Vec<(Color, Role)>,
    pub(super) indexer: PawnIndexer,
    pub(super) tables: &'a Tables,
}

fn square(sq: u8) -> Square {
    Square::new(u32::from(sq))
}

/// The square one step forward for a pawn of `color` (`steps` of 8 squares).
fn forward(sq: Square, color: Color, steps: i32) -> Option<Square> {
    let delta = if color == Color::White { 8 } else { -8 };
    let to = sq as i32 + delta * steps;
    (0..64).contains(&to).then(|| Square::new(to as u32))
}

/// The rank a pawn of `color` stands on, counted from its own side (0: back rank).
fn relative_rank(sq: Square, color: Color) -> u32 {
    let rank = sq.rank() as u32;
    if color == Color::White {
        rank
    } else {
        7 - rank
    }
}

/// Whether `color`'s king on `board` is attacked.
fn attacked(board: &Board, color: Color) -> bool {
    let king = (board.kings() & board.by_color(color))
        .first()
        .expect("a king a side");
    board.attacks_to(king, !color, board.occupied()).any()
}

/// `board` after the piece on `from` moves to `to` (capturing what stands there)
/// as `role` (a promotion) or as itself.
fn moved(board: &Board, from: Square, to: Square, role: Option<Role>) -> Board {
    let mut after = board.clone();
    let piece = after.remove_piece_at(from).expect("a piece to move");
    after.discard_piece_at(to);
    after.set_piece_at(
        to,
        Piece {
            color: piece.color,
            role: role.unwrap_or(piece.role),
        },
    );
    after
}

/// Whether on `board`, `to_move` to move, the other side's pawn has just advanced
/// two squares with a legal en passant capture to follow: the pawn on its fourth
/// rank, the two squares behind it empty, the position before the advance legal,
/// and a pawn of `to_move` beside it that may capture it.
pub(super) fn en_passant_follows(board: &Board, to_move: Color) -> bool {
    let pusher = !to_move;
    let Some(pawn) = (board.pawns() & board.by_color(pusher)).first() else {
        return false;
    };
    if relative_rank(pawn, pusher) != 3 {
        return false;
    }
    let (passed, start) = (
        forward(pawn, pusher, -1).expect("on the board"),
        forward(pawn, pusher, -2).expect("on the board"),
    );
    if board.occupied().contains(passed) || board.occupied().contains(start) {
        return false;
    }
    if attacked(&moved(board, pawn, start, None), to_move) {
        return false;
    }
    let capturers = pawn_attacks(pusher, passed) & board.pawns() & board.by_color(to_move);
    capturers.into_iter().any(|from| {
        let mut after = moved(board, from, passed, None);
        after.discard_piece_at(pawn);
        !attacked(&after, to_move)
    })
}

impl PawnGraph<'_> {
    /// The board of `squares`.
    pub(super) fn board(&self, squares: &Squares) -> Board {
        let mut board = Board::empty();
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            board.set_piece_at(square(squares[slot]), Piece { color, role });
        }
        board
    }

    /// Whether `squares` can stand for a position: distinct squares, kings apart.
    fn placeable(&self, squares: &Squares) -> bool {
        let slots = self.indexer.slots();
        let occupied = squares[..slots]
            .iter()
            .fold(0u64, |o, &sq| o | 1 << sq)
            .count_ones() as usize;
        occupied == slots && !king_attacks(square(squares[0])).contains(square(squares[1]))
    }

    /// The whole-table index of `turn` to move on `squares` with flag `en_passant`.
    fn at(&self, turn: Color, squares: &Squares, en_passant: bool) -> usize {
        let half = if turn == Color::White {
            0
        } else {
            self.indexer.per_side()
        };
        half + self.indexer.index(squares, en_passant)
    }

    /// The side to move, squares and flag of whole-table index `at`.
    pub(super) fn decode(&self, at: usize) -> (Color, Squares, bool) {
        let per_side = self.indexer.per_side();
        let (turn, i) = if at < per_side {
            (Color::White, at)
        } else {
            (Color::Black, at - per_side)
        };
        let (squares, en_passant) = self.indexer.squares(i);
        (turn, squares, en_passant)
    }

    /// Whether `turn` to move on `squares` (flag `en_passant`) is a legal position;
    /// with it, the board and whether `turn` is in check.
    pub(super) fn legal(
        &self,
        turn: Color,
        squares: &Squares,
        en_passant: bool,
    ) -> Option<(Board, bool)> {
        if !self.placeable(squares) {
            return None;
        }
        let board = self.board(squares);
        if attacked(&board, !turn) || (en_passant && !en_passant_follows(&board, turn)) {
            return None;
        }
        let in_check = attacked(&board, turn);
        Some((board, in_check))
    }

    /// Calls `found` with the child of every `wanted` legal move of `turn` on
    /// `board` (`squares`; `en_passant`: whether it may capture en passant).
    pub(super) fn for_each_move(
        &self,
        (board, squares): (&Board, &Squares),
        turn: Color,
        en_passant: bool,
        wanted: Wanted,
        found: &mut impl FnMut(Child),
    ) {
        let own = board.by_color(turn);
        let enemy = board.by_color(!turn);
        let occupied = board.occupied();
        let quiet = |slot: usize, to: Square, double: bool, found: &mut dyn FnMut(Child)| {
            if wanted == Wanted::Converted {
                return;
            }
            let after = moved(board, square(squares[slot]), to, None);
            if attacked(&after, turn) {
                return;
            }
            let mut child = *squares;
            child[slot] = to as u8;
            let flag = double && en_passant_follows(&after, !turn);
            found(Child::Stored(self.indexer.index(&child, flag)));
        };
        let convert =
            |from: Square, to: Square, role: Option<Role>, found: &mut dyn FnMut(Child)| {
                if wanted == Wanted::Stored {
                    return;
                }
                let after = moved(board, from, to, role);
                if !attacked(&after, turn) {
                    found(Child::Converted(after));
                }
            };
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            if color != turn {
                continue;
            }
            let from = square(squares[slot]);
            if role != Role::Pawn {
                for to in attacks(from, Piece { color, role }, occupied) & !own {
                    if enemy.contains(to) {
                        convert(from, to, None, found);
                    } else {
                        quiet(slot, to, false, found);
                    }
                }
                continue;
            }
            let promotes = relative_rank(from, turn) == 6;
            let one = forward(from, turn, 1).expect("pawns stand on ranks 2-7");
            let two = forward(from, turn, 2)
                .filter(|&two| relative_rank(from, turn) == 1 && !occupied.contains(two));
            let pushes = [Some((one, false)), two.map(|two| (two, true))];
            let pushes = pushes
                .into_iter()
                .flatten()
                .filter(|_| !occupied.contains(one));
            for (to, double) in pushes {
                if promotes {
                    for role in PROMOTIONS {
                        convert(from, to, Some(role), found);
                    }
                } else {
                    quiet(slot, to, double, found);
                }
            }
            for to in pawn_attacks(turn, from) & enemy {
                if promotes {
                    for role in PROMOTIONS {
                        convert(from, to, Some(role), found);
                    }
                } else {
                    convert(from, to, None, found);
                }
            }
            if en_passant && wanted != Wanted::Stored {
                let pawn = (board.pawns() & enemy)
                    .first()
                    .expect("the pawn that advanced");
                let passed = forward(pawn, !turn, -1).expect("on the board");
                if pawn_attacks(turn, from).contains(passed) {
                    let mut after = moved(board, from, passed, None);
                    after.discard_piece_at(pawn);
                    if !attacked(&after, turn) {
                        found(Child::Converted(after));
                    }
                }
            }
        }
    }

    /// Pushes the whole-table indices of `mover` to move on `squares`: without the
    /// en passant flag, and with it where a legal capture en passant follows.
    fn push_both_flags(&self, mover: Color, squares: &Squares, out: &mut Vec<usize>) {
        out.push(self.at(mover, squares, false));
        if self.indexer.has_en_passant()
            && self.placeable(squares)
            && en_passant_follows(&self.board(squares), mover)
        {
            out.push(self.at(mover, squares, true));
        }
    }
}

impl MoveGraph for PawnGraph<'_> {
    fn per_side(&self) -> usize {
        self.indexer.per_side()
    }

    /// One block a placement of the pieces but the kings (and a flag).
    fn blocks(&self) -> usize {
        self.indexer.per_side() / (32 * 64)
    }

    fn classify_block(&self, block: usize, found: &mut impl FnMut(usize, Class)) {
        let per_side = self.indexer.per_side();
        for i in block * 32 * 64..(block + 1) * 32 * 64 {
            for (turn, at) in [(Color::White, i), (Color::Black, per_side + i)] {
                let (_, squares, en_passant) = self.decode(at);
                let Some((board, in_check)) = self.legal(turn, &squares, en_passant) else {
                    found(at, Class::Illegal);
                    continue;
                };
                let mut captures = Captures::default();
                let position = (&board, &squares);
                self.for_each_move(
                    position,
                    turn,
                    en_passant,
                    Wanted::Converted,
                    &mut |child| {
                        captures.any_move = true;
                        if let Child::Converted(after) = child {
                            match self.tables.value(&after, !turn) {
                                Dtm::Loss(d) => {
                                    captures.win =
                                        Some(captures.win.map_or(d + 1, |w| w.min(d + 1)))
                                }
                                Dtm::Win(d) => {
                                    captures.loss = Some(captures.loss.map_or(d, |l| l.max(d)))
                                }
                                Dtm::Draw => captures.draw = true,
                                Dtm::Illegal => unreachable!("a legal move's position"),
                            }
                        }
                    },
                );
                // Only a position in check needs to know whether a quiet move exists.
                if in_check && !captures.any_move {
                    self.for_each_move(position, turn, en_passant, Wanted::Stored, &mut |_| {
                        captures.any_move = true;
                    });
                }
                found(at, Class::Legal { in_check, captures });
            }
        }
    }

    fn predecessors(&self, at: usize, out: &mut Vec<usize>) {
        out.clear();
        let (turn, squares, en_passant) = self.decode(at);
        let mover = !turn;
        let board = self.board(&squares);
        let occupied = board.occupied();
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            if color != mover {
                continue;
            }
            let sq = square(squares[slot]);
            let mut before = squares;
            if role != Role::Pawn {
                if en_passant {
                    continue;
                }
                let mut froms = attacks(sq, Piece { color, role }, occupied) & !occupied;
                if role == Role::King {
                    froms &= !king_attacks(square(squares[1 - slot]));
                }
                for from in froms {
                    before[slot] = from as u8;
                    self.push_both_flags(mover, &before, out);
                }
                continue;
            }
            let back = |steps: i32| forward(sq, mover, -steps).filter(|&b| !occupied.contains(b));
            // A single step back from the second rank would leave the pawn's ranks.
            if let Some(one) = back(1).filter(|&b| relative_rank(b, mover) >= 1)
                && !en_passant
            {
                before[slot] = one as u8;
                self.push_both_flags(mover, &before, out);
            }
            let double = relative_rank(sq, mover) == 3
                && back(1).is_some()
                && (en_passant || !en_passant_follows(&board, turn));
            if let Some(two) = back(2).filter(|_| double) {
                before[slot] = two as u8;
                self.push_both_flags(mover, &before, out);
            }
        }
    }

    fn children(&self, at: usize, _scratch: &mut Vec<usize>) -> u8 {
        let (turn, squares, en_passant) = self.decode(at);
        let board = self.board(&squares);
        let mut count = 0u8;
        self.for_each_move(
            (&board, &squares),
            turn,
            en_passant,
            Wanted::Stored,
            &mut |_| {
                count += 1;
            },
        );
        count
    }
}
