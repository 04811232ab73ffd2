//! The algorithms of the matrix, each with one setting for every game (so a cell
//! differs from its neighbours in the game alone), and where each applies.

use burnmate_agents::actor_critic::ActorCriticConfig;
use burnmate_agents::dqn::DqnConfig;
use burnmate_agents::luo::{LuoConfig, TdAlgorithm, UpdateRule};
use burnmate_agents::schedule::EpsilonSchedule;
use burnmate_agents::search::SearchConfig;
use burnmate_agents::search_learner::SearchLearnerConfig;
use burnmate_env::endgame::Endgame;
use burnmate_models::OutputActivation;
use serde::{Deserialize, Serialize};

use crate::studies::endgame::config::{EndgameConfig, Exploration, Opponent, RewardKind};
use crate::tools::matrix::game::{ENDGAME_MOVE_CAP, Game};

/// An algorithm of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The endgame study's tabular least-best-move Q-learning:
    /// `Q(s,a) += alpha (r + gamma min_reply max_a' Q(s'',a') - Q(s,a))`, with the
    /// study's heuristic reward (king distance and the black king's region), no oracle.
    Tabular,
    /// The queen4x4 study's one-network TD learner, as semi-gradient Q-learning with
    /// a linear output: `w += eta (r + gamma max_a' q(s',a') - q(s,a)) grad q(s,a)`.
    Td,
    /// DQN with replay and a periodically refreshed target network:
    /// `y = r + gamma max_a' Q_target(s',a')`, Adam on `(y - Q(s,a))^2`.
    Dqn,
    /// One-step actor-critic: `delta = r + gamma V(s') - V(s)`, the critic on
    /// `delta^2` (semi-gradient), the actor on `-delta log pi(a|s)` over the legal moves.
    ActorCritic,
    /// Policy-value search (AlphaZero's PUCT) trained by self-play from starts grown
    /// backwards from mate: visit counts as policy targets, the mate's -1 carried
    /// back with a discount per ply as value targets (`search_learner.rs`).
    Mcts,
}

/// Every algorithm, in table order.
pub const ALL_ALGORITHMS: [Algorithm; 5] = [
    Algorithm::Tabular,
    Algorithm::Td,
    Algorithm::Dqn,
    Algorithm::ActorCritic,
    Algorithm::Mcts,
];

impl clap::ValueEnum for Algorithm {
    fn value_variants<'a>() -> &'a [Algorithm] {
        &ALL_ALGORITHMS
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

impl Algorithm {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Tabular => "tabular",
            Algorithm::Td => "td",
            Algorithm::Dqn => "dqn",
            Algorithm::ActorCritic => "actor-critic",
            Algorithm::Mcts => "mcts",
        }
    }

    /// The algorithm called `name`.
    pub fn parse(name: &str) -> Option<Algorithm> {
        ALL_ALGORITHMS.into_iter().find(|a| a.name() == name)
    }

    /// Why the algorithm does not apply to `game`, if it does not.
    pub fn not_applicable(self, game: Game) -> Option<&'static str> {
        match (self, game) {
            (Algorithm::Tabular, Game::Queen4x4 | Game::Knight) => Some(
                "the least-best-move table keys chess positions and minimises over a \
                 defender's replies; queen4x4 and knight are not chess positions with a \
                 defender (their kings move at random or not at all)",
            ),
            (Algorithm::Mcts, Game::Queen4x4 | Game::Knight) => Some(
                "the search learner plays both sides of a chess position; queen4x4's \
                 king moves at random (no player to learn) and the knight game has no \
                 opponent",
            ),
            _ => None,
        }
    }

    /// Training episodes at budget 1 on `game`: for the four older learners chosen
    /// so that a cell takes at most about a minute on one core (their matrix at
    /// budget 1 runs within an hour on 2 cores); for the search learner the self-play
    /// games that fit well inside the training budgets on one core of a
    /// 2-core machine (KQK 10 minutes, KRK and KBBK 30, KBNK 2 hours): its excess
    /// moves still fall with more games (KQK seed 0: 1.42x, 1.37x, 1.29x, 1.24x the
    /// optimum's moves after 1,536, 3,008, 4,544 and 6,000 games; with the
    /// moves-left head, seed 0: 1.082x after 18,000 games in 232 s, 1.049x after
    /// 36,000 in 410 s, 1.042x after 45,000 in 455 s; 3 seeds of 45,000: 1.047 ±
    /// 0.005x in 455-488 s).
    pub fn base_episodes(self, game: Game) -> u64 {
        match (self, game) {
            (Algorithm::Tabular, _) => 200_000,
            (Algorithm::Mcts, Game::Endgame(Endgame::Kqk)) => 45_000,
            (Algorithm::Mcts, Game::Endgame(Endgame::Krk)) => 36_000,
            (Algorithm::Mcts, Game::Endgame(Endgame::Kbbk)) => 40_000,
            // Not yet measured: KRK's budget for the two endgames with a defender's piece.
            (Algorithm::Mcts, Game::Endgame(Endgame::Kqkr | Endgame::Krkb)) => 36_000,
            (Algorithm::Mcts, _) => 120_000,
            (Algorithm::Td, _) => 100_000,
            (Algorithm::Dqn, Game::Queen4x4) => 5_000,
            (Algorithm::ActorCritic, Game::Queen4x4) => 10_000,
            (_, Game::Knight) => 20_000,
            (_, Game::Endgame(_)) => 5_000,
        }
    }
}

