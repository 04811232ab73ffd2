//! Policy-value Monte Carlo tree search (AlphaZero's PUCT), many games at once.
//!
//! Values are for the side to move at a node. With `n` visits at a node and `n(a)`,
//! `w(a)` the visits and summed values of the child after move `a`:
//!
//! ```text
//! select   a* = argmax_a  Q(a) + U_m(a) + c_puct * P(a) * sqrt(n) / (1 + n(a))
//!          Q(a) = -discount * w(a) / n(a)        (the child's value is the opponent's)
//!          U_m(a) = -Q(a) * clamp(moves_left_slope * (M(a) + 1 - M(node)),
//!                                 -moves_left_cap, moves_left_cap)
//!                   for a visited move, M the mean plies left backed up below
//!                   (Lc0's moves-left utility, scaled by Q(a) as Lc0 scales it by
//!                   |Q|: a winning move is worth more the sooner it ends the game,
//!                   a losing one the later, a drawing one neither, so the side
//!                   ahead is never drawn to a quick draw)
//!          Q(a) = V(node) - fpu_reduction * sqrt(sum of P over visited moves)
//!                                                for an unvisited move (Lc0's FPU),
//!          Q(a) = -discount * value(a)           for an unvisited move that ended
//!                                                the game (seen at expansion)
//! expand   P(a) = the evaluator's prior over the legal moves; with `forcing_share` f
//!          P(a) = (1 - f) P(a) + f * [a forcing] / #forcing   (chess: checks and
//!          captures, captures and threats, or all, so a reply the net overlooks
//!          is searched); at the root
//!          P(a) = (1 - noise) P(a) + noise * Dirichlet(alpha)   (self-play only);
//!          with `see_endings` (evaluation), the moves the game says may end it at
//!          once (chess: captures) are played, and those that end it are proven at
//!          once: a defender sees the capture of a hanging piece before its prior
//!          would send a visit there
//! backup   v = the leaf's value (the evaluator's, or -1/0 for a mated/drawn side),
//!          m = its plies left (the evaluator's, 0 at a game's end);
//!          from the leaf to the root: w += v, n += 1, v = -discount * v,
//!          m_sum += m, m = m + 1
//! repeat   a node repeating a position of its game before the root (or the root)
//!          is a drawn game's end, when the caller gives the game's history
//! prove    a node with a child proven lost for its mover is proven won; a node whose
//!          children are all proven is proven at max_a (-discount * proven(a))
//!          (MCTS-solver, Winands et al. 2008; Lc0's certainty propagation). A proven
//!          node is searched no deeper (it backs up its exact value, and a proven
//!          child's Q is exact); a proven root ends its tree's search and plays the
//!          proof: the fastest mate found, or the longest defence. With
//!          `shortest_win` a root proven won by more than a mate in one searches
//!          on among its moves not proven won and plays the shortest win proven.
//! ```
//!
//! The discount per ply makes a mate in `k` plies worth `discount^(k-1)` to the
//! mating side, so the search prefers the shorter mate. Each round of the search
//! takes one leaf from every unfinished tree and evaluates them in one batch (one
//! forward pass of the network for all games), as pgx's batched `mctx` searches do;
//! with one leaf per tree and round, no virtual loss is needed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use burnmate_env::tactics::ForcingMoves;
use burnmate_env::two_player::TwoPlayerGame;
use rand::{Rng, RngExt};

use crate::error::AgentError;

