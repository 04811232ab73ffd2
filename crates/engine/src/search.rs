//! The search loop: negamax principal-variation search under iterative deepening.
//!
//! ```text
//! search(s, depth, ply, α, β):
//!   ply > 0 and s repeats a position since the last capture or pawn move, or the
//!     fifty-move rule or bare material ends the game        -> 0
//!   s in check                                               -> depth + 1
//!   depth <= 0                                               -> quiescence(s, α, β)
//!   table entry at least as deep, off the principal variation, whose bound decides
//!                                                            -> its score
//!   reverse futility: off the PV, not in check, depth <= 6,
//!     eval(s) - 80 depth >= β                                -> eval(s)
//!   null move (off by default): off the PV, not in check, depth >= 3, eval(s) >= β, own pieces
//!     besides pawns: -search(s passed, depth - 1 - R, -β, -β + 1) >= β -> cut
//!     (R = 3 + depth / 6)
//!   moves in order (table move, captures MVV-LVA, killers, history, captures
//!   that lose their exchange):
//!     off the PV, not in check, depth <= 3: a quiet move without check after the
//!     first is skipped when eval(s) + 100 + 100 depth <= α or it is later than
//!     the (3 + 2 depth²)-th (futility and late-move pruning);
//!     the first with (α, β); the others with (α, α + 1) at depth - 1, reduced by
//!     ln(depth) ln(i) / 2.25 + 0.75 plies when late (i >= 3), quiet, depth >= 3 and
//!     neither side in check; re-searched unreduced, then with (α, β), when they
//!     raise α
//!   a cutoff rewards a quiet move (killer, history); the result goes to the table
//! quiescence(s, α, β): in check every evasion, else stand pat on eval(s) and try
//!   promotions and the captures whose static exchange does not lose (MVV-LVA)
//! ```
//! Iterations from depth 1; from depth 4 each starts in a ±25 cp window around the
//! last score, widened (doubling) on a fail. The answer is the deepest finished
//! iteration's first principal-variation move.

use std::sync::Arc;
use std::time::Duration;

use shakmaty::attacks::attacks;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Chess, EnPassantMode, Move, MoveList, Position};

use super::evaluate::{Evaluator, piece_value};
use super::exchange::loses_material;
use super::limits::{Budget, Limits};
use super::ordering::{MAX_PLY, Ordering, is_quiet, mvv_lva, sort_descending};
use super::parameters::*;
use super::score::{INFINITE, MATE, from_table, is_mate, mated_at, to_table};
use super::table::{Bound, Entry, Table, pack};
use super::tables::Tables;
use super::tactical::tactical_moves;

/// Which parts of the search are on (all but null move by default, see
/// [`Features::null_move`]); switching one off changes
/// only speed (and, for the table, pruning and reductions, which lines are seen at
/// a fixed depth), never the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// The transposition table (probe, cutoffs, move ordering).
    pub table: bool,
    /// Null-move pruning. Off by default: at a fixed node count it cost Elo on
    /// material values (-80 [-163, -4] at 20,000 nodes; generation 0 at 250,000
    /// nodes scored 0.725 against UCI_Elo 1500 without it, 0.580 with it) and on a
    /// learned net (about -64 over 120 games), measured in `docs/results/chess.md`.
    pub null_move: bool,
    /// Late-move reductions (they ride on PVS's null windows).
    pub late_move_reductions: bool,
    /// Principal-variation search (off: plain alpha-beta, every move at (α, β)).
    pub pvs: bool,
    /// Aspiration windows from depth 4.
    pub aspiration: bool,
    /// One more ply for a position in check.
    pub check_extension: bool,
    /// Reverse futility pruning (a static null move): off the PV, at depth <= 6, a
    /// position whose evaluation beats β by 80 cp a ply of depth fails high at once.
    pub reverse_futility: bool,
    /// Futility and late-move pruning: off the PV, at depth <= 3, quiet moves that
    /// give no check are skipped after the first when the evaluation plus
    /// 100 + 100 depth cp cannot reach α, and after the 3 + 2 depth²-th in any case.
    pub futility: bool,
    /// Static exchange evaluation ([`super::exchange`]): quiescence skips the
    /// captures whose exchange loses material, and the main search tries them after
    /// the quiet moves (off: quiescence skips a capture by a more valuable piece of a
    /// defended one, and every capture comes before the quiet moves).
    pub exchange: bool,
}

