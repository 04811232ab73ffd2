//! What a study of the endgame grid is: its plan (`study.toml`), its runs, and what
//! one run produced (one line of `results.jsonl`).

use anyhow::{Result, bail};
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::run::grid_dir::GridRecord;
use crate::studies::endgame::config::{
    DefenderKind, EndgameConfig, Exploration, RewardKind, RewardSource,
};
use crate::studies::endgame::engine_audit::EngineAudit;
use crate::studies::endgame::starts::SHIPPED_STARTS;

/// Matches per bucket of the win curves.
pub const CURVE_BUCKET: u64 = 100;

/// The settings of a study (`burnmate study endgame`'s options); stored as
/// `study.toml` so a rerun can resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct StudyPlan {
    /// Endgames (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "kqk,krk,kbbk")]
    pub endgames: Vec<Endgame>,
    /// Shipped start positions per endgame (the first N of 10).
    #[arg(long, default_value_t = 10)]
    pub starts: usize,
    /// Runs (seeds 0..runs) per start position and setting.
    #[arg(long, default_value_t = 10)]
    pub runs: u64,
    /// Matches per run (the study: 5000).
    #[arg(long, default_value_t = 5000)]
    pub matches: u64,
    /// Decay base of the decaying exploration (the study: 1.1, also 1.01).
    #[arg(long, default_value_t = 1.1)]
    pub decay: f64,
    /// The defender.
    #[arg(long, value_enum, default_value = "perfect")]
    pub opponent: DefenderKind,
    /// The engine reward's source: tablebase (exact) or stockfish (the study's).
    #[arg(long, value_enum, default_value = "tablebase")]
    #[serde(default)]
    pub evaluator: RewardSource,
}

/// One run of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudyCell {
    /// The endgame.
    pub endgame: Endgame,
    /// The reward.
    pub reward: RewardKind,
    /// The exploration schedule.
    pub exploration: Exploration,
    /// Index of the shipped start.
    pub start: usize,
    /// Run number, also its seed.
    pub run: u64,
}

/// What one run produced (one line of `results.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyCellResult {
    /// Which run.
    #[serde(flatten)]
    pub cell: StudyCell,
    /// Whether the frozen table mated in its one evaluation game (Table 3.2).
    pub solved: bool,
    /// White moves of that mate.
    pub eval_moves: Option<u32>,
    /// Exact optimum from the start.
    pub optimal_moves: Option<u32>,
    /// Matches won during training.
    pub training_wins: u64,
    /// Wins per bucket of `CURVE_BUCKET` matches.
    pub wins_per_bucket: Vec<u32>,
    /// With Stockfish: its best moves in the positions the run consulted it on,
    /// against the tablebase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stockfish: Option<EngineAudit>,
}

/// The 1.1 decay base of the study.
pub const STUDY_DECAY: f64 = 1.1;

impl GridRecord for StudyCellResult {
    type Key = StudyCell;
    fn key(&self) -> StudyCell {
        self.cell
    }
}

impl StudyPlan {
    /// Checks the plan; errors name the setting.
    pub fn validate(&self) -> Result<()> {
        if self.endgames.is_empty() {
            bail!("no endgame selected");
        }
        for (i, endgame) in self.endgames.iter().enumerate() {
            if self.endgames[..i].contains(endgame) {
                let name = endgame.name();
                bail!("endgame {name} is listed twice");
            }
        }
        if !(1..=SHIPPED_STARTS).contains(&self.starts) {
            bail!("starts must lie in 1..={SHIPPED_STARTS}");
        }
        if self.runs == 0 || self.matches == 0 {
            bail!("runs and matches must be positive");
        }
        if !(self.decay >= 1.0 && self.decay.is_finite()) {
            bail!(
                "decay must be a finite number of at least 1, not {}",
                self.decay
            );
        }
        Ok(())
    }

    /// Every run of the grid, in a fixed order: the static and decaying runs of one
    /// seed side by side (a [`SHARD_GROUP`]).
    pub fn cells(&self) -> Vec<StudyCell> {
        let mut cells = Vec::new();
        for &endgame in &self.endgames {
            for reward in [RewardKind::Engine, RewardKind::Heuristic] {
                for start in 0..self.starts {
                    for run in 0..self.runs {
                        for exploration in [Exploration::Static, Exploration::Decaying] {
                            cells.push(StudyCell {
                                endgame,
                                reward,
                                exploration,
                                start,
                                run,
                            });
                        }
                    }
                }
            }
        }
        cells
    }

    /// The config of one run.
    pub fn config(&self, cell: &StudyCell) -> EndgameConfig {
        EndgameConfig {
            endgame: cell.endgame,
            start: Some(cell.start),
            episodes: self.matches,
            seed: cell.run,
            reward: cell.reward,
            exploration: cell.exploration,
            decay: self.decay,
            opponent: self.opponent,
            evaluator: self.evaluator,
            ..EndgameConfig::default()
        }
    }
}