/// The search's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// Leaf evaluations per move (the root's own included).
    pub simulations: u32,
    /// Weight of the prior against the value.
    pub c_puct: f32,
    /// Value kept per ply (< 1 prefers shorter wins). Default 0.97: with 0.99 a mate
    /// in 5 moves and one in 10 differ by 0.09 in value, which the net does not
    /// resolve; KQK seed 0, 6,000 games, evaluated with 128 simulations: 78 % mated
    /// in 12.3 moves at 0.99 (64 simulations), 96 % in 9.8 at 0.97. With the
    /// legal-move policy loss (same setting): 100 % in 7.72 at 0.97, 99 % in 7.25 at
    /// 0.95, 97 % in 6.97 at 0.9; KRK seeds 0 and 1, 12,000 games: 96 % and 98 % at
    /// 0.95 against 100 % and 99 % at 0.97, both 1.22x the optimum's moves.
    pub discount: f32,
    /// An unvisited move's value: the node's value minus this times the square root
    /// of the prior already visited (Lc0's first-play urgency). Default 0: with 64
    /// simulations and a uniform prior, 0.3 found the mate in one of KQK positions
    /// one un-move from mate 131 times in 200, 0 every time.
    pub fpu_reduction: f32,
    /// Dirichlet concentration of the root noise.
    pub dirichlet_alpha: f32,
    /// Share of a move's value gained per ply it ends the game sooner than the
    /// node's estimate (lost per ply later), in the move choice (0: the moves-left
    /// estimates are not read).
    pub moves_left_slope: f32,
    /// The largest share of a move's value the moves-left term moves.
    pub moves_left_cap: f32,
    /// Share of the root prior replaced by noise (0: none, for play and evaluation).
    pub noise: f32,
    /// Wall time after which the search stops between two rounds, before
    /// `simulations` if need be (None: no limit); two rounds always run.
    pub time_limit: Option<Duration>,
    /// Whether an expansion plays the moves that may end the game at once and
    /// proves those that do ([`TwoPlayerGame::may_end_at_once`]). On for evaluation
    /// and play (KBNK: pieces lost to the perfect defender 87 -> 50 in 1000 games);
    /// off by default and in self-play, where it cost KBNK seed 0 half its mates
    /// after 60,000 games (35.4 % against 83.7 %).
    pub see_endings: bool,
    /// Whether a root with a proven win searches on among its other moves and plays
    /// the shortest win proven by the end, unless the win is a mate in one (a node is
    /// proven won at its first winning child, whose mate need not be the fastest).
    /// On for evaluation and play: the shipped KQK, KRK and KBBK nets mate in
    /// 1.061x, 1.060x and 1.031x the optimum's moves against 1.071x, 1.071x and
    /// 1.033x without it (1000 won starts, 128 simulations).
    pub shortest_win: bool,
    /// Share of each expanded node's prior spread evenly over its forcing moves
    /// ([`TwoPlayerGame::forcing`] of the kind [`SearchConfig::forcing_moves`]), so a
    /// reply the net overlooks (a rook's check that skewers a queen) is still
    /// searched; 0: priors as the net gives them.
    pub forcing_share: f32,
    /// Which moves are forcing: checks and captures, captures and threats, or all.
    pub forcing_moves: ForcingMoves,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            simulations: 128,
            c_puct: 1.5,
            discount: 0.97,
            fpu_reduction: 0.0,
            dirichlet_alpha: 0.3,
            noise: 0.0,
            moves_left_slope: 0.0,
            moves_left_cap: 0.0,
            time_limit: None,
            see_endings: false,
            shortest_win: false,
            forcing_share: 0.0,
            forcing_moves: ForcingMoves::ChecksAndCaptures,
        }
    }
}

impl SearchConfig {
    /// Checks the settings; the error names the setting.
    pub fn check(&self) -> Result<(), AgentError> {
        let setting = |text: String| Err(AgentError::Setting(text));
        if self.simulations == 0 {
            return setting("simulations must be at least 1".into());
        }
        if !(self.c_puct > 0.0 && self.c_puct.is_finite()) {
            return setting(format!(
                "c_puct must be a positive number, not {}",
                self.c_puct
            ));
        }
        if !(self.discount > 0.0 && self.discount <= 1.0) {
            return setting(format!(
                "discount must lie in (0, 1], not {}",
                self.discount
            ));
        }
        let positive = self.dirichlet_alpha > 0.0;
        if !(0.0..=1.0).contains(&self.noise) || !positive {
            return setting(format!(
                "noise must lie in [0, 1] ({}) and dirichlet_alpha be positive ({})",
                self.noise, self.dirichlet_alpha
            ));
        }
        if !(0.0..=1.0).contains(&self.forcing_share) {
            return setting(format!(
                "forcing_share must lie in [0, 1], not {}",
                self.forcing_share
            ));
        }
        let finite_share = |x: f32| x >= 0.0 && x.is_finite();
        if !finite_share(self.fpu_reduction)
            || !finite_share(self.moves_left_slope)
            || !finite_share(self.moves_left_cap)
        {
            return setting(format!(
                "fpu_reduction ({}), moves_left_slope ({}) and moves_left_cap ({}) must be \
                 numbers >= 0",
                self.fpu_reduction, self.moves_left_slope, self.moves_left_cap
            ));
        }
        Ok(())
    }
}