impl Default for Features {
    fn default() -> Features {
        Features {
            table: true,
            null_move: false,
            late_move_reductions: true,
            pvs: true,
            aspiration: true,
            check_extension: true,
            reverse_futility: true,
            futility: true,
            exchange: true,
        }
    }
}

impl Features {
    /// The name of each switch, in field order (`burnmate uci --with/--without NAME,..`).
    pub const NAMES: [&str; 9] = [
        "table",
        "null-move",
        "late-move-reductions",
        "pvs",
        "aspiration",
        "check-extension",
        "reverse-futility",
        "futility",
        "see",
    ];

    /// The default rules with those `on` names switched on and those `off` names
    /// switched off; an unknown name, or one named in both, is a one-line error.
    pub fn switched(on: &[String], off: &[String]) -> Result<Features, String> {
        let mut features = Features::default();
        for (names, value) in [(on, true), (off, false)] {
            for name in names {
                if on.contains(name) && off.contains(name) {
                    return Err(format!("search rule {name:?} is both switched on and off"));
                }
                *features.switch(name)? = value;
            }
        }
        Ok(features)
    }

    fn switch(&mut self, name: &str) -> Result<&mut bool, String> {
        Ok(match name {
            "table" => &mut self.table,
            "null-move" => &mut self.null_move,
            "late-move-reductions" => &mut self.late_move_reductions,
            "pvs" => &mut self.pvs,
            "aspiration" => &mut self.aspiration,
            "check-extension" => &mut self.check_extension,
            "reverse-futility" => &mut self.reverse_futility,
            "futility" => &mut self.futility,
            "see" => &mut self.exchange,
            _ => {
                return Err(format!(
                    "no search rule named {name:?} (known: {})",
                    Features::NAMES.join(", ")
                ));
            }
        })
    }
}

/// What a finished iteration found (UCI's `info` line).
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Its depth.
    pub depth: u32,
    /// Its score for the side to move ([`super::score`]).
    pub score: i32,
    /// Nodes so far.
    pub nodes: u64,
    /// Time so far.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// A search's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play.
    pub best: Move,
    /// Its score for the side to move.
    pub score: i32,
    /// The deepest finished iteration.
    pub depth: u32,
    /// Nodes visited.
    pub nodes: u64,
    /// The principal variation, `best` first.
    pub pv: Vec<Move>,
}

/// A search with its evaluator and its transposition table (kept between moves,
/// and shared with the other threads of a Lazy SMP search).
pub struct Searcher<E> {
    evaluator: E,
    table: Arc<Table>,
    features: Features,
    /// Endgame tables probed for exact values, if any.
    tables: Option<Arc<dyn Tables>>,
}

/// The Zobrist key of `position`: the one key every search and repetition check
/// of burnmate uses.
pub use burnmate_env::two_player::position_key as key_of;

/// The key after `mv`, updated from `key` where shakmaty can.
fn key_after(position: &Chess, key: u64, mv: &Move, child: &Chess) -> u64 {
    position
        .update_zobrist_hash(Zobrist64(key), *mv, EnPassantMode::Legal)
        .map_or_else(|| key_of(child), |z| z.0)
}

impl<E: Evaluator> Searcher<E> {
    /// A searcher on `evaluator` with a table of `table_mb` MB.
    pub fn new(evaluator: E, table_mb: usize) -> Searcher<E> {
        Searcher::sharing(evaluator, Arc::new(Table::new(table_mb)))
    }

    /// A searcher on `evaluator` that shares `table` (a helper thread of Lazy SMP).
    pub fn sharing(evaluator: E, table: Arc<Table>) -> Searcher<E> {
        Searcher {
            evaluator,
            table,
            features: Features::default(),
            tables: None,
        }
    }

    /// The same searcher probing `tables` at every node after the root.
    pub fn with_tables(mut self, tables: Option<Arc<dyn Tables>>) -> Searcher<E> {
        self.tables = tables;
        self
    }

    /// Its transposition table.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// Its rules.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The same searcher with only `features` on.
    pub fn with_features(mut self, features: Features) -> Searcher<E> {
        self.features = features;
        self
    }

