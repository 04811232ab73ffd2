//! Retrograde analysis of one material, its captures already solved.
//!
//! Values are plies to mate for the side to move (odd: it mates; even: it is mated).
//! Ply by ply, from the checkmates:
//! - a position lost at ply `d` makes each predecessor (the other side to move,
//!   one un-move back) won at `d + 1`, the first time it is reached (the fastest win);
//! - a position won at ply `d + 1` takes one from each predecessor's count of moves
//!   not yet known to lose; at zero the predecessor is lost at `d + 2` (its last
//!   move to go is its longest defence).
//!
//! A capture leaves the table: its value comes from the smaller table. A capture to
//! a position the opponent loses in `d` is a win at `d + 1`, scheduled at that ply;
//! captures the opponent wins count as one move that goes at the latest of their
//! plies; a capture to a draw (or a win) keeps the position from ever being lost.
//! Moves are counted by distinct stored child, so two moves to one symmetric child
//! count once, as the un-moves that reach the position from that child count once.
//! A position's moves are counted when it is first reached (most winning-side
//! positions never are).

use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

use shakmaty::attacks::{
    attacks, between, bishop_attacks, king_attacks, knight_attacks, ray, rook_attacks,
};
use shakmaty::{Bitboard, Color, Piece, Role, Square};

use super::index::{Indexer, KING_PAIRS, Squares};
use super::{DRAW, Dtm, DtmTable, ILLEGAL, MAX_PIECES, Material, SolveError};

/// Count of a legal position whose moves are not counted yet.
const UNCOUNTED: u8 = 255;
/// As [`UNCOUNTED`], plus one move for its captures that the opponent wins.
const UNCOUNTED_WITH_LOSING_CAPTURE: u8 = 254;
/// Count of a position that can never be lost (a capture draws or wins; no move).
const NEVER_LOST: u8 = 253;

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

