//! The moves of pawnless positions on the symmetry-reduced index, as the retrograde
//! solver ([`crate::retrograde`]) and the verifier walk them: attack tests from the
//! target square, pins and evasions computed once a position, captures valued by
//! the smaller tables, un-moves for the predecessors.

use shakmaty::attacks::{
    attacks, between, bishop_attacks, king_attacks, knight_attacks, ray, rook_attacks,
};
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::index::{Indexer, KING_PAIRS, Squares};
use super::{Dtm, DtmTable, MAX_PIECES};
use crate::retrograde::{Captures, Class, MoveGraph};

/// A side's index in per-side arrays: white 0, black 1.
pub(super) fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

pub(super) fn king_slot(color: Color) -> usize {
    color_index(color)
}

fn square(sq: u8) -> Square {
    Square::new(u32::from(sq))
}

pub(super) fn bit(sq: u8) -> Bitboard {
    Bitboard::from_square(square(sq))
}

/// A position's pieces as bitboards, for attack tests from the target square.
#[derive(Clone, Copy)]
pub(super) struct Sets {
    by_color: [Bitboard; 2],
    kings: Bitboard,
    knights: Bitboard,
    diagonal: Bitboard,
    straight: Bitboard,
}

impl Sets {
    /// Toggles the piece `(color, role)` on `squares` (adds or removes it).
    pub(super) fn toggle(&mut self, color: Color, role: Role, squares: Bitboard) {
        self.by_color[color_index(color)] ^= squares;
        match role {
            Role::King => self.kings ^= squares,
            Role::Knight => self.knights ^= squares,
            Role::Bishop => self.diagonal ^= squares,
            Role::Rook => self.straight ^= squares,
            Role::Queen => {
                self.diagonal ^= squares;
                self.straight ^= squares;
            }
            Role::Pawn => unreachable!("pawnless"),
        }
    }

    fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The pieces of `by` that attack `target`.
    fn attackers(&self, target: u8, by: Color) -> Bitboard {
        let (t, occupied) = (square(target), self.occupied());
        ((knight_attacks(t) & self.knights)
            | (king_attacks(t) & self.kings)
            | (bishop_attacks(t, occupied) & self.diagonal)
            | (rook_attacks(t, occupied) & self.straight))
            & self.by_color[color_index(by)]
    }

    /// Whether `by` attacks `target`.
    pub(super) fn attacks(&self, target: u8, by: Color) -> bool {
        self.attackers(target, by).any()
    }

    /// Per side (white, black), whether its king on `squares` is attacked: one side's
    /// check is the other side's illegality to move.
    pub(super) fn kings_attacked(&self, squares: &Squares) -> [bool; 2] {
        [Color::White, Color::Black].map(|color| self.attacks(squares[king_slot(color)], !color))
    }

    /// The rule for the moves of `color`'s pieces but its king (on `king`;
    /// `in_check`: whether it is attacked).
    fn guard(&self, king: u8, color: Color, in_check: bool) -> KingGuard {
        let k = square(king);
        let enemy = self.by_color[color_index(!color)];
        let snipers = ((rook_attacks(k, Bitboard::EMPTY) & self.straight)
            | (bishop_attacks(k, Bitboard::EMPTY) & self.diagonal))
            & enemy;
        let occupied = self.occupied();
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(k, sniper) & occupied;
            if !blockers.more_than_one() {
                pinned |= blockers & self.by_color[color_index(color)];
            }
        }
        let evasions = if !in_check {
            Bitboard::FULL
        } else {
            let checkers = self.attackers(king, !color);
            match checkers.single_square() {
                Some(checker) => between(k, checker).with(checker),
                None => Bitboard::EMPTY,
            }
        };
        KingGuard {
            king: k,
            pinned,
            evasions,
        }
    }

    /// Every square `by` attacks.
    fn attack_map(&self, by: Color) -> Bitboard {
        let occupied = self.occupied();
        let mut map = Bitboard::EMPTY;
        for from in self.by_color[color_index(by)] {
            if self.kings.contains(from) {
                map |= king_attacks(from);
            }
            if self.knights.contains(from) {
                map |= knight_attacks(from);
            }
            if self.diagonal.contains(from) {
                map |= bishop_attacks(from, occupied);
            }
            if self.straight.contains(from) {
                map |= rook_attacks(from, occupied);
            }
        }
        map
    }
}

