//! The moves of positions with pawns as the retrograde solver and the verifier walk
//! them. Moves within the material (a piece's quiet move, a pawn's push) lead to
//! stored children; captures and promotions are conversions, valued by the tables
//! already solved. The en passant flag of a child after a double push is set exactly
//! when a legal en passant capture follows, so each position has one index.

use shakmaty::attacks::{attacks, king_attacks, pawn_attacks};
use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};

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

/// A slot's square once its piece is captured.
const GONE: u8 = 64;

/// `men` after the piece in `slot` moves to `to`, taking whatever stands there.
fn moved(men: &Squares, slot: usize, to: Square) -> Squares {
    let mut after = *men;
    for sq in after.iter_mut() {
        if *sq == to as u8 {
            *sq = GONE;
        }
    }
    after[slot] = to as u8;
    after
}

impl PawnGraph<'_> {
    /// The squares the pieces of `men` stand on (captured ones aside).
    fn occupied(&self, men: &Squares) -> Bitboard {
        men[..self.indexer.slots()]
            .iter()
            .filter(|&&sq| sq != GONE)
            .fold(Bitboard::EMPTY, |o, &sq| o.with(square(sq)))
    }

    /// Whether `color`'s king on `men` is attacked.
    fn attacked(&self, men: &Squares, color: Color) -> bool {
        let king = square(men[usize::from(color == Color::Black)]);
        let occupied = self.occupied(men);
        self.pieces.iter().zip(men).any(|(&(c, role), &sq)| {
            c != color
                && sq != GONE
                && attacks(square(sq), Piece { color: c, role }, occupied).contains(king)
        })
    }

    /// The slot of `color`'s only pawn (materials with the en passant flag).
    fn pawn_slot(&self, color: Color) -> Option<usize> {
        self.pieces.iter().position(|&p| p == (color, Role::Pawn))
    }

    /// Whether on `men`, `to_move` to move, the other side's pawn has just advanced
    /// two squares with a legal en passant capture to follow: the pawn on its fourth
    /// rank, the two squares behind it empty, the position before the advance legal,
    /// and a pawn of `to_move` beside it that may capture it.
    fn en_passant_follows(&self, men: &Squares, to_move: Color) -> bool {
        let pusher = !to_move;
        let (Some(pushed), Some(capturer)) = (self.pawn_slot(pusher), self.pawn_slot(to_move))
        else {
            return false;
        };
        let pawn = square(men[pushed]);
        if men[pushed] == GONE || men[capturer] == GONE || relative_rank(pawn, pusher) != 3 {
            return false;
        }
        let passed = forward(pawn, pusher, -1).expect("on the board");
        let start = forward(pawn, pusher, -2).expect("on the board");
        let occupied = self.occupied(men);
        if occupied.contains(passed)
            || occupied.contains(start)
            || self.attacked(&moved(men, pushed, start), to_move)
            || !pawn_attacks(pusher, passed).contains(square(men[capturer]))
        {
            return false;
        }
        let mut after = moved(men, capturer, passed);
        after[pushed] = GONE;
        !self.attacked(&after, to_move)
    }

    /// The board of `men` with the piece in `promoted` (if any) as `role`.
    fn board(&self, men: &Squares, promoted: Option<(usize, Role)>) -> Board {
        let mut board = Board::empty();
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            if men[slot] != GONE {
                let role = match promoted {
                    Some((s, promotion)) if s == slot => promotion,
                    _ => role,
                };
                board.set_piece_at(square(men[slot]), Piece { color, role });
            }
        }
        board
    }

    /// Whether `squares` can stand for a position: distinct squares, kings apart.
    fn placeable(&self, squares: &Squares) -> bool {
        let slots = self.indexer.slots();
        self.occupied(squares).count() == slots
            && !king_attacks(square(squares[0])).contains(square(squares[1]))
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
    /// if so, whether `turn` is in check.
    pub(super) fn legal(&self, turn: Color, squares: &Squares, en_passant: bool) -> Option<bool> {
        let legal = self.placeable(squares)
            && !self.attacked(squares, !turn)
            && (!en_passant || self.en_passant_follows(squares, turn));
        legal.then(|| self.attacked(squares, turn))
    }

    /// Calls `found` with the child of every `wanted` legal move of `turn` on
    /// `squares` (`en_passant`: whether it may capture en passant).
    pub(super) fn for_each_move(
        &self,
        squares: &Squares,
        turn: Color,
        en_passant: bool,
        wanted: Wanted,
        found: &mut impl FnMut(Child),
    ) {
        let occupied = self.occupied(squares);
        let mut own = Bitboard::EMPTY;
        for (&(color, _), &sq) in self.pieces.iter().zip(squares) {
            if color == turn {
                own.add(square(sq));
            }
        }
        let enemy = occupied & !own;
        let quiet = |slot: usize, to: Square, double: bool, found: &mut dyn FnMut(Child)| {
            if wanted == Wanted::Converted {
                return;
            }
            let after = moved(squares, slot, to);
            if self.attacked(&after, turn) {
                return;
            }
            let flag = double && self.en_passant_follows(&after, !turn);
            found(Child::Stored(self.indexer.index(&after, flag)));
        };
        let convert =
            |after: Squares, promoted: Option<(usize, Role)>, found: &mut dyn FnMut(Child)| {
                if wanted != Wanted::Stored && !self.attacked(&after, turn) {
                    found(Child::Converted(self.board(&after, promoted)));
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
                        convert(moved(squares, slot, to), None, found);
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
            let captures = (pawn_attacks(turn, from) & enemy).into_iter();
            let steps = pushes.chain(captures.map(|to| (to, false)));
            for (to, double) in steps {
                if !promotes && !enemy.contains(to) {
                    quiet(slot, to, double, found);
                } else if promotes {
                    for role in PROMOTIONS {
                        convert(moved(squares, slot, to), Some((slot, role)), found);
                    }
                } else {
                    convert(moved(squares, slot, to), None, found);
                }
            }
            if en_passant && wanted != Wanted::Stored {
                let pushed = self.pawn_slot(!turn).expect("the pawn that advanced");
                let passed = forward(square(squares[pushed]), !turn, -1).expect("on the board");
                if pawn_attacks(turn, from).contains(passed) {
                    let mut after = moved(squares, slot, passed);
                    after[pushed] = GONE;
                    convert(after, None, found);
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
            && self.en_passant_follows(squares, mover)
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
                let Some(in_check) = self.legal(turn, &squares, en_passant) else {
                    found(at, Class::Illegal);
                    continue;
                };
                let mut captures = Captures::default();
                let position = &squares;
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
        let occupied = self.occupied(&squares);
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
                && (en_passant || !self.en_passant_follows(&squares, turn));
            if let Some(two) = back(2).filter(|_| double) {
                before[slot] = two as u8;
                self.push_both_flags(mover, &before, out);
            }
        }
    }

    fn children(&self, at: usize, _scratch: &mut Vec<usize>) -> u8 {
        let (turn, squares, en_passant) = self.decode(at);
        let mut count = 0u8;
        self.for_each_move(&squares, turn, en_passant, Wanted::Stored, &mut |_| {
            count += 1;
        });
        count
    }
}