/// A leaf to evaluate: the position and the policy indices of its legal moves.
pub struct Leaf<'a, P> {
    /// The position (not finished).
    pub position: &'a P,
    /// The policy index of each legal move, in the order the priors are wanted.
    pub actions: &'a [usize],
}

/// What the evaluator says of one leaf.
#[derive(Clone, Debug, PartialEq)]
pub struct LeafEvaluation {
    /// The prior of each listed action (summing to 1).
    pub priors: Vec<f32>,
    /// The value of the position for its side to move, in -1..=1.
    pub value: f32,
    /// The plies expected before the game ends (0 from an evaluator without a
    /// moves-left head; the search reads it only when `moves_left_slope > 0`).
    pub moves_left: f32,
}

/// The network side of the search: priors, values and moves left for a batch of
/// leaves.
pub trait LeafEvaluator<P> {
    /// One evaluation per leaf, in order.
    fn evaluate(&mut self, leaves: &[Leaf<'_, P>]) -> Vec<LeafEvaluation>;
}

/// Priors uniform over the legal moves and every value 0: search on the rules alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<P> LeafEvaluator<P> for UniformEvaluator {
    fn evaluate(&mut self, leaves: &[Leaf<'_, P>]) -> Vec<LeafEvaluation> {
        leaves
            .iter()
            .map(|leaf| {
                let n = leaf.actions.len() as f32;
                LeafEvaluation {
                    priors: vec![1.0 / n; leaf.actions.len()],
                    value: 0.0,
                    moves_left: 0.0,
                }
            })
            .collect()
    }
}

/// What a search found at one root.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<M> {
    /// The root's legal moves.
    pub moves: Vec<M>,
    /// The policy index of each move.
    pub actions: Vec<usize>,
    /// Visits of each move.
    pub visits: Vec<u32>,
    /// The root's value for its side to move (mean over the search, or the proven
    /// value).
    pub value: f32,
    /// The root's plies left to the game's end (mean over the search, or the
    /// proof's length).
    pub moves_left: f32,
    /// Index of the proof move when the search proved the root's value (a won
    /// root's fastest mate, a lost or drawn root's best defence).
    pub proof: Option<usize>,
}

impl<M: Copy> SearchResult<M> {
    /// The proof move of a proven root, else the most visited move (the first of
    /// equals).
    pub fn best(&self) -> M {
        if let Some(proof) = self.proof {
            return self.moves[proof];
        }
        let best = (0..self.visits.len())
            .max_by_key(|&i| (self.visits[i], std::cmp::Reverse(i)))
            .expect("a searched root has moves");
        self.moves[best]
    }

    /// A move drawn with probability proportional to `visits^(1/temperature)`;
    /// temperature 0, or a proven root, is [`SearchResult::best`].
    pub fn sample(&self, temperature: f32, rng: &mut (impl Rng + ?Sized)) -> M {
        if temperature <= 0.0 || self.proof.is_some() {
            return self.best();
        }
        let weights: Vec<f64> = self
            .visits
            .iter()
            .map(|&v| f64::from(v).powf(1.0 / f64::from(temperature)))
            .collect();
        let mut x = rng.random::<f64>() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return self.moves[i];
            }
            x -= w;
        }
        self.best()
    }
}

/// One node: the move into it, its prior, and its statistics for its side to move.
struct Node<P, M> {
    mv: Option<M>,
    prior: f32,
    visits: u32,
    value_sum: f32,
    /// Summed plies left to the game's end over the backups.
    moves_left_sum: f32,
    /// Set when the node is first reached.
    position: Option<P>,
    /// The exact value for the side to move: the finished game's, or one proven
    /// from the children.
    proven: Option<f32>,
    /// The plies to the game's end along the proof of a proven node.
    proven_moves_left: f32,
    /// Indices of the children (empty until expanded).
    children: Vec<usize>,
}

