//! The endgame config: every key defaults to the study's value or our documented
//! reading of it (STUDIES.md section 3).

use anyhow::{Result, ensure};
use burnmate_agents::endgame::MateFormula;
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::run::overrides::Overrides;

/// Which position value drives the rewards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RewardKind {
    /// The engine-evaluation reward, from exact tablebase mate distances.
    Engine,
    /// King distance plus the black king's flood-filled region.
    Heuristic,
}

/// Static or decaying exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exploration {
    /// `epsilon` throughout.
    Static,
    /// `epsilon / decay^wins`, wins counted over the run.
    Decaying,
}

/// Which defender plays black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum DefenderKind {
    /// Delays mate longest (tablebase), ties broken at random with the run's seed.
    Perfect,
    /// Uniformly random legal moves.
    Random,
    /// An installed Stockfish over UCI (the study's setting), its best move.
    Stockfish,
}

/// What values positions for the engine reward (`evaluator` in a config).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum RewardSource {
    /// Exact mate distances from the tablebase (default).
    #[default]
    Tablebase,
    /// An installed Stockfish's score (the study's setting).
    Stockfish,
}

/// The update of a white move after which black's reply ended the match (a capture
/// of white's piece, repetition or the fifty-move rule; the thesis is silent).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndingReply {
    /// The match is over: the draw reward alone, no future term (default; the reading
    /// that a terminal position has no future).
    Terminal,
    /// The draw reward plus the least-best future over black's replies (earlier
    /// versions of burnmate).
    Bootstrap,
}

/// Settings of one endgame run (one start position).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EndgameConfig {
    /// `kqk`, `krk`, `kbbk` or `kbnk`.
    pub endgame: Endgame,
    /// Index into `assets/endgame-<endgame>.fen` (0-9); without `start` and `fen`,
    /// start 0. Setting both is an error.
    pub start: Option<usize>,
    /// A start position as FEN (white to move); overrides `start`.
    pub fen: String,
    /// Matches to play (study: 5000).
    pub episodes: u64,
    /// Seed of the run.
    pub seed: u64,
    /// `engine` or `heuristic`.
    pub reward: RewardKind,
    /// The engine reward's mate branch: `equation` (default) or `prose`.
    pub mate_formula: MateFormula,
    /// `static` or `decaying`.
    pub exploration: Exploration,
    /// Exploration rate (study: 0.003).
    pub epsilon: f64,
    /// Decay base per win (study: 1.1; also 1.01 studied).
    pub decay: f64,
    /// Learning rate (study: 0.05).
    pub alpha: f64,
    /// Discount (study: 0.95).
    pub gamma: f64,
    /// `perfect`, `random` or `stockfish`.
    pub opponent: DefenderKind,
    /// `tablebase` or `stockfish`: the source of the engine reward.
    pub evaluator: RewardSource,
    /// The UCI engine: a program name on PATH (or /usr/games) or a path.
    pub stockfish: String,
    /// The engine's search depth (study: 15).
    pub stockfish_depth: u32,
    /// Cap on white moves per match.
    pub max_moves: u32,
    /// Reward of a draw (stalemate, repetition, fifty moves, piece lost).
    pub draw_reward: f64,
    /// `terminal` or `bootstrap`: the update when black's reply ends the match.
    pub ending_reply: EndingReply,
    /// Evaluation games of the frozen greedy table after training (study: 1).
    pub eval_games: u64,
    /// Matches between resume points (`burnmate resume RUN` after a kill).
    pub checkpoint_every: u64,
}

impl Default for EndgameConfig {
    fn default() -> EndgameConfig {
        EndgameConfig {
            endgame: Endgame::Kqk,
            start: None,
            fen: String::new(),
            episodes: 5000,
            seed: 0,
            reward: RewardKind::Engine,
            mate_formula: MateFormula::Equation,
            exploration: Exploration::Static,
            epsilon: 0.003,
            decay: 1.1,
            alpha: 0.05,
            gamma: 0.95,
            opponent: DefenderKind::Perfect,
            evaluator: RewardSource::Tablebase,
            stockfish: "stockfish".into(),
            stockfish_depth: 15,
            max_moves: 50,
            draw_reward: -10_000.0,
            ending_reply: EndingReply::Terminal,
            eval_games: 1,
            checkpoint_every: 1000,
        }
    }
}

impl EndgameConfig {
    /// Checks value ranges; errors name the key.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            self.start.is_none_or(|s| s < 10),
            "start must be 0..9 (the shipped start positions)"
        );
        ensure!(
            self.start.is_none() || self.fen.trim().is_empty(),
            "set start or fen, not both"
        );
        ensure!(self.episodes > 0, "episodes must be positive");
        ensure!(
            (0.0..=1.0).contains(&self.epsilon),
            "epsilon must lie in [0, 1]"
        );
        ensure!(self.decay >= 1.0, "decay must be at least 1");
        ensure!(
            self.alpha > 0.0 && self.alpha <= 1.0,
            "alpha must lie in (0, 1]"
        );
        ensure!(
            (0.0..=1.0).contains(&self.gamma),
            "gamma must lie in [0, 1]"
        );
        ensure!(self.max_moves > 0, "max_moves must be positive");
        ensure!(
            (1..=60).contains(&self.stockfish_depth),
            "stockfish_depth must lie in 1..60"
        );
        ensure!(self.eval_games > 0, "eval_games must be positive");
        ensure!(
            self.checkpoint_every > 0,
            "checkpoint_every must be positive"
        );
        Ok(())
    }

    /// Whether a run of this config talks to Stockfish.
    pub fn uses_stockfish(&self) -> bool {
        self.opponent == DefenderKind::Stockfish || self.evaluator == RewardSource::Stockfish
    }

    /// Applies command-line overrides (`--backend` does not apply: the table needs no device).
    pub fn with_overrides(mut self, o: &Overrides) -> EndgameConfig {
        self.seed = o.seed.unwrap_or(self.seed);
        self.episodes = o.episodes.unwrap_or(self.episodes);
        self
    }

    /// Exploration rate after `wins` won matches.
    pub fn epsilon_after(&self, wins: u64) -> f64 {
        match self.exploration {
            Exploration::Static => self.epsilon,
            Exploration::Decaying => self.epsilon / self.decay.powf(wins as f64),
        }
    }
}
