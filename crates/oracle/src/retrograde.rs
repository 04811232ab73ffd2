//! Retrograde analysis of one material's move graph, the materials its conversions
//! (captures, promotions) lead to already solved: the solver that the pawnless tables
//! ([`crate::pawnless`]) and the tables with pawns ([`crate::pawns`]) share, each
//! giving its positions' moves through [`MoveGraph`].
//!
//! Values are plies to mate for the side to move (odd: it mates; even: it is mated).
//! Ply by ply, from the checkmates:
//! - a position lost at ply `d` makes each predecessor (the other side to move,
//!   one un-move back) won at `d + 1`, the first time it is reached (the fastest win);
//! - a position won at ply `d + 1` takes one from each predecessor's count of moves
//!   not yet known to lose; at zero the predecessor is lost at `d + 2` (its last
//!   move to go is its longest defence).
//!
//! A conversion leaves the table: its value comes from the smaller table. A
//! conversion to a position the opponent loses in `d` is a win at `d + 1`, scheduled
//! at that ply; conversions the opponent wins count as one move that goes at the
//! latest of their plies; a conversion to a draw (or a win) keeps the position from
//! ever being lost. Moves are counted by distinct stored child, as the un-moves that
//! reach a position from one child count once. A position's moves are counted when
//! it is first reached (most winning-side positions never are).

use std::sync::atomic::AtomicU8;
use std::sync::atomic::Ordering::Relaxed;

use crate::pawnless::{DRAW, Dtm, ILLEGAL, SolveError};

/// Count of a legal position whose moves are not counted yet.
const UNCOUNTED: u8 = 255;
/// As [`UNCOUNTED`], plus one move for its conversions that the opponent wins.
const UNCOUNTED_WITH_LOSING_CAPTURE: u8 = 254;
/// Count of a position that can never be lost (a conversion draws or wins).
const NEVER_LOST: u8 = 253;

/// What a position's conversions (captures, promotions) lead to.
#[derive(Default)]
pub(crate) struct Captures {
    /// A legal move exists (conversions or not: asked of positions in check).
    pub(crate) any_move: bool,
    /// The fastest win through a conversion, in plies.
    pub(crate) win: Option<u32>,
    /// The latest ply at which a conversion the opponent wins is known to lose.
    pub(crate) loss: Option<u32>,
    /// A conversion to a drawn position.
    pub(crate) draw: bool,
}

/// What classifying one stored index found.
pub(crate) enum Class {
    /// No legal position stands there.
    Illegal,
    /// A legal position: whether its side to move is in check, and its conversions
    /// (checkmated when in check without a legal move).
    Legal { in_check: bool, captures: Captures },
}

/// The value a legal position's moves give it: its conversions' summary `caps` and
/// the values of its quiet moves' children (`None` if a child is marked illegal).
pub(crate) fn expected(in_check: bool, caps: &Captures, quiet: &[Dtm]) -> Option<Dtm> {
    let (mut win, mut loss, mut draw) = (caps.win, caps.loss, caps.draw);
    for &child in quiet {
        match child {
            Dtm::Loss(d) => win = Some(win.map_or(d + 1, |w| w.min(d + 1))),
            Dtm::Win(d) => loss = Some(loss.map_or(d, |l| l.max(d))),
            Dtm::Draw => draw = true,
            Dtm::Illegal => return None,
        }
    }
    // A capture sets `any_move`; in check, so does any legal move.
    Some(if !caps.any_move && quiet.is_empty() {
        if in_check { Dtm::Loss(0) } else { Dtm::Draw }
    } else if let Some(w) = win {
        Dtm::Win(w)
    } else if draw {
        Dtm::Draw
    } else {
        Dtm::Loss(loss.expect("every move wins for the opponent") + 1)
    })
}

/// One material's positions and moves as the solver walks them. Indices run over
/// both halves: white to move `[0, per_side)`, black to move `[per_side, 2 per_side)`.
pub(crate) trait MoveGraph: Sync {
    /// Stored indices of one side to move.
    fn per_side(&self) -> usize;
    /// Units of classification, split across threads.
    fn blocks(&self) -> usize;
    /// Calls `found` with every index of `block` (both halves) and its [`Class`].
    fn classify_block(&self, block: usize, found: &mut impl FnMut(usize, Class));
    /// The stored predecessors of legal position `at`: one un-move of the side that
    /// just moved back, each distinct index once, within this material.
    fn predecessors(&self, at: usize, out: &mut Vec<usize>);
    /// How many distinct stored children within this material the moves of legal
    /// position `at` lead to.
    fn children(&self, at: usize, scratch: &mut Vec<usize>) -> u8;
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
pub(crate) fn in_parallel<T: Sync>(
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
struct Table<'g, G> {
    graph: &'g G,
    values: Vec<AtomicU8>,
    counts: Vec<AtomicU8>,
}

impl<G: MoveGraph> Table<'_, G> {
    /// Classifies the positions of `blocks`: illegal, checkmated (returned), or
    /// counted later with their conversions scheduled.
    fn classify(&self, blocks: std::ops::Range<usize>, scheduled: &mut Scheduled) -> Vec<u32> {
        let mut mated = Vec::new();
        for block in blocks {
            self.graph
                .classify_block(block, &mut |at, class| match class {
                    Class::Illegal => self.values[at].store(ILLEGAL, Relaxed),
                    Class::Legal { in_check, captures } => {
                        self.classify_legal(at, in_check, &captures, scheduled, &mut mated)
                    }
                });
        }
        mated
    }

    /// Classifies the legal position `at`: checkmated (pushed on `mated`), or counted
    /// later with its conversions scheduled.
    fn classify_legal(
        &self,
        at: usize,
        in_check: bool,
        captures: &Captures,
        scheduled: &mut Scheduled,
        mated: &mut Vec<u32>,
    ) {
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
            let extra = u8::from(count == UNCOUNTED_WITH_LOSING_CAPTURE);
            let counted = self.graph.children(q, scratch) + extra;
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

/// The values of `graph`'s positions (white-to-move half, then black-to-move half);
/// `name` names the material in errors.
pub(crate) fn solve<G: MoveGraph>(graph: &G, name: &str) -> Result<Vec<u8>, SolveError> {
    let per_side = graph.per_side();
    let table = Table {
        graph,
        values: (0..2 * per_side).map(|_| AtomicU8::new(DRAW)).collect(),
        counts: (0..2 * per_side)
            .map(|_| AtomicU8::new(UNCOUNTED))
            .collect(),
    };
    let parts = threads();
    let blocks = graph.blocks();
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
                graph.predecessors(p as usize, &mut predecessors);
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
                graph.predecessors(p as usize, &mut predecessors);
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
            return Err(SolveError::TooLong(name.to_string()));
        }
        if lost_next.is_empty() && won.is_empty() && !scheduled.pending_after(ply + 1) {
            return Ok(table.values.into_iter().map(AtomicU8::into_inner).collect());
        }
        lost = lost_next;
        ply += 2;
    }
}