impl<P, M> Node<P, M> {
    fn new(mv: Option<M>, prior: f32) -> Self {
        Node {
            mv,
            prior,
            visits: 0,
            value_sum: 0.0,
            moves_left_sum: 0.0,
            position: None,
            proven: None,
            proven_moves_left: 0.0,
            children: Vec::new(),
        }
    }

    fn value(&self) -> f32 {
        if let Some(proven) = self.proven {
            proven
        } else if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }

    fn moves_left(&self) -> f32 {
        if self.proven.is_some() {
            self.proven_moves_left
        } else if self.visits == 0 {
            0.0
        } else {
            self.moves_left_sum / self.visits as f32
        }
    }
}

/// One game's tree; node 0 is the root.
struct Tree<P, M> {
    nodes: Vec<Node<P, M>>,
}

impl<P: Clone, M: Copy> Tree<P, M> {
    /// A tree of one unexpanded root at `position`.
    fn rooted_at(position: &P) -> Self {
        let mut root = Node::new(None, 1.0);
        root.position = Some(position.clone());
        Tree { nodes: vec![root] }
    }

    /// Expands the evaluated `leaf` with its priors (playing the moves that may end
    /// the game where `config.see_endings`), then backs its value up the path.
    fn expand_and_backup<G>(
        &mut self,
        game: &G,
        leaf: &Pending<M>,
        evaluation: &LeafEvaluation,
        config: &SearchConfig,
    ) where
        G: TwoPlayerGame<Position = P, Move = M>,
    {
        let node = *leaf.path.last().expect("a path");
        let first = self.nodes.len();
        let priors = if config.forcing_share > 0.0 {
            let position = self.nodes[node].position.as_ref().expect("a leaf");
            let forcing: Vec<bool> = leaf
                .moves
                .iter()
                .map(|&m| game.forcing(position, m, config.forcing_moves))
                .collect();
            share_over_forcing(&evaluation.priors, &forcing, config.forcing_share)
        } else {
            evaluation.priors.clone()
        };
        self.expand(node, &leaf.moves, &priors);
        if config.see_endings {
            self.settle_endings(node, first, game);
        }
        let discount = config.discount;
        self.backup(
            &leaf.path,
            evaluation.value,
            evaluation.moves_left,
            discount,
        );
        self.prove(&leaf.path, config);
    }

    /// The root's moves with their visits, value and proof.
    fn result<G>(&self, game: &G, config: &SearchConfig) -> SearchResult<M>
    where
        G: TwoPlayerGame<Position = P, Move = M>,
    {
        let root = &self.nodes[0];
        let position = root.position.as_ref().expect("the root");
        let moves: Vec<M> = root
            .children
            .iter()
            .map(|&c| self.nodes[c].mv.expect("a child has a move"))
            .collect();
        SearchResult {
            actions: moves.iter().map(|&m| game.action(position, m)).collect(),
            visits: root
                .children
                .iter()
                .map(|&c| self.nodes[c].visits)
                .collect(),
            value: root.value(),
            moves_left: root.moves_left(),
            proof: self
                .proof(0, config.discount)
                .or_else(|| self.shortest_win(config)),
            moves,
        }
    }

    /// The child of `node` with the highest PUCT score.
    fn select(&self, node: usize, config: &SearchConfig) -> usize {
        let parent = &self.nodes[node];
        let sqrt_n = (parent.visits as f32).sqrt();
        let visited_policy: f32 = parent
            .children
            .iter()
            .map(|&c| &self.nodes[c])
            .filter(|c| c.visits > 0)
            .map(|c| c.prior)
            .sum();
        let fpu = parent.value() - config.fpu_reduction * visited_policy.sqrt();
        let parent_moves_left = parent.moves_left();
        let score = |&child: &usize| {
            let c = &self.nodes[child];
            let q = if c.visits == 0 {
                c.proven.map_or(fpu, |value| -config.discount * value)
            } else {
                let q = -config.discount * c.value();
                let later = config.moves_left_slope * (c.moves_left() + 1.0 - parent_moves_left);
                q - q * later.clamp(-config.moves_left_cap, config.moves_left_cap)
            };
            q + config.c_puct * c.prior * sqrt_n / (1.0 + c.visits as f32)
        };
        // A root looking for the shortest win searches on beside its proven wins.
        let open = |&&child: &&usize| {
            let won = self.nodes[child].proven.is_some_and(|v| v < 0.0);
            !(node == 0 && config.shortest_win && won)
        };
        *parent
            .children
            .iter()
            .filter(open)
            .max_by(|a, b| score(a).total_cmp(&score(b)).then(b.cmp(a)))
            .expect("an expanded node has a move not proven won")
    }