    /// Forgets the table (a new game).
    pub fn new_game(&mut self) {
        self.table.clear();
    }

    /// The best of `among` (every legal move when empty) in `root`, reached after
    /// the positions whose keys are `history` (for repetitions; oldest first),
    /// within `limits`; `report` sees each finished iteration. `None` when `root`
    /// has no legal move.
    pub fn search(
        &mut self,
        root: &Chess,
        among: &[Move],
        history: &[u64],
        limits: Limits,
        mut report: impl FnMut(&Info),
    ) -> Option<SearchResult> {
        let moves: Vec<Move> = if among.is_empty() {
            root.legal_moves().into_iter().collect()
        } else {
            among.to_vec()
        };
        if moves.is_empty() {
            return None;
        }
        self.evaluator.root(root);
        let mut run = Run {
            evaluator: &mut self.evaluator,
            table: &self.table,
            tables: self.tables.as_deref(),
            features: self.features,
            ordering: Ordering::default(),
            budget: Budget::new(limits),
            keys: history.to_vec(),
            pv: vec![Vec::new(); MAX_PLY + 2],
            root_moves: moves,
            root_best: None,
        };
        let key = key_of(root);
        let mut answer: Option<SearchResult> = None;
        for depth in 1..=run.budget.max_depth() {
            if depth > 1 && !run.budget.may_deepen() {
                break;
            }
            let score = run.iteration(root, key, depth as i32, answer.as_ref().map(|a| a.score));
            if run.budget.stopped {
                break;
            }
            let pv = run.pv[0].clone();
            let Some(&best) = pv.first() else { break };
            report(&Info {
                depth,
                score,
                nodes: run.budget.nodes,
                elapsed: run.budget.elapsed(),
                pv: pv.clone(),
            });
            answer = Some(SearchResult {
                best,
                score,
                depth,
                nodes: run.budget.nodes,
                pv,
            });
        }
        // Stopped inside depth 1: the best root move found so far, else the first in
        // order (captures by MVV-LVA), at depth 0.
        let answer = answer.unwrap_or_else(|| {
            let (best, score) = run.root_best.unwrap_or_else(|| {
                let mut first = run.root_moves.clone();
                first.sort_by_cached_key(|m| std::cmp::Reverse(mvv_lva(m)));
                (first[0], run.evaluator.evaluate(root))
            });
            SearchResult {
                best,
                score,
                depth: 0,
                nodes: 0,
                pv: vec![best],
            }
        });
        Some(SearchResult {
            nodes: run.budget.nodes,
            ..answer
        })
    }
}

/// One search's state.
struct Run<'a, E> {
    evaluator: &'a mut E,
    table: &'a Table,
    tables: Option<&'a dyn Tables>,
    features: Features,
    ordering: Ordering,
    budget: Budget,
    /// Keys of the game's positions before this node, oldest first.
    keys: Vec<u64>,
    /// The principal variation from each ply.
    pv: Vec<Vec<Move>>,
    root_moves: Vec<Move>,
    /// The best root move of depth 1 so far, with its score (for a stop inside it).
    root_best: Option<(Move, i32)>,
}

/// The score a table entry `e` decides for a node at `depth` and `ply` in the window
/// `(alpha, beta)`: searched at least as deep, exact or a bound beyond the window.
fn table_cutoff(e: &Entry, depth: i32, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
    if i32::from(e.depth) < depth {
        return None;
    }
    let score = from_table(i32::from(e.score), ply as u32);
    let decides = match e.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
    };
    decides.then_some(score)
}

/// Futility and late-move pruning near the leaves (off the PV, not in check: where
/// the node has a static `eval`): a quiet move after the first that gives no check
/// is skipped when the eval is `FUTILITY_MARGIN + FUTILITY_PER_DEPTH depth` below
/// `alpha`, or once `LATE_MOVES_BASE + LATE_MOVES_PER_DEPTH_SQUARED depth²` moves
/// were tried.
struct QuietPruning {
    prunes: bool,
    futile: bool,
    late_from: usize,
}

