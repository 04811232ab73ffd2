//! The algorithms of the matrix, each with one setting for every game (so a cell
//! differs from its neighbours in the game alone), and where each applies.

use burnmate_agents::actor_critic::ActorCriticConfig;
use burnmate_agents::dqn::DqnConfig;
use burnmate_agents::luo::{LuoConfig, TdAlgorithm, UpdateRule};
use burnmate_agents::schedule::EpsilonSchedule;
use burnmate_env::endgame::Endgame;
use burnmate_models::OutputActivation;
use serde::{Deserialize, Serialize};

use crate::studies::endgame::config::{DefenderKind, EndgameConfig, Exploration, RewardKind};
use crate::studies::scenario::{ENDGAME_MOVE_CAP, Game};
use crate::studies::search::settings::self_play_games;

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
            (Algorithm::Mcts, _) => None,
            (_, Game::Endgame(endgame)) if endgame.has_pawns() => Some(
                "the older learners move through one action slot a white piece, which \
                 a promotion does not keep; the pawn endings are the search learner's",
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
            (Algorithm::Mcts, Game::Endgame(endgame)) => self_play_games(endgame),
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
        opponent: DefenderKind::Perfect,
        max_moves: ENDGAME_MOVE_CAP,
        ..EndgameConfig::default()
    }
}