    /// Adds `value` (for the side to move at the end of `path`) and its
    /// `moves_left` along `path`.
    fn backup(&mut self, path: &[usize], mut value: f32, mut moves_left: f32, discount: f32) {
        for &node in path.iter().rev() {
            let n = &mut self.nodes[node];
            n.visits += 1;
            n.value_sum += value;
            n.moves_left_sum += moves_left;
            value *= -discount;
            moves_left += 1.0;
        }
    }

    /// Proves what the new values along `path` prove, from its end upwards: a node
    /// with a child lost for its mover is won (the root, with `shortest_win`, only
    /// by a mate in one), a node with every child proven takes the best of them;
    /// stops at the first node left unproven.
    fn prove(&mut self, path: &[usize], config: &SearchConfig) {
        let discount = config.discount;
        for &node in path.iter().rev() {
            if self.nodes[node].proven.is_some() {
                continue;
            }
            let children = &self.nodes[node].children;
            if children.is_empty() {
                return;
            }
            let mut all_proven = true;
            let mut best = f32::NEG_INFINITY;
            let mut best_moves_left = 0.0;
            for &c in children {
                match self.nodes[c].proven {
                    Some(v) if -discount * v > best => {
                        best = -discount * v;
                        best_moves_left = self.nodes[c].proven_moves_left + 1.0;
                    }
                    Some(_) => {}
                    None => all_proven = false,
                }
            }
            let waits = node == 0 && config.shortest_win && best < discount;
            if (best > 0.0 && !waits) || all_proven {
                self.nodes[node].proven = Some(best);
                self.nodes[node].proven_moves_left = best_moves_left;
            } else {
                return;
            }
        }
    }

    /// The child of a proven node that proves it: the best proven value, the first
    /// of equals.
    fn proof(&self, node: usize, discount: f32) -> Option<usize> {
        self.nodes[node].proven?;
        let children = &self.nodes[node].children;
        (0..children.len())
            .filter(|&i| self.nodes[children[i]].proven.is_some())
            .max_by(|&a, &b| {
                let v = |i: usize| -discount * self.nodes[children[i]].value();
                v(a).total_cmp(&v(b)).then(b.cmp(&a))
            })
    }

    /// With `shortest_win`, the root's proven child of the highest value when it is
    /// a win (the shortest mate proven).
    fn shortest_win(&self, config: &SearchConfig) -> Option<usize> {
        if !config.shortest_win {
            return None;
        }
        let children = &self.nodes[0].children;
        let value = |i: usize| -config.discount * self.nodes[children[i]].proven.unwrap_or(0.0);
        (0..children.len())
            .filter(|&i| self.nodes[children[i]].proven.is_some())
            .max_by(|&a, &b| value(a).total_cmp(&value(b)).then(b.cmp(&a)))
            .filter(|&i| value(i) > 0.0)
    }

    /// Gives `node` one child per legal move with its prior.
    fn expand(&mut self, node: usize, moves: &[M], priors: &[f32]) {
        let first = self.nodes.len();
        for (&mv, &prior) in moves.iter().zip(priors) {
            self.nodes.push(Node::new(Some(mv), prior));
        }
        self.nodes[node].children = (first..self.nodes.len()).collect();
    }

    /// Plays the new children of `node` (the last nodes, from `first`) whose moves
    /// may end the game at once, and proves those that do.
    fn settle_endings<G>(&mut self, node: usize, first: usize, game: &G)
    where
        G: TwoPlayerGame<Position = P, Move = M>,
    {
        let (parents, children) = self.nodes.split_at_mut(first);
        let position = parents[node].position.as_ref().expect("an expanded node");
        for child in children {
            let mv = child.mv.expect("a child has a move");
            if game.may_end_at_once(position, mv) {
                let next = game.play(position, mv);
                child.proven = game.terminal_value(&next);
                child.position = Some(next);
            }
        }
    }
}