/// What a side's pieces but its king may do, its king as it stands: a legal move
/// lands on `evasions` (every square out of check; in check by one piece, the
/// checker's square or one between it and the king; none in double check), and a
/// pinned piece stays on its line with the king.
#[derive(Clone, Copy)]
struct KingGuard {
    king: Square,
    pinned: Bitboard,
    evasions: Bitboard,
}

impl KingGuard {
    /// Whether the king is in check.
    fn in_check(&self) -> bool {
        self.evasions != Bitboard::FULL
    }

    /// The squares among `targets` the piece on `from` may move to.
    fn allowed(&self, from: Square, targets: Bitboard) -> Bitboard {
        let targets = targets & self.evasions;
        if self.pinned.contains(from) {
            targets & ray(self.king, from)
        } else {
            targets
        }
    }
}

/// One material's pieces and indexer, with the tables its captures lead to.
pub(super) struct Rules<'a> {
    /// The pieces in index order.
    pub(super) pieces: Vec<(Color, Role)>,
    /// The material's indexer.
    pub(super) indexer: Indexer,
    /// Per slot, the table after that piece is captured (kings: none).
    pub(super) subtables: &'a [Option<&'a DtmTable>],
}

/// The side to move of a legal position, with what its pieces may do: computed once
/// a position for its captures and its quiet moves.
pub(super) struct Mover<'a> {
    turn: Color,
    squares: &'a Squares,
    sets: &'a Sets,
    guard: KingGuard,
    /// Per slot of `turn`'s pieces, the squares it attacks (empty for the other side's).
    reach: [Bitboard; MAX_PIECES],
}