/// Exploration of the value learners (TD, DQN): linear from 1 to 0.05 over the
/// first 60 % of the cell's episodes, then 0.05 (actor-critic samples its policy).
pub fn exploration(episodes: u64) -> EpsilonSchedule {
    EpsilonSchedule::Linear {
        max: 1.0,
        min: 0.05,
        k: 0.95 / (0.6 * episodes.max(1) as f64),
    }
}

/// The TD learner's setting: the queen4x4 study's network with a linear output, so
/// that any game's rewards fit, and a step size of 1e-4 (the study's 0.0035 and
/// 0.001 diverge on the knight game's rewards of +-10).
pub fn td_config() -> LuoConfig {
    LuoConfig {
        algorithm: TdAlgorithm::QLearning,
        update: UpdateRule::SemiGradient,
        eta: 1e-4,
        gamma: GAMMA,
        hidden: 200,
        activation: OutputActivation::Linear,
    }
}

/// Simulations a move when a trained search learner is evaluated (the budget).
pub const SEARCH_EVAL_SIMULATIONS: u32 = 128;

/// The prior weight (`c_puct`) of the search learner's searches, in self-play and
/// evaluation. In evaluation, KQK seed 0's net after 6,000 games on the matrix's
/// 1,000 starts mated 99.1 % in 1.346x the optimum's moves at 1.5, 99.8 % / 1.329x
/// at 1.0, 99.9 % / 1.303x at 0.5, 100 % / 1.301x at 0.25, 97.2 % / 1.378x at 3;
/// KBNK seed 0's full-budget net (`examples/defender_gap.rs`, 400 starts, perfect
/// defender) 62.3 % at 0.25, 66.0 % at 0.5, 52.0 % at 1.0 with 128 simulations, and
/// with 64 simulations and root noise 54.2 % at 0.5 against 29.0 % at 1.5. Self-play
/// searched at 1.5 until 2026-11-27: at 0.5 its games are the stronger ones, and KBNK
/// seeds 0 and 1 mated 68.4 and 28.4 % after 60,000 games against 17.4 and 7.5 %
/// (`results/search-settings/`).
pub const SEARCH_C_PUCT: f32 = 0.5;

/// The search learner's discount per ply (values and their targets). 0.97 until
/// 2026-11-27: a won KBNK position 50 plies from mate was then worth 0.22, close to a
/// draw's 0, and a move pair of progress 0.013, below what the value head resolves;
/// at 0.995 the win is worth 0.78 and the moves-left head ranks the plies (Lc0
/// values wins undiscounted and leaves their length to that head). KBNK seeds 0 and
/// 1 mated 39.4 and 90.5 % after 60,000 games against 17.4 and 7.5 % at 0.97; with
/// the prior weight of 0.5 as well, seed 0 83.7 % (`results/search-settings/`).
pub const SEARCH_DISCOUNT: f32 = 0.995;

/// The search a trained search learner is evaluated and played with: self-play's
/// without root noise, seeing captures that end the game at expansion
/// (`see_endings`), at [`SEARCH_EVAL_SIMULATIONS`] and [`SEARCH_C_PUCT`], backing
/// values up with the `discount` the net was trained with. The moves-left term only
/// for a net with that head (`moves_left_head`).
pub fn evaluation_search(discount: f32, moves_left_head: bool) -> SearchConfig {
    let search = SearchConfig {
        noise: 0.0,
        simulations: SEARCH_EVAL_SIMULATIONS,
        c_puct: SEARCH_C_PUCT,
        discount,
        see_endings: true,
        ..search_learner_config().search
    };
    if moves_left_head {
        search
    } else {
        SearchConfig {
            moves_left_slope: 0.0,
            moves_left_cap: 0.0,
            ..search
        }
    }
}