/// A leaf waiting for its evaluation: its tree, the path to it, its moves.
struct Pending<M> {
    tree: usize,
    path: Vec<usize>,
    moves: Vec<M>,
    actions: Vec<usize>,
}

/// Searches every position of `roots` (none finished) with `config.simulations`
/// evaluations each, all trees advancing together so each round is one batch.
///
/// # Panics
/// If `config` fails [`SearchConfig::check`] (callers check settings from users).
pub fn search<G: TwoPlayerGame>(
    game: &G,
    roots: &[G::Position],
    config: &SearchConfig,
    evaluator: &mut impl LeafEvaluator<G::Position>,
    rng: &mut (impl Rng + ?Sized),
) -> Vec<SearchResult<G::Move>> {
    search_after(game, roots, &[], config, evaluator, rng)
}

/// [`search`] of positions reached in games: `earlier[i]` holds the
/// [`TwoPlayerGame::repetition_key`]s of root `i`'s game up to and including the
/// root, and a node repeating one of them is a draw (Lc0 scores a repetition as a
/// draw in its search), so a side ahead looks for progress instead of a cycle. A
/// root without its entry (`earlier` shorter) is searched as [`search`] does.
///
/// # Panics
/// If `config` fails [`SearchConfig::check`] (callers check settings from users).
pub fn search_after<G: TwoPlayerGame>(
    game: &G,
    roots: &[G::Position],
    earlier: &[&[u64]],
    config: &SearchConfig,
    evaluator: &mut impl LeafEvaluator<G::Position>,
    rng: &mut (impl Rng + ?Sized),
) -> Vec<SearchResult<G::Move>> {
    let never = AtomicBool::new(false);
    search_until(game, roots, earlier, config, evaluator, rng, &never)
}

/// [`search_after`] that also stops between two rounds, as at its time limit, once
/// `stop` is raised (UCI's `stop`); two rounds always run.
///
/// # Panics
/// If `config` fails [`SearchConfig::check`] (callers check settings from users).
pub fn search_until<G: TwoPlayerGame>(
    game: &G,
    roots: &[G::Position],
    earlier: &[&[u64]],
    config: &SearchConfig,
    evaluator: &mut impl LeafEvaluator<G::Position>,
    rng: &mut (impl Rng + ?Sized),
    stop: &AtomicBool,
) -> Vec<SearchResult<G::Move>> {
    let repeats = |t: usize, position: &G::Position| {
        earlier.get(t).is_some_and(|keys| {
            game.repetition_key(position)
                .is_some_and(|key| keys.contains(&key))
        })
    };
    let mut trees: Vec<Tree<G::Position, G::Move>> = roots.iter().map(Tree::rooted_at).collect();
    let deadline = config.time_limit.map(|limit| Instant::now() + limit);
    if let Err(e) = config.check() {
        panic!("search settings: {e}");
    }
    for round in 0..config.simulations {
        let out_of_time = deadline.is_some_and(|at| Instant::now() >= at);
        if round >= 2 && (out_of_time || stop.load(Ordering::Relaxed)) {
            break;
        }
        // Simulate: each unfinished tree walks to a leaf; proven leaves back up at once.
        let pending: Vec<Pending<G::Move>> = (0..trees.len())
            .filter_map(|t| simulate(game, &mut trees[t], t, config, &repeats))
            .collect();
        // Evaluate every tree's leaf in one batch.
        let evaluations = evaluate(&trees, &pending, evaluator);
        // Expand and back up, the root's priors mixed with noise on the first round.
        for (leaf, mut evaluation) in pending.into_iter().zip(evaluations) {
            if round == 0 && config.noise > 0.0 {
                add_root_noise(&mut evaluation.priors, config, rng);
            }
            trees[leaf.tree].expand_and_backup(game, &leaf, &evaluation, config);
        }
        if trees.iter().all(|t| t.nodes[0].proven.is_some()) {
            break;
        }
    }
    trees.iter().map(|tree| tree.result(game, config)).collect()
}