impl Rules<'_> {
    pub(super) fn slots(&self) -> usize {
        self.pieces.len()
    }

    fn sets(&self, squares: &Squares) -> Sets {
        let mut sets = self.piece_sets(squares);
        for king in [Color::White, Color::Black] {
            sets.toggle(king, Role::King, bit(squares[king_slot(king)]));
        }
        sets
    }

    /// The bitboards of the pieces of `squares` but the kings.
    pub(super) fn piece_sets(&self, squares: &Squares) -> Sets {
        let mut sets = Sets {
            by_color: [Bitboard::EMPTY; 2],
            kings: Bitboard::EMPTY,
            knights: Bitboard::EMPTY,
            diagonal: Bitboard::EMPTY,
            straight: Bitboard::EMPTY,
        };
        for (slot, &(color, role)) in self.pieces.iter().enumerate().skip(2) {
            sets.toggle(color, role, bit(squares[slot]));
        }
        sets
    }

    fn reach(&self, slot: usize, squares: &Squares, occupied: Bitboard) -> Bitboard {
        let (color, role) = self.pieces[slot];
        attacks(square(squares[slot]), Piece { color, role }, occupied)
    }

    fn slots_of(&self, color: Color) -> impl Iterator<Item = usize> + '_ {
        (0..self.slots()).filter(move |&s| self.pieces[s].0 == color)
    }

    /// `turn` to move in the legal position `squares` (its pieces `sets`; `in_check`:
    /// whether its king is attacked).
    pub(super) fn mover<'a>(
        &self,
        turn: Color,
        squares: &'a Squares,
        sets: &'a Sets,
        in_check: bool,
    ) -> Mover<'a> {
        let occupied = sets.occupied();
        let mut reach = [Bitboard::EMPTY; MAX_PIECES];
        for slot in self.slots_of(turn) {
            reach[slot] = self.reach(slot, squares, occupied);
        }
        Mover {
            turn,
            squares,
            sets,
            guard: sets.guard(squares[king_slot(turn)], turn, in_check),
            reach,
        }
    }

    /// `turn`'s captures in a legal position (and, in check, whether any move is legal:
    /// a legal capture, else the first legal move that does not capture).
    pub(super) fn captures(&self, mover: &Mover) -> Captures {
        let Mover {
            turn,
            squares,
            sets,
            guard,
            ..
        } = *mover;
        let mut found = Captures::default();
        let enemy = sets.by_color[color_index(!turn)];
        for slot in self.slots_of(turn) {
            for to in mover.reach[slot] & enemy {
                let to = to as u8;
                let c = (2..self.slots())
                    .find(|&s| squares[s] == to)
                    .expect("an enemy piece");
                let legal = if slot == king_slot(turn) {
                    // The king's square after the capture, the captured piece gone.
                    let mut after = *sets;
                    let (c_color, c_role) = self.pieces[c];
                    after.toggle(c_color, c_role, bit(to));
                    after.toggle(turn, Role::King, bit(squares[slot]) | bit(to));
                    !after.attacks(to, !turn)
                } else {
                    guard.allowed(square(squares[slot]), bit(to)).any()
                };
                if !legal {
                    continue;
                }
                found.any_move = true;
                let mut rest = [0u8; MAX_PIECES];
                let kept = (0..self.slots())
                    .filter(|&s| s != c)
                    .map(|s| if s == slot { to } else { squares[s] });
                for (stored, sq) in rest.iter_mut().zip(kept) {
                    *stored = sq;
                }
                match self.subtables[c]
                    .expect("pieces have tables")
                    .value(!turn, &rest)
                {
                    Dtm::Loss(d) => found.win = Some(found.win.map_or(d + 1, |w| w.min(d + 1))),
                    Dtm::Win(d) => found.loss = Some(found.loss.map_or(d, |l| l.max(d))),
                    Dtm::Draw => found.draw = true,
                    Dtm::Illegal => unreachable!("a legal move's position"),
                }
            }
        }
        if guard.in_check() && !found.any_move {
            found.any_move = self.quiet_targets(mover).any(|(_, safe)| safe.any());
        }
        found
    }

    /// The squares among `targets` that the piece in `slot` (of `color`, on `from`)
    /// may move to with its own king safe from `enemy`, the rest of the position as in
    /// `sets`: a king's are those `enemy` does not attack with the king lifted,
    /// another piece's those its `guard` allows.
    fn safe_targets(
        &self,
        slot: usize,
        from: u8,
        targets: Bitboard,
        enemy: Color,
        sets: &Sets,
        guard: &KingGuard,
    ) -> Bitboard {
        let (color, role) = self.pieces[slot];
        if role != Role::King {
            return guard.allowed(square(from), targets);
        }
        // A capture would take the attacker off: only quiet targets are asked.
        debug_assert!(!targets.intersects(sets.by_color[color_index(enemy)]));
        let mut without = *sets;
        without.toggle(color, role, bit(from));
        targets & !without.attack_map(enemy)
    }

    /// The squares among `froms` the piece in `slot` (of `by`, now on `at`) may have
    /// stood on without `by` attacking the `target` king (whose side was to move).
    fn unchecking(
        &self,
        slot: usize,
        at: u8,
        froms: Bitboard,
        target: u8,
        by: Color,
        sets: &Sets,
    ) -> Bitboard {
        let (color, role) = self.pieces[slot];
        let mut without = *sets;
        without.toggle(color, role, bit(at));
        if !without.attacks(target, by) {
            // Only the piece itself can attack: from the squares it attacks the king from.
            let checking = attacks(square(target), Piece { color, role }, without.occupied());
            return froms & !checking;
        }
        let mut safe = Bitboard::EMPTY;
        for from in froms {
            let mut before = without;
            before.toggle(color, role, Bitboard::from_square(from));
            if !before.attacks(target, by) {
                safe.add(from);
            }
        }
        safe
    }

    /// Per piece of `turn` (by slot), the empty squares it may move to, its king safe
    /// after.
    fn quiet_targets<'s>(
        &'s self,
        mover: &'s Mover,
    ) -> impl Iterator<Item = (usize, Bitboard)> + 's {
        let Mover {
            turn,
            squares,
            sets,
            ..
        } = *mover;
        let occupied = sets.occupied();
        self.slots_of(turn).map(move |slot| {
            let targets = mover.reach[slot] & !occupied;
            let safe = self.safe_targets(slot, squares[slot], targets, !turn, sets, &mover.guard);
            (slot, safe)
        })
    }

    /// The stored children (of the other side's half) of every move of `turn` that
    /// does not capture, in the position of stored index `i` (of its half).
    pub(super) fn quiet_children(&self, i: usize, mover: &Mover, out: &mut Vec<usize>) {
        out.clear();
        for (slot, safe) in self.quiet_targets(mover) {
            for to in safe {
                out.push(
                    self.indexer
                        .index_after_move(i, mover.squares, slot, to as u8),
                );
            }
        }
    }

    /// The distinct stored children of `turn`'s moves that do not capture, in the
    /// position of stored index `i` (of its half).
    fn children_in_half(
        &self,
        turn: Color,
        i: usize,
        squares: &Squares,
        scratch: &mut Vec<usize>,
    ) -> u8 {
        let sets = self.sets(squares);
        let dedupe = Indexer::symmetric_about(squares[king_slot(!turn)]);
        let in_check = sets.attacks(squares[king_slot(turn)], !turn);
        let mover = self.mover(turn, squares, &sets, in_check);
        scratch.clear();
        let mut count = 0u8;
        for (slot, safe) in self.quiet_targets(&mover) {
            if dedupe {
                for to in safe {
                    scratch.push(self.indexer.index_after_move(i, squares, slot, to as u8));
                }
            } else {
                count += safe.count() as u8;
            }
        }
        if dedupe {
            scratch.sort_unstable();
            scratch.dedup();
            count += scratch.len() as u8;
        }
        count
    }

    /// The stored predecessors (indices into the other side's half) of the position
    /// of stored index `i` with `turn` to move: every un-move of the side that just
    /// moved that leaves `turn` out of check.
    fn predecessors_in_half(&self, turn: Color, i: usize, squares: &Squares, out: &mut Vec<usize>) {
        out.clear();
        let mover = !turn;
        let sets = self.sets(squares);
        let occupied = sets.occupied();
        let waiting_king = squares[king_slot(turn)];
        for slot in self.slots_of(mover) {
            let mut froms = self.reach(slot, squares, occupied) & !occupied;
            if slot == king_slot(mover) {
                froms &= !king_attacks(square(waiting_king));
            }
            // The piece stood on `from`: the waiting king must be safe from it there.
            for from in self.unchecking(slot, squares[slot], froms, waiting_king, mover, &sets) {
                out.push(self.indexer.index_after_move(i, squares, slot, from as u8));
            }
        }
        if Indexer::symmetric_about(waiting_king) {
            out.sort_unstable();
            out.dedup();
        }
    }
}

