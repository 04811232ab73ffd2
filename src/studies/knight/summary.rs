//! `summary.json` of a knight run: the study's Table 1 measures.

use burnmate_oracle::knight::{KnightOptimum, KnightRandomBaseline};
use serde::{Deserialize, Serialize};

use crate::run::metrics::TrainingStats;

use crate::studies::knight::config::KnightAgentKind;

/// The study's Table 1 over a number of games.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnightEval {
    /// Games played.
    pub games: u64,
    /// Mean cumulative reward per game.
    pub cumulative_reward: f64,
    /// Mean on-board moves per game.
    pub legal_moves: f64,
    /// Mean off-board jumps per game.
    pub illegal_moves: f64,
    /// Share of games won (check).
    pub win_rate: f64,
    /// Share of games lost by running out of moves.
    pub out_of_moves_rate: f64,
    /// Share of games lost by capture.
    pub captured_rate: f64,
}

/// Everything a knight run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnightSummary {
    /// Always "knight".
    pub study: String,
    /// Which agent.
    pub agent: KnightAgentKind,
    /// Training statistics.
    #[serde(flatten)]
    pub training: TrainingStats,
    /// Table 1 after training.
    pub eval: KnightEval,
    /// Optimal play over the same start distribution.
    pub optimal: KnightOptimum,
    /// The uniformly random agent's exact expectations over the same distribution.
    #[serde(default)]
    pub random_exact: KnightRandomBaseline,
    /// The study's Table 1 row for this agent.
    pub study_reported: Option<serde_json::Value>,
}

/// The study's Table 1 row for `agent` (from `assets/`).
pub fn reported(agent: KnightAgentKind) -> Option<serde_json::Value> {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/knight-reported.json")).ok()?;
    let key = serde_json::to_value(agent).ok()?;
    table.get(key.as_str()?).cloned()
}