/// Whether a new search learner's net has a moves-left head (Lc0's), which its
/// searches weigh by [`MOVES_LEFT_SLOPE`] a ply up to [`MOVES_LEFT_CAP`]. KQK seed 0,
/// 18,000 games, one run beside the other on the same 2-core AMD EPYC: without the
/// head 100 % mated in 1.167x the optimum's moves (raw policy 96.7 %, 1.255x),
/// with it 100 % in 1.082x (raw policy 82.6 %, 1.186x).
pub const SEARCH_MOVES_LEFT_HEAD: bool = true;

/// Share of a move's value gained per ply sooner to the end (self-play and
/// evaluation alike). KQK seed 0, 18,000 games: 1.082x at 0.05 (cap 0.2), 1.085x
/// at 0.1 (cap 0.4); the net of 0.05 evaluated at 0.1 (cap 0.4): 1.074x, at 0.3
/// (cap 0.9) 95.5 % mated. Unscaled by the move's value (the side ahead's every
/// move pulled towards a sooner end, drawn or won): 1.068x at 0.03 (cap 0.1), but
/// 74.7 % mated at 0.1 (cap 0.2), where a drawing move's short end pulled as
/// hard as a mate's; scaled by the move's value, a draw pulls nothing.
pub const MOVES_LEFT_SLOPE: f32 = 0.05;

/// The largest share of a move's value the moves-left term moves.
pub const MOVES_LEFT_CAP: f32 = 0.2;

/// The search learner's hidden layers.
pub const SEARCH_HIDDEN: [usize; 2] = [256, 128];

/// The search learner's setting: 64 simulations a self-play move (evaluation uses
/// [`SEARCH_EVAL_SIMULATIONS`]) at a prior weight of [`SEARCH_C_PUCT`], the most
/// visited move played (root noise is the
/// exploration; sampling by visits kept the curriculum's first level under its 75 %
/// of mates), 64 games side by side, Adam at 1e-3 on minibatches of 256 from the last
/// 50,000 positions, one update per ply round (two spent half of the time on
/// updates; three, KQK seed 0 after 6,000 games: 1.222x the optimum's moves in
/// 183 s of training against 1.243x in 97 s with one, and 1.275x after the same
/// 114 s: more games buy more than more updates), value targets half the game's result and half the root's search value
/// (KQK seed 0, 6,000 games: 95 % mated against 96 % with the result alone, in 9.55
/// moves against 9.80; KRK 9 % against 7 %: within one seed's noise, kept for the
/// lower variance of its targets).
pub fn search_learner_config() -> SearchLearnerConfig {
    SearchLearnerConfig {
        search: SearchConfig {
            simulations: 64,
            noise: 0.25,
            moves_left_slope: if SEARCH_MOVES_LEFT_HEAD {
                MOVES_LEFT_SLOPE
            } else {
                0.0
            },
            moves_left_cap: MOVES_LEFT_CAP,
            c_puct: SEARCH_C_PUCT,
            discount: SEARCH_DISCOUNT,
            ..SearchConfig::default()
        },
        temperature_plies: 0,
        parallel: 64,
        replay_capacity: 50_000,
        batch_size: 256,
        updates: 1,
        lr: 1e-3,
        search_value_weight: 0.5,
    }
}

/// The hidden layers of DQN and actor-critic (the knight study's: two of 128).
pub const HIDDEN: usize = 128;

/// The discount of every algorithm (the endgame and queen4x4 TD studies' 0.95;
/// with the knight study's 0.99 and its learning rate 5e-4, DQN's greedy policy
/// never mated on queen4x4 in 5000 episodes, where 0.95 and 1e-3 mate in all
/// evaluation games after 2000).
pub const GAMMA: f32 = 0.95;

/// DQN's setting for `width` inputs and `actions` outputs.
pub fn dqn_config(width: usize, actions: usize) -> DqnConfig {
    DqnConfig {
        sizes: vec![width, HIDDEN, HIDDEN, actions],
        lr: 1e-3,
        gamma: GAMMA,
        replay_capacity: 10_000,
        ..DqnConfig::default()
    }
}

/// Actor-critic's setting (the knight study's learning rates).
pub fn actor_critic_config() -> ActorCriticConfig {
    ActorCriticConfig {
        gamma: GAMMA,
        ..ActorCriticConfig::default()
    }
}

/// The tabular learner's setting: the endgame study's (alpha 0.05, gamma 0.95,
/// static epsilon 0.003, draws -10000) with its heuristic reward and the perfect
/// defender.
pub fn tabular_config(endgame: Endgame, seed: u64) -> EndgameConfig {
    EndgameConfig {
        endgame,
        seed,
        reward: RewardKind::Heuristic,
        exploration: Exploration::Static,
        opponent: Opponent::Perfect,
        max_moves: ENDGAME_MOVE_CAP,
        ..EndgameConfig::default()
    }
}