impl MoveGraph for Rules<'_> {
    fn per_side(&self) -> usize {
        self.indexer.per_side()
    }

    /// One block a piece placement: its 462 king pairs.
    fn blocks(&self) -> usize {
        self.indexer.per_side() / KING_PAIRS
    }

    /// A block decodes and checks its pieces once; each pair adds its kings.
    fn classify_block(&self, block: usize, found: &mut impl FnMut(usize, Class)) {
        let per_side = self.indexer.per_side();
        let first = block * KING_PAIRS;
        let mut squares = self.indexer.squares(first);
        if !self.indexer.pieces_in_order(&squares) {
            for i in first..first + KING_PAIRS {
                found(i, Class::Illegal);
                found(per_side + i, Class::Illegal);
            }
            return;
        }
        let pieces = self.piece_sets(&squares);
        for pair in 0..KING_PAIRS {
            let i = first + pair;
            (squares[0], squares[1]) = Indexer::kings(pair);
            if !self.indexer.kings_canonical(i, &squares) {
                found(i, Class::Illegal);
                found(per_side + i, Class::Illegal);
                continue;
            }
            let mut sets = pieces;
            sets.toggle(Color::White, Role::King, bit(squares[0]));
            sets.toggle(Color::Black, Role::King, bit(squares[1]));
            // Each king attacked or not: one side's check is the other's illegality.
            let attacked = sets.kings_attacked(&squares);
            for turn in [Color::White, Color::Black] {
                let at = color_index(turn) * per_side + i;
                if attacked[color_index(!turn)] {
                    found(at, Class::Illegal);
                    continue;
                }
                let in_check = attacked[color_index(turn)];
                let captures = self.captures(&self.mover(turn, &squares, &sets, in_check));
                found(at, Class::Legal { in_check, captures });
            }
        }
    }

    fn predecessors(&self, at: usize, out: &mut Vec<usize>) {
        let per_side = self.indexer.per_side();
        let (turn, i) = half_of(at, per_side);
        self.predecessors_in_half(turn, i, &self.indexer.squares(i), out);
        let other = color_index(!turn) * per_side;
        for q in out.iter_mut() {
            *q += other;
        }
    }

    fn children(&self, at: usize, scratch: &mut Vec<usize>) -> u8 {
        let (turn, i) = half_of(at, self.indexer.per_side());
        self.children_in_half(turn, i, &self.indexer.squares(i), scratch)
    }
}

/// The side to move and the index within its half of whole-table index `at`.
fn half_of(at: usize, per_side: usize) -> (Color, usize) {
    if at < per_side {
        (Color::White, at)
    } else {
        (Color::Black, at - per_side)
    }
}