impl QuietPruning {
    fn new(futility: bool, eval: Option<i32>, depth: i32, alpha: i32) -> QuietPruning {
        QuietPruning {
            prunes: futility && depth <= FUTILITY_MAX_DEPTH && eval.is_some() && !is_mate(alpha),
            futile: eval
                .is_some_and(|eval| eval + FUTILITY_MARGIN + FUTILITY_PER_DEPTH * depth <= alpha),
            late_from: LATE_MOVES_BASE + LATE_MOVES_PER_DEPTH_SQUARED * (depth * depth) as usize,
        }
    }

    /// Whether the `index`-th move `mv` of `position` is skipped.
    fn skips(&self, position: &Chess, mv: &Move, index: usize) -> bool {
        self.prunes
            && index > 0
            && is_quiet(mv)
            && (self.futile || index >= self.late_from)
            && !gives_check(position, mv)
    }
}

/// Late-move reduction in plies for the `index`-th move at `depth`.
fn reduction(depth: i32, index: usize) -> i32 {
    let r = LMR_BASE + (depth as f64).ln() * (index as f64).ln() / LMR_DIVISOR;
    (r as i32).clamp(0, depth - 2)
}

/// Whether `mv` gives check, without playing it for a plain piece move (the moved
/// piece attacks the king from its square, or it uncovers an attacker); castling,
/// captures and promotions are played to see.
pub fn gives_check(position: &Chess, mv: &Move) -> bool {
    let board = position.board();
    let us = position.turn();
    match (*mv, board.king_of(!us)) {
        (
            Move::Normal {
                role,
                from,
                to,
                capture: None,
                promotion: None,
            },
            Some(king),
        ) => {
            let occupied = (board.occupied() ^ from) | to;
            let direct = attacks(to, role.of(us), occupied).contains(king);
            direct || (board.attacks_to(king, us, occupied) & !Bitboard::from(from)).any()
        }
        _ => {
            let mut child = position.clone();
            child.play_unchecked(*mv);
            child.is_check()
        }
    }
}

/// Whether the side to move has a piece besides pawns and its king (null-move
/// pruning is unsafe in pawn endings: zugzwang).
fn has_pieces(position: &Chess) -> bool {
    let board = position.board();
    (board.by_color(position.turn()) & !(board.pawns() | board.kings())).any()
}

