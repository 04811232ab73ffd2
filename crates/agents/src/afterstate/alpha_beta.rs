//! Alpha-beta search on the afterstate learner's values, at play time only (training
//! never searches). The same recursion as the full-width search, cut by alpha-beta:
//!
//! ```text
//! N(s, d) = max_a r(a) - gamma * N(s_a, d - 1)      (r(a) alone when s_a ends the game)
//! N(s, 0) = max(V(s), max_c r(c) - gamma * N(s_c, 0))   quiescence: c a capture or
//!           promotion; in check every evasion and no stand-pat V(s)
//! ```
//!
//! `V` is the learned value (side to move), `r` the learner's reward (material,
//! [`super::rewards::MATE`] for a mate), draws (stalemate, insufficient material,
//! fifty moves, a position repeated on the search path) end with `r(a)` alone. Since
//! `x = r - gamma * v` falls as `v` rises, a child is searched in the window
//! `((r - beta) / gamma, (r - alpha) / gamma)`. Iterative deepening from depth 1, the
//! previous iteration's best move first, captures ordered most valuable victim /
//! least valuable attacker first; the search stops at its depth, node or time limit
//! and plays the best move of the deepest iteration it finished (depth 1 always
//! finishes). Ideas from classic chess engines (negamax, quiescence with stand-pat,
//! MVV-LVA); no transposition table.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use burnmate_encode::side_to_move::{FEATURES, encode};
use burnmate_env::selfplay::{GameEnd, material_value};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Move, MoveList, Position};

use super::host_value::HostValueNet;
use super::rewards::move_reward;

/// Quiescence plies at most below the nominal depth at play time (then `V` stands).
pub const QUIESCENCE_PLIES: u32 = 12;

/// When a search stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimit {
    /// Nominal depth of the last iteration (plies before quiescence).
    pub depth: u32,
    /// Quiescence plies at most below the nominal depth (then `V` stands).
    pub quiescence: u32,
    /// Positions searched at most (after depth 1).
    pub nodes: u64,
    /// Thinking time at most (after depth 1).
    pub time: Option<Duration>,
}

/// A search's answer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchAnswer {
    /// The move to play.
    pub best: Move,
    /// Its value to the side to move.
    pub value: f32,
    /// Depth of the deepest finished iteration.
    pub depth: u32,
    /// Positions searched.
    pub nodes: u64,
}

struct Search<'a> {
    net: &'a HostValueNet,
    gamma: f32,
    limit: SearchLimit,
    started: Instant,
    nodes: u64,
    may_stop: bool,
    stopped: bool,
    /// Raised from outside (UCI's `stop`): the search ends as at its budget.
    stop: &'a AtomicBool,
    path: Vec<Zobrist64>,
    row: Vec<f32>,
}

/// The best of `among` (legal moves of `root`; all of them when empty) by an
/// iterative-deepening alpha-beta search on `net` with discount `gamma`; `None`
/// when `root` has no legal move.
pub fn search(
    net: &HostValueNet,
    gamma: f32,
    root: &Chess,
    among: &[Move],
    limit: SearchLimit,
) -> Option<SearchAnswer> {
    search_until(net, gamma, root, among, limit, &AtomicBool::new(false))
}

/// [`search`] that also ends, as at its node or time budget (after depth 1), once
/// `stop` is raised.
pub fn search_until(
    net: &HostValueNet,
    gamma: f32,
    root: &Chess,
    among: &[Move],
    limit: SearchLimit,
    stop: &AtomicBool,
) -> Option<SearchAnswer> {
    let mut moves: Vec<Move> = if among.is_empty() {
        root.legal_moves().into_iter().collect()
    } else {
        among.to_vec()
    };
    if moves.is_empty() {
        return None;
    }
    moves.sort_by_key(|m| std::cmp::Reverse(order_key(m)));
    let mut search = Search {
        net,
        gamma,
        limit,
        started: Instant::now(),
        nodes: 0,
        may_stop: false,
        stopped: false,
        stop,
        path: vec![hash(root)],
        row: vec![0.0; FEATURES],
    };
    let mut answer = None;
    for depth in 1..=limit.depth.max(1) {
        let Some((best, value)) = search.root(root, &moves, depth) else {
            break;
        };
        answer = Some(SearchAnswer {
            best: moves[best],
            value,
            depth,
            nodes: search.nodes,
        });
        moves[..=best].rotate_right(1);
        search.may_stop = true;
    }
    answer.map(|a| SearchAnswer {
        nodes: search.nodes,
        ..a
    })
}