/// Walks tree `t` from its root to a leaf by [`Tree::select`], playing the leaf's
/// move if it was never played: a leaf that ends the game (or repeats one of the
/// game's positions) backs up its value at once and gives `None`; another is the
/// leaf to evaluate. A proven root gives `None`.
fn simulate<G: TwoPlayerGame>(
    game: &G,
    tree: &mut Tree<G::Position, G::Move>,
    t: usize,
    config: &SearchConfig,
    repeats: &impl Fn(usize, &G::Position) -> bool,
) -> Option<Pending<G::Move>> {
    if tree.nodes[0].proven.is_some() {
        return None;
    }
    let mut path = vec![0];
    let mut node = 0;
    while !tree.nodes[node].children.is_empty() && tree.nodes[node].proven.is_none() {
        node = tree.select(node, config);
        path.push(node);
    }
    if tree.nodes[node].position.is_none() {
        let parent = &tree.nodes[path[path.len() - 2]];
        let mv = tree.nodes[node].mv.expect("a child has a move");
        let position = game.play(parent.position.as_ref().expect("expanded"), mv);
        tree.nodes[node].proven = game
            .terminal_value(&position)
            .or_else(|| repeats(t, &position).then_some(0.0));
        tree.nodes[node].position = Some(position);
    }
    if let Some(value) = tree.nodes[node].proven {
        let moves_left = tree.nodes[node].proven_moves_left;
        tree.backup(&path, value, moves_left, config.discount);
        tree.prove(&path, config);
        return None;
    }
    let position = tree.nodes[node].position.as_ref().expect("reached");
    let moves = game.legal_moves(position);
    let actions = moves.iter().map(|&m| game.action(position, m)).collect();
    Some(Pending {
        tree: t,
        path,
        moves,
        actions,
    })
}

/// The evaluations of the `pending` leaves, one call of `evaluator` for all.
fn evaluate<P, M>(
    trees: &[Tree<P, M>],
    pending: &[Pending<M>],
    evaluator: &mut impl LeafEvaluator<P>,
) -> Vec<LeafEvaluation> {
    if pending.is_empty() {
        return Vec::new();
    }
    let leaves: Vec<Leaf<'_, P>> = pending
        .iter()
        .map(|p| Leaf {
            position: trees[p.tree].nodes[*p.path.last().expect("a path")]
                .position
                .as_ref()
                .expect("reached"),
            actions: &p.actions,
        })
        .collect();
    evaluator.evaluate(&leaves)
}

/// `priors` with a `share` of them spread evenly over the `forcing` moves:
/// `(1 - share) * prior + share * forcing / #forcing` (unchanged without one).
fn share_over_forcing(priors: &[f32], forcing: &[bool], share: f32) -> Vec<f32> {
    let count = forcing.iter().filter(|&&f| f).count();
    if count == 0 {
        return priors.to_vec();
    }
    let each = share / count as f32;
    priors
        .iter()
        .zip(forcing)
        .map(|(&p, &f)| (1.0 - share) * p + if f { each } else { 0.0 })
        .collect()
}

/// Mixes Dirichlet noise into the root's `priors` (AlphaZero's exploration):
/// `(1 - noise) * prior + noise * eta`.
fn add_root_noise(priors: &mut [f32], config: &SearchConfig, rng: &mut (impl Rng + ?Sized)) {
    let noise = dirichlet(config.dirichlet_alpha, priors.len(), rng);
    for (prior, eta) in priors.iter_mut().zip(noise) {
        *prior = (1.0 - config.noise) * *prior + config.noise * eta;
    }
}

/// A draw from the symmetric Dirichlet distribution of `n` components.
pub fn dirichlet(alpha: f32, n: usize, rng: &mut (impl Rng + ?Sized)) -> Vec<f32> {
    let draws: Vec<f64> = (0..n).map(|_| gamma(f64::from(alpha), rng)).collect();
    let sum: f64 = draws.iter().sum();
    draws.iter().map(|&g| (g / sum) as f32).collect()
}

/// A Gamma(`shape`, 1) draw: Marsaglia and Tsang's method (shape < 1 boosted by
/// `U^(1/shape)`), normals by Box-Muller.
fn gamma(shape: f64, rng: &mut (impl Rng + ?Sized)) -> f64 {
    if shape < 1.0 {
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        return gamma(shape + 1.0, rng) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let u1: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        let u2: f64 = rng.random();
        let x = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = rng.random::<f64>().max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

#[cfg(test)]
mod tests;