impl<E: Evaluator> Run<'_, E> {
    /// One iteration at `depth`, in an aspiration window around `last` from depth 4.
    fn iteration(&mut self, root: &Chess, key: u64, depth: i32, last: Option<i32>) -> i32 {
        let (mut alpha, mut beta, mut delta) = match last {
            Some(score)
                if self.features.aspiration && depth >= ASPIRATION_MIN_DEPTH && !is_mate(score) =>
            {
                (
                    score - ASPIRATION_WINDOW,
                    score + ASPIRATION_WINDOW,
                    ASPIRATION_WINDOW,
                )
            }
            _ => (-INFINITE, INFINITE, 0),
        };
        loop {
            let score = self.search(root, key, depth, 0, alpha, beta, false);
            if self.budget.stopped {
                return score;
            }
            if score <= alpha && alpha > -INFINITE {
                delta *= 2;
                alpha = (score - delta).max(-INFINITE);
            } else if score >= beta && beta < INFINITE {
                delta *= 2;
                beta = (score + delta).min(INFINITE);
            } else {
                return score;
            }
        }
    }

    /// Whether `position` (key `key`, at ply > 0) is a draw by the rules or repeats
    /// a position since the last capture or pawn move.
    fn is_draw(&self, position: &Chess, key: u64) -> bool {
        if position.halfmoves() >= 100 || position.is_insufficient_material() {
            return true;
        }
        let back = (position.halfmoves() as usize).min(self.keys.len());
        self.keys[self.keys.len() - back..].contains(&key)
    }

    /// `mv` at `ply` raised alpha to `score`: the line from `ply` starts with it
    /// (and at the root it is the best move so far).
    fn raise_alpha(&mut self, ply: usize, mv: Move, score: i32) {
        self.set_pv(ply, mv);
        if ply == 0 {
            self.root_best = Some((mv, score));
        }
    }

    fn set_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        line.extend_from_slice(&tail[0]);
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        position: &Chess,
        key: u64,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        null_allowed: bool,
    ) -> i32 {
        self.pv[ply].clear();
        if ply > 0 {
            if let Some(score) =
                self.decided_before_search(position, key, ply, &mut alpha, &mut beta)
            {
                return score;
            }
        } else {
            self.budget.tick();
        }
        if ply >= MAX_PLY {
            return self.evaluator.evaluate(position);
        }
        let in_check = position.is_check();
        if in_check && self.features.check_extension {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(position, ply, alpha, beta);
        }
        let pv_node = beta - alpha > 1;
        let entry = self.features.table.then(|| self.table.probe(key)).flatten();
        if let Some(e) = entry
            && !pv_node
            && let Some(score) = table_cutoff(&e, depth, ply, alpha, beta)
        {
            return score;
        }
        let eval = (!in_check && !pv_node).then(|| self.evaluator.evaluate(position));
        if self.features.reverse_futility
            && depth <= REVERSE_FUTILITY_MAX_DEPTH
            && !is_mate(beta)
            && let Some(eval) = eval
            && eval - REVERSE_FUTILITY_MARGIN * depth >= beta
        {
            return eval;
        }
        if self.features.null_move
            && null_allowed
            && depth >= NULL_MOVE_MIN_DEPTH
            && has_pieces(position)
            && eval.is_some_and(|eval| eval >= beta)
            && let Some(score) = self.null_move_cutoff(position, key, depth, ply, beta)
        {
            return score;
        }
        let moves = self.ordered_moves(position, ply, entry.map_or(0, |e| e.best));
        if moves.is_empty() {
            return if in_check { mated_at(ply as u32) } else { 0 };
        }
        let original_alpha = alpha;
        let (mut best, mut best_move) = (-INFINITE, None);
        let mut quiets_tried = MoveList::new();
        let pruning = QuietPruning::new(self.features.futility, eval, depth, alpha);
        self.keys.push(key);
        for (i, mv) in moves.iter().enumerate() {
            if pruning.skips(position, mv, i) {
                continue;
            }
            let mut child = position.clone();
            child.play_unchecked(*mv);
            let child_key = key_after(position, key, mv, &child);
            // The child's slot arrives while the net updates.
            self.table.prefetch(child_key);
            self.evaluator.push(position, Some(mv));
            let late = i >= LMR_MIN_INDEX
                && self.features.late_move_reductions
                && depth >= LMR_MIN_DEPTH
                && is_quiet(mv)
                && !in_check
                && !child.is_check();
            let r = if late { reduction(depth, i) } else { 0 };
            let first = i == 0 || !self.features.pvs;
            let score = self.search_child(&child, child_key, depth, r, ply, alpha, beta, first);
            self.evaluator.pop();
            if self.budget.stopped {
                self.keys.pop();
                return 0;
            }
            if score > best {
                (best, best_move) = (score, Some(*mv));
                if score > alpha {
                    alpha = score;
                    self.raise_alpha(ply, *mv, score);
                    if score >= beta {
                        if is_quiet(mv) {
                            self.ordering
                                .reward(mv, &quiets_tried, position.turn(), ply, depth);
                        }
                        break;
                    }
                }
            }
            if is_quiet(mv) {
                quiets_tried.push(*mv);
            }
        }
        self.keys.pop();
        if self.features.table {
            self.table.store(Entry {
                key,
                best: best_move.as_ref().map_or(0, pack),
                score: to_table(best, ply as u32) as i16,
                depth: depth.min(127) as i8,
                bound: Bound::of(best, original_alpha, beta),
            });
        }
        best
    }

    /// The moves of a node at `ply` (the root: the root moves), best first for its
    /// table move `table_move` ([`Ordering::sort`]).
    fn ordered_moves(&self, position: &Chess, ply: usize, table_move: u16) -> MoveList {
        let mut moves: MoveList = if ply == 0 {
            self.root_moves.iter().copied().collect()
        } else {
            position.legal_moves()
        };
        let exchange = self.features.exchange;
        self.ordering
            .sort(&mut moves, position.turn(), ply, table_move, |m| {
                exchange && loses_material(position, m)
            });
        moves
    }

    /// A node's score decided before it is searched (at ply > 0): 0 when the budget
    /// is spent or the position is drawn, an endgame table's value, or a bound that
    /// mate-distance pruning closes; the window narrowed by mate distance otherwise.
    fn decided_before_search(
        &mut self,
        position: &Chess,
        key: u64,
        ply: usize,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Option<i32> {
        if self.budget.tick() || self.is_draw(position, key) {
            return Some(0);
        }
        if let Some(tables) = self.tables
            && position.board().occupied().count() <= tables.max_pieces()
            && let Some(value) = tables.probe(position)
        {
            return Some(value.score(ply));
        }
        // Mate-distance pruning: no line from here beats a mate already nearer.
        *alpha = (*alpha).max(mated_at(ply as u32));
        *beta = (*beta).min(MATE - ply as i32 - 1);
        (*alpha >= *beta).then_some(*alpha)
    }

    /// Null-move pruning: the side to move passes and a search reduced by
    /// `NULL_MOVE_REDUCTION + depth / NULL_MOVE_DEPTH_DIVISOR` still reaches `beta`:
    /// the node's score (`beta` for a mate score), or 0 when the budget ran out.
    fn null_move_cutoff(
        &mut self,
        position: &Chess,
        key: u64,
        depth: i32,
        ply: usize,
        beta: i32,
    ) -> Option<i32> {
        let passed = position.clone().swap_turn().ok()?;
        let r = NULL_MOVE_REDUCTION + depth / NULL_MOVE_DEPTH_DIVISOR;
        self.keys.push(key);
        self.evaluator.push(position, None);
        let score = -self.search(
            &passed,
            key_of(&passed),
            depth - 1 - r,
            ply + 1,
            -beta,
            -beta + 1,
            false,
        );
        self.evaluator.pop();
        self.keys.pop();
        if self.budget.stopped {
            return Some(0);
        }
        (score >= beta).then_some(if is_mate(score) { beta } else { score })
    }

    /// A child's score for its parent at `depth`: a full window for the `first`
    /// move; else principal-variation search: a null window at `depth - 1 - r`
    /// (`r`: the late-move reduction), searched again unreduced, then in the full
    /// window, as long as it beats `alpha`.
    #[allow(clippy::too_many_arguments)]
    fn search_child(
        &mut self,
        child: &Chess,
        child_key: u64,
        depth: i32,
        r: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        first: bool,
    ) -> i32 {
        if first {
            return -self.search(child, child_key, depth - 1, ply + 1, -beta, -alpha, true);
        }
        let window = (-alpha - 1, -alpha);
        let mut s = -self.search(
            child,
            child_key,
            depth - 1 - r,
            ply + 1,
            window.0,
            window.1,
            true,
        );
        if s > alpha && r > 0 {
            s = -self.search(
                child,
                child_key,
                depth - 1,
                ply + 1,
                window.0,
                window.1,
                true,
            );
        }
        if s > alpha && s < beta {
            s = -self.search(child, child_key, depth - 1, ply + 1, -beta, -alpha, true);
        }
        s
    }

    fn quiescence(&mut self, position: &Chess, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.pv[ply].clear();
        if self.budget.tick() {
            return 0;
        }
        if ply >= MAX_PLY {
            return self.evaluator.evaluate(position);
        }
        let in_check = position.is_check();
        let (mut best, mut moves) = if in_check {
            let evasions = position.legal_moves();
            if evasions.is_empty() {
                return mated_at(ply as u32);
            }
            (-INFINITE, evasions)
        } else {
            let stand = self.evaluator.evaluate(position);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            // Captures that likely lose material (their exchange loses; without
            // `exchange`, a more valuable piece takes a defended one) are skipped:
            // without it an untrained net's quiescence grows the whole capture tree.
            let board = position.board();
            let mut tactical = tactical_moves(position);
            tactical.retain(|m| {
                if !m.is_capture() {
                    return true;
                }
                if self.features.exchange {
                    return !loses_material(position, m);
                }
                let victim = m.capture().map_or(0, piece_value);
                victim >= piece_value(m.role())
                    || board
                        .attacks_to(m.to(), !position.turn(), board.occupied())
                        .is_empty()
            });
            (stand, tactical)
        };
        sort_descending(&mut moves, mvv_lva);
        for mv in &moves {
            let mut child = position.clone();
            child.play_unchecked(*mv);
            self.evaluator.push(position, Some(mv));
            let score = -self.quiescence(&child, ply + 1, -beta, -alpha);
            self.evaluator.pop();
            if self.budget.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.set_pv(ply, *mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}