fn hash(position: &Chess) -> Zobrist64 {
    Zobrist64(burnmate_env::two_player::position_key(position))
}

/// Most valuable victim first, then least valuable attacker; promotions with them.
fn order_key(m: &Move) -> i32 {
    let victim =
        m.capture().map_or(0.0, material_value) + m.promotion().map_or(0.0, material_value);
    let attacker = material_value(m.role());
    (victim * 100.0) as i32 * 16 - (attacker * 10.0) as i32 + if victim > 0.0 { 10_000 } else { 0 }
}

/// How the game ends in `child` (after a move), given its legal moves; repetitions
/// only on the search path.
fn ending(child: &Chess, moves: &MoveList, repeated: bool) -> Option<GameEnd> {
    if moves.is_empty() {
        Some(if child.is_check() {
            GameEnd::Checkmate
        } else {
            GameEnd::Stalemate
        })
    } else if child.is_insufficient_material() {
        Some(GameEnd::InsufficientMaterial)
    } else if repeated {
        Some(GameEnd::Repetition)
    } else if child.halfmoves() >= 100 {
        Some(GameEnd::FiftyMoves)
    } else {
        None
    }
}

impl Search<'_> {
    /// The root's best move index and value at `depth`; `None` if stopped.
    fn root(&mut self, root: &Chess, moves: &[Move], depth: u32) -> Option<(usize, f32)> {
        let (mut best, mut alpha) = (0, f32::NEG_INFINITY);
        for (i, m) in moves.iter().enumerate() {
            let x = self.move_value(root, m, depth - 1, 0, alpha, f32::INFINITY);
            if self.stopped {
                return None;
            }
            if x > alpha {
                (best, alpha) = (i, x);
            }
        }
        Some((best, alpha))
    }

    /// `r(m) - gamma * N(s_m, depth)` searched in the window `(alpha, beta)` for `m`.
    fn move_value(
        &mut self,
        s: &Chess,
        m: &Move,
        depth: u32,
        quiet: u32,
        alpha: f32,
        beta: f32,
    ) -> f32 {
        let mut child = s.clone();
        child.play_unchecked(*m);
        let moves = child.legal_moves();
        let key = hash(&child);
        let repeated = self.path.contains(&key);
        let end = ending(&child, &moves, repeated);
        let reward = move_reward(m, end);
        if end.is_some() {
            return reward;
        }
        let g = self.gamma;
        self.path.push(key);
        let v = self.node(
            &child,
            moves,
            depth,
            quiet,
            (reward - beta) / g,
            (reward - alpha) / g,
        );
        self.path.pop();
        reward - g * v
    }

    /// `N(s, depth)` of a position that goes on, in the window `(alpha, beta)`.
    fn node(
        &mut self,
        s: &Chess,
        mut moves: MoveList,
        depth: u32,
        quiet: u32,
        mut alpha: f32,
        beta: f32,
    ) -> f32 {
        self.nodes += 1;
        if self.may_stop && self.out_of_budget() {
            self.stopped = true;
            return 0.0;
        }
        let mut best = f32::NEG_INFINITY;
        if depth == 0 && (!s.is_check() || quiet >= self.limit.quiescence) {
            encode(s, &mut self.row);
            best = self.net.value(&self.row);
            if best >= beta || quiet >= self.limit.quiescence {
                return best;
            }
            alpha = alpha.max(best);
            moves.retain(|m| m.is_capture() || m.is_promotion());
        }
        moves.sort_by_key(|m| std::cmp::Reverse(order_key(m)));
        let next_quiet = if depth == 0 { quiet + 1 } else { 0 };
        for m in &moves {
            let x = self.move_value(s, m, depth.saturating_sub(1), next_quiet, alpha, beta);
            if self.stopped {
                return 0.0;
            }
            best = best.max(x);
            alpha = alpha.max(x);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    fn out_of_budget(&self) -> bool {
        self.nodes > self.limit.nodes
            || (self.nodes.is_multiple_of(256)
                && (self.stop.load(Ordering::Relaxed)
                    || self.limit.time.is_some_and(|t| self.started.elapsed() >= t)))
    }
}
