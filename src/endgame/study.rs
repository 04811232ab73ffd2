//! `burnmate study endgame`: the study's whole grid (endgames x rewards x exploration
//! x start positions x runs), in parallel, resumable, summarised as Table 3.2.
//!
//! The study directory is a [`crate::grid_dir`]: a rerun with the same settings
//! skips the runs already in its `results.jsonl`.

use std::path::Path;

use anyhow::{Result, bail};
use burnmate_env::endgame::{Endgame, MatchEnd};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::endgame::config::{EndgameConfig, Evaluator, Exploration, Opponent, RewardKind};
use crate::endgame::engine_audit::EngineAudit;
use crate::endgame::game::{Arena, mate_in};
use crate::endgame::starts::{SHIPPED_STARTS, shipped_start};
use crate::endgame::study_report::write_report;
use crate::endgame::train::{EVAL_SEED_OFFSET, TableStart, evaluate, train_table};
use crate::grid_dir::{
    GridDir, GridRecord, RESULTS_FILE, Shard, in_plan_order, merge, read_results,
};
use crate::solve::load_or_build;

/// Matches per bucket of the win curves.
pub const CURVE_BUCKET: u64 = 100;

/// The settings of a study; stored as `study.toml` so a rerun can resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyPlan {
    /// Endgames, e.g. `["kqk", "krk", "kbbk"]`.
    pub endgames: Vec<String>,
    /// Shipped start positions used per endgame (the first `starts` of 10).
    pub starts: usize,
    /// Runs (seeds 0..runs) per start position and setting.
    pub runs: u64,
    /// Matches per run (study: 5000).
    pub matches: u64,
    /// Decay base of the decaying exploration (study: 1.1; also 1.01).
    pub decay: f64,
    /// The defender.
    pub opponent: Opponent,
    /// The source of the engine reward (the study's: Stockfish).
    #[serde(default)]
    pub evaluator: Evaluator,
}

/// One run of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
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
pub struct CellResult {
    /// Which run.
    #[serde(flatten)]
    pub cell: Cell,
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

impl GridRecord for CellResult {
    type Key = Cell;
    fn key(&self) -> Cell {
        self.cell
    }
}

impl StudyPlan {
    /// Checks the plan; errors name the setting.
    pub fn validate(&self) -> Result<()> {
        for name in &self.endgames {
            if Endgame::parse(name).is_none() {
                bail!("endgame must be kqk, krk or kbbk, not '{name}'");
            }
        }
        if self.endgames.is_empty() {
            bail!("no endgame selected");
        }
        for (i, name) in self.endgames.iter().enumerate() {
            if self.endgames[..i].contains(name) {
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
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for name in &self.endgames {
            let endgame = Endgame::parse(name).expect("validated");
            for reward in [RewardKind::Engine, RewardKind::Heuristic] {
                for start in 0..self.starts {
                    for run in 0..self.runs {
                        for exploration in [Exploration::Static, Exploration::Decaying] {
                            cells.push(Cell {
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
    pub fn config(&self, cell: &Cell) -> EndgameConfig {
        EndgameConfig {
            endgame: cell.endgame.name().into(),
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

/// Runs that go to one shard together: the static and decaying runs of a seed play
/// the same matches until exploration first differs (epsilon 0.003 against
/// 0.003 / 1.1^wins on one random stream), so they visit nearly the same positions
/// and, in Stockfish's setting, one shard searches them once instead of two.
pub const SHARD_GROUP: usize = 2;

/// Name of the plan file of a study directory.
pub const PLAN_FILE: &str = "study.toml";

/// Runs every run of `plan` (of `shard`, if given) not yet in `dir`, on `jobs`
/// threads, then writes the report.
pub fn study_command(
    dir: &Path,
    plan: &StudyPlan,
    shard: Option<Shard>,
    jobs: usize,
) -> Result<()> {
    plan.validate()?;
    let grid = GridDir::<CellResult>::open(dir, PLAN_FILE, plan, shard)?;
    let pending = grid.pending("study", plan.cells(), shard, SHARD_GROUP);
    let tablebases: Vec<(Endgame, Tablebase)> = plan
        .endgames
        .iter()
        .map(|name| {
            let endgame = Endgame::parse(name).expect("validated");
            load_or_build(endgame, Path::new("tablebases")).map(|t| (endgame, t))
        })
        .collect::<Result<_>>()?;
    grid.run_all("study endgame", &pending, jobs, |cell| {
        let tablebase = &tablebases
            .iter()
            .find(|(e, _)| *e == cell.endgame)
            .expect("loaded above")
            .1;
        run_cell(plan, cell, tablebase)
    })?;
    if let Some(stats) = crate::engine_cache::total_stats() {
        crate::endgame::train::say_cache_stats(stats);
    }
    let results = in_plan_order(&plan.cells(), read_results(&dir.join(RESULTS_FILE))?);
    write_report(dir, plan, &results)
}

/// `burnmate merge` for study shards: one study directory `out` with every run
/// of `dirs` and its report.
pub fn merge_command(out: &Path, dirs: &[&Path]) -> Result<()> {
    let (plan, results) = merge::<StudyPlan, CellResult>(out, PLAN_FILE, dirs, StudyPlan::cells)?;
    say!(
        "merged          {} of {} runs",
        results.len(),
        plan.cells().len()
    );
    write_report(out, &plan, &results)
}

/// Trains and evaluates one run of the grid.
pub fn run_cell(plan: &StudyPlan, cell: &Cell, tablebase: &Tablebase) -> Result<CellResult> {
    let config = plan.config(cell);
    let start = shipped_start(cell.endgame, cell.start)?;
    let arena = Arena::new(cell.endgame, tablebase, &config)?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let buckets = plan.matches.div_ceil(CURVE_BUCKET) as usize;
    let mut wins_per_bucket = vec![0u32; buckets];
    let mut training_wins = 0;
    let from = TableStart::fresh(&arena);
    let mut q = train_table(&arena, &start, from, &mut rng, |n, result, _, _, _| {
        if result.end == MatchEnd::Checkmate {
            wins_per_bucket[(n / CURVE_BUCKET) as usize] += 1;
            training_wins += 1;
        }
        Ok(())
    })?;
    let eval = evaluate(
        &arena,
        &mut q,
        &start,
        1,
        config.seed.wrapping_add(EVAL_SEED_OFFSET),
    )?;
    let solved = eval.win_rate > 0.0;
    Ok(CellResult {
        cell: *cell,
        solved,
        eval_moves: solved.then_some(eval.mean_moves_won.round() as u32),
        optimal_moves: mate_in(tablebase, &start),
        training_wins,
        wins_per_bucket,
        stockfish: arena.engine.as_ref().map(|_| *arena.audit.borrow()),
    })
}