/// What a position's captures lead to.
#[derive(Default)]
pub(super) struct Captures {
    /// A legal move exists (captures or not: only asked of positions in check).
    pub(super) any_move: bool,
    /// The fastest win through a capture, in plies.
    pub(super) win: Option<u32>,
    /// The latest ply at which a capture the opponent wins is known to lose.
    pub(super) loss: Option<u32>,
    /// A capture to a drawn position.
    pub(super) draw: bool,
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
    fn children(&self, turn: Color, i: usize, squares: &Squares, scratch: &mut Vec<usize>) -> u8 {
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
    fn predecessors(&self, turn: Color, i: usize, squares: &Squares, out: &mut Vec<usize>) {
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

/// Plies to mate as a stored byte ([`ILLEGAL`] if it does not fit).
fn stored(plies: u32) -> u8 {
    u8::try_from(plies + 1).unwrap_or(ILLEGAL)
}

/// Positions scheduled by their captures, by ply.
#[derive(Default)]
struct Scheduled {
    /// Won at this ply through a capture.
    wins: Vec<Vec<u32>>,
    /// One move (the losing captures) known to lose at this ply.
    losses: Vec<Vec<u32>>,
}

impl Scheduled {
    fn push(lists: &mut Vec<Vec<u32>>, ply: u32, position: u32) {
        let ply = ply as usize;
        if lists.len() <= ply {
            lists.resize_with(ply + 1, Vec::new);
        }
        lists[ply].push(position);
    }

    fn take(lists: &mut [Vec<u32>], ply: u32) -> Vec<u32> {
        lists
            .get_mut(ply as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn pending_after(&self, ply: u32) -> bool {
        let later = |lists: &[Vec<u32>]| lists.iter().skip(ply as usize + 1).any(|l| !l.is_empty());
        later(&self.wins) || later(&self.losses)
    }

    fn merge(&mut self, other: Scheduled) {
        for (mine, theirs) in [
            (&mut self.wins, other.wins),
            (&mut self.losses, other.losses),
        ] {
            for (ply, list) in theirs.into_iter().enumerate() {
                for position in list {
                    Scheduled::push(mine, ply as u32, position);
                }
            }
        }
    }
}

/// Threads for the solver: the machine's cores.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` on `items` split across the threads (one thread for few items) and
/// concatenates what each part returns.
pub(super) fn in_parallel<T: Sync>(
    items: &[T],
    work: impl Fn(&[T]) -> Vec<u32> + Sync,
) -> Vec<u32> {
    let parts = if items.len() < 4096 { 1 } else { threads() };
    if parts == 1 {
        return work(items);
    }
    let chunk = items.len().div_ceil(parts);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| work(part)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("solver thread"))
            .collect()
    })
}

/// The solver's shared state: values and move counts of both halves, updated
/// atomically by the threads of one phase (each phase's result does not depend on
/// the order of its updates).
struct Table<'r, 'a> {
    rules: &'r Rules<'a>,
    per_side: usize,
    values: Vec<AtomicU8>,
    counts: Vec<AtomicU8>,
}

impl Table<'_, '_> {
    fn turn_of(&self, at: usize) -> Color {
        if at < self.per_side {
            Color::White
        } else {
            Color::Black
        }
    }

    fn half(&self, turn: Color) -> usize {
        color_index(turn) * self.per_side
    }

    /// Classifies the positions of the piece placements `blocks` (each the 462
    /// stored indices of its king pairs, both sides to move): illegal, checkmated
    /// (returned), or counted later with their captures scheduled. A block decodes
    /// and checks its pieces once; each pair adds its kings.
    fn classify(&self, blocks: std::ops::Range<usize>, scheduled: &mut Scheduled) -> Vec<u32> {
        let rules = self.rules;
        let mut mated = Vec::new();
        for block in blocks {
            let first = block * KING_PAIRS;
            let mut squares = rules.indexer.squares(first);
            if !rules.indexer.pieces_in_order(&squares) {
                for i in first..first + KING_PAIRS {
                    self.values[i].store(ILLEGAL, Relaxed);
                    self.values[self.per_side + i].store(ILLEGAL, Relaxed);
                }
                continue;
            }
            let pieces = rules.piece_sets(&squares);
            for pair in 0..KING_PAIRS {
                let i = first + pair;
                (squares[0], squares[1]) = Indexer::kings(pair);
                if !rules.indexer.kings_canonical(i, &squares) {
                    self.values[i].store(ILLEGAL, Relaxed);
                    self.values[self.per_side + i].store(ILLEGAL, Relaxed);
                    continue;
                }
                let mut sets = pieces;
                sets.toggle(Color::White, Role::King, bit(squares[0]));
                sets.toggle(Color::Black, Role::King, bit(squares[1]));
                // Each king attacked or not: one side's check is the other's illegality.
                let attacked = sets.kings_attacked(&squares);
                for turn in [Color::White, Color::Black] {
                    let at = self.half(turn) + i;
                    if attacked[color_index(!turn)] {
                        self.values[at].store(ILLEGAL, Relaxed);
                        continue;
                    }
                    let in_check = attacked[color_index(turn)];
                    self.classify_legal(at, turn, &squares, &sets, in_check, scheduled, &mut mated);
                }
            }
        }
        mated
    }

    /// Classifies the legal position `at` (`turn` to move): checkmated (pushed on
    /// `mated`), or counted later with its captures scheduled.
    #[allow(clippy::too_many_arguments)]
    fn classify_legal(
        &self,
        at: usize,
        turn: Color,
        squares: &Squares,
        sets: &Sets,
        in_check: bool,
        scheduled: &mut Scheduled,
        mated: &mut Vec<u32>,
    ) {
        let captures = self
            .rules
            .captures(&self.rules.mover(turn, squares, sets, in_check));
        if in_check && !captures.any_move {
            self.values[at].store(stored(0), Relaxed);
            mated.push(at as u32);
            return;
        }
        let count = if captures.draw || captures.win.is_some() {
            NEVER_LOST
        } else if captures.loss.is_some() {
            UNCOUNTED_WITH_LOSING_CAPTURE
        } else {
            UNCOUNTED
        };
        self.counts[at].store(count, Relaxed);
        if let Some(ply) = captures.win {
            Scheduled::push(&mut scheduled.wins, ply, at as u32);
        }
        if let Some(ply) = captures.loss {
            Scheduled::push(&mut scheduled.losses, ply, at as u32);
        }
    }

    /// The stored predecessors of position `p` (indices into the whole table).
    fn predecessors(&self, p: usize, out: &mut Vec<usize>) {
        let turn = self.turn_of(p);
        let i = p - self.half(turn);
        self.rules
            .predecessors(turn, i, &self.rules.indexer.squares(i), out);
        let other = self.half(!turn);
        for q in out.iter_mut() {
            *q += other;
        }
    }

    /// Marks `q` won with `win` if it is undecided; whether it was.
    fn win(&self, q: usize, win: u8) -> bool {
        self.values[q].load(Relaxed) == DRAW
            && self.values[q]
                .compare_exchange(DRAW, win, Relaxed, Relaxed)
                .is_ok()
    }

    /// One more of `q`'s moves is known to lose; whether that was its last (then `q`
    /// is marked lost with `loss`).
    fn lose_one(&self, q: usize, loss: u8, scratch: &mut Vec<usize>) -> bool {
        if self.values[q].load(Relaxed) != DRAW {
            return false;
        }
        let mut count = self.counts[q].load(Relaxed);
        if count == NEVER_LOST {
            return false;
        }
        if count >= UNCOUNTED_WITH_LOSING_CAPTURE {
            let turn = self.turn_of(q);
            let i = q - self.half(turn);
            let squares = self.rules.indexer.squares(i);
            let extra = u8::from(count == UNCOUNTED_WITH_LOSING_CAPTURE);
            let counted = self.rules.children(turn, i, &squares, scratch) + extra;
            // Another thread may have counted it first: the same number.
            count = match self.counts[q].compare_exchange(count, counted, Relaxed, Relaxed) {
                Ok(_) => counted,
                Err(now) => now,
            };
            debug_assert!(count < NEVER_LOST);
        }
        if self.counts[q].fetch_sub(1, Relaxed) == 1 {
            self.values[q].store(loss, Relaxed);
            return true;
        }
        false
    }
}

/// The values of `material` (white-to-move half, then black-to-move half).
pub(super) fn solve(
    material: &Material,
    subtables: &[Option<&DtmTable>],
) -> Result<Vec<u8>, SolveError> {
    let rules = Rules {
        pieces: material.pieces(),
        indexer: Indexer::new(material),
        subtables,
    };
    let per_side = rules.indexer.per_side();
    let table = Table {
        rules: &rules,
        per_side,
        values: (0..2 * per_side).map(|_| AtomicU8::new(DRAW)).collect(),
        counts: (0..2 * per_side)
            .map(|_| AtomicU8::new(UNCOUNTED))
            .collect(),
    };
    let parts = threads();
    let blocks = per_side / KING_PAIRS;
    let chunk = blocks.div_ceil(parts);
    let mut scheduled = Scheduled::default();
    let mut lost: Vec<u32> = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..parts)
            .map(|k| {
                let table = &table;
                scope.spawn(move || {
                    let mut scheduled = Scheduled::default();
                    let range = k * chunk..((k + 1) * chunk).min(blocks);
                    let mated = table.classify(range, &mut scheduled);
                    (mated, scheduled)
                })
            })
            .collect();
        for handle in handles {
            let (mated, part) = handle.join().expect("solver thread");
            lost.extend(mated);
            scheduled.merge(part);
        }
    });

    let mut ply = 0u32;
    loop {
        // Predecessors of positions lost at `ply` are won at `ply + 1`. Each list is
        // walked in index order: a position's predecessors lie near it (king moves
        // change the index by little), so sorted lists touch the table in one sweep
        // instead of one cache miss per position.
        lost.sort_unstable();
        let win = stored(ply + 1);
        let mut won = in_parallel(&lost, |part| {
            let mut predecessors = Vec::new();
            let mut won = Vec::new();
            for &p in part {
                table.predecessors(p as usize, &mut predecessors);
                won.extend(
                    predecessors
                        .iter()
                        .filter(|&&q| table.win(q, win))
                        .map(|&q| q as u32),
                );
            }
            won
        });
        for q in Scheduled::take(&mut scheduled.wins, ply + 1) {
            if table.win(q as usize, win) {
                won.push(q);
            }
        }
        // Predecessors of positions won at `ply + 1` lose a move; at none, lost at `ply + 2`.
        won.sort_unstable();
        let loss = stored(ply + 2);
        let mut scratch = Vec::new();
        let mut lost_next = in_parallel(&won, |part| {
            let (mut predecessors, mut scratch) = (Vec::new(), Vec::new());
            let mut lost = Vec::new();
            for &p in part {
                table.predecessors(p as usize, &mut predecessors);
                for &q in &predecessors {
                    if table.lose_one(q, loss, &mut scratch) {
                        lost.push(q as u32);
                    }
                }
            }
            lost
        });
        for q in Scheduled::take(&mut scheduled.losses, ply + 1) {
            if table.lose_one(q as usize, loss, &mut scratch) {
                lost_next.push(q);
            }
        }
        if (win == ILLEGAL && !won.is_empty()) || (loss == ILLEGAL && !lost_next.is_empty()) {
            return Err(SolveError::TooLong(material.name()));
        }
        if lost_next.is_empty() && won.is_empty() && !scheduled.pending_after(ply + 1) {
            return Ok(table.values.into_iter().map(AtomicU8::into_inner).collect());
        }
        lost = lost_next;
        ply += 2;
    }
}
