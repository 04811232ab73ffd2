//! `burnmate matrix`: every algorithm on every game, each cell next to the exact
//! optimum (games x algorithms x seeds, in parallel, resumable).
//!
//! A cell trains one algorithm on one game with one seed for its budget of episodes,
//! then lets the frozen greedy policy play the game's fixed evaluation starts and
//! compares the wins and moves with optimal play from the same starts. The matrix
//! directory is a [`crate::run::grid_dir`]: a rerun with the same options resumes.

pub mod algorithm;
pub mod cell;
pub mod report;
pub mod search_report;
pub mod spread;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use anyhow::{Context, Result, bail};
use burnmate_encode::endgame::EndgameEncoding;
use burnmate_encode::knight::KnightEncoding;
use burnmate_encode::queen4x4::Queen4x4Encoding;
use burnmate_env::endgame::Endgame;
use burnmate_oracle::queen4x4::Queen4x4Solution;
use burnmate_oracle::tablebase::Tablebase;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::run::grid_dir::{
    GridDir, GridRecord, RESULTS_FILE, Shard, in_plan_order, merge, read_results,
};
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::scenario::{self as game, Game, StartSource};
use crate::studies::search::{evaluation, settings, training};
use algorithm::Algorithm;
use cell::{Cell, CellResult, run_neural, run_tabular};

/// The settings of a matrix (`burnmate matrix`'s options); stored as `matrix.toml`
/// so a rerun can resume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(deny_unknown_fields)]
pub struct MatrixPlan {
    /// Games (comma-separated), in table order.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "queen4x4,knight,kqk,krk,kbbk,kbnk"
    )]
    pub games: Vec<Game>,
    /// Algorithms (comma-separated), in table order; mcts is for endgames only and
    /// not in the default set: its cells take minutes each.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "tabular,td,dqn,actor-critic"
    )]
    pub algorithms: Vec<Algorithm>,
    /// Seeds per cell (0..seeds).
    #[arg(long, default_value_t = 3)]
    pub seeds: u64,
    /// Multiplies every cell's training episodes (1: the default budget).
    #[arg(long, default_value_t = 1.0)]
    pub budget: f64,
    /// Endgame starts: won (drawn from all won positions), shipped (the study's 10),
    /// retro (training starts grown backwards from mate, rules only; evaluation as
    /// won), frontier (mcts only: training starts walked back from its own mates,
    /// rules only; evaluation as won) or uniform (training starts from every legal
    /// position, rules only; evaluation as won; the pawn endings' only source).
    #[arg(long, value_enum, default_value = "won")]
    pub starts: StartSource,
    /// Burn backend of the neural learners.
    #[arg(long, value_enum, default_value = "flex")]
    pub backend: BackendChoice,
}

impl GridRecord for CellResult {
    type Key = Cell;
    fn key(&self) -> Cell {
        self.cell
    }
}

impl MatrixPlan {
    /// Checks the plan; errors name the setting.
    pub fn validate(&self) -> Result<()> {
        if self.games.is_empty() || self.algorithms.is_empty() {
            bail!("choose at least one game and one algorithm");
        }
        for (i, g) in self.games.iter().enumerate() {
            if self.games[..i].contains(g) {
                bail!("game {} is listed twice", g.name());
            }
        }
        for (i, a) in self.algorithms.iter().enumerate() {
            if self.algorithms[..i].contains(a) {
                bail!("algorithm {} is listed twice", a.name());
            }
        }
        if self.seeds == 0 {
            bail!("--seeds must be positive");
        }
        let unshipped = self
            .games
            .iter()
            .find(|g| matches!(g, Game::Endgame(e) if !e.lone_king()));
        if let (StartSource::Shipped, Some(g)) = (self.starts, unshipped) {
            bail!(
                "--starts shipped: {} has no shipped starts (the study's endgames and kbnk do)",
                g.name()
            );
        }
        let unserved = self
            .games
            .iter()
            .find(|g| matches!(g, Game::Endgame(e) if !self.starts.serves(*e)));
        if let Some(Game::Endgame(e)) = unserved {
            bail!("{e} trains from {}", StartSource::serving(*e));
        }
        let not_search = self.algorithms.iter().find(|&&a| a != Algorithm::Mcts);
        if let (StartSource::Frontier, Some(a)) = (self.starts, not_search) {
            bail!(
                "--starts frontier: only mcts trains from its own mates, not {}",
                a.name()
            );
        }
        if !(self.budget > 0.0 && self.budget.is_finite()) {
            bail!("--budget must be a positive number, not {}", self.budget);
        }
        if self.cells().is_empty() {
            bail!("no chosen algorithm applies to a chosen game");
        }
        Ok(())
    }

    /// Every run of the matrix (applicable cells only), in table order.
    pub fn cells(&self) -> Vec<Cell> {
        let mut cells = Vec::new();
        for &game in &self.games {
            for &algorithm in &self.algorithms {
                if algorithm.not_applicable(game).is_none() {
                    cells.extend((0..self.seeds).map(|seed| Cell {
                        game,
                        algorithm,
                        seed,
                    }));
                }
            }
        }
        cells
    }

    /// Training episodes of a cell.
    pub fn episodes(&self, cell: &Cell) -> u64 {
        ((cell.algorithm.base_episodes(cell.game) as f64 * self.budget).round() as u64).max(1)
    }
}

/// What every cell reads: the exact tables, each solved (or read from the cache)
/// when a cell first needs it and then shared.
pub struct Oracles {
    /// The chosen endgames' tablebases, filled on first use.
    tablebases: Vec<(Endgame, OnceLock<Tablebase>)>,
    /// Where tablebases are cached.
    cache: PathBuf,
    /// Held while a tablebase is built, so that it is built once.
    building: Mutex<()>,
    /// queen4x4 solved, when chosen.
    queen4x4: Option<Queen4x4Solution>,
}

impl Oracles {
    /// The oracles of `plan`'s games: queen4x4 solved now, tablebases read from or
    /// built into `cache` on first use.
    pub fn load(plan: &MatrixPlan, cache: &Path) -> Oracles {
        Oracles {
            tablebases: plan
                .games
                .iter()
                .filter_map(|g| match g {
                    Game::Endgame(e) => Some((*e, OnceLock::new())),
                    _ => None,
                })
                .collect(),
            cache: cache.to_path_buf(),
            building: Mutex::new(()),
            queen4x4: plan
                .games
                .contains(&Game::Queen4x4)
                .then(Queen4x4Solution::solve),
        }
    }

    /// The tablebase of `endgame` (one of the plan's), built or read on first use.
    pub fn tablebase(&self, endgame: Endgame) -> Result<&Tablebase> {
        let slot = &self
            .tablebases
            .iter()
            .find(|(e, _)| *e == endgame)
            .context("the endgame is one of the plan's")?
            .1;
        if let Some(table) = slot.get() {
            return Ok(table);
        }
        let _one_builder = self.building.lock().expect("no builder panicked");
        if let Some(table) = slot.get() {
            return Ok(table);
        }
        let table = load_or_build(endgame, &self.cache)?;
        Ok(slot.get_or_init(|| table))
    }
}

/// The folder of a matrix directory that holds its search nets.
pub const NETS_DIR: &str = "nets";

/// The file of `cell`'s search net in the matrix directory `dir`.
pub fn net_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join(NETS_DIR)
        .join(format!("{}.json", cell.file_stem()))
}

/// The resume file of `cell`'s search training in the matrix directory `dir`
/// (removed once the cell's result is recorded).
pub fn resume_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join(NETS_DIR)
        .join(format!("{}.resume.json", cell.file_stem()))
}

/// A search learner cell's losses and mate rate a block of games
/// ([`training::METRICS_HEADER`]), beside its net.
pub fn metrics_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join(NETS_DIR)
        .join(format!("{}.metrics.csv", cell.file_stem()))
}

/// Trains and evaluates one cell of the matrix in `dir` (a search learner's net is
/// saved there, [`net_path`]).
pub fn run_cell(
    plan: &MatrixPlan,
    cell: Cell,
    oracles: &Oracles,
    dir: &Path,
) -> Result<CellResult> {
    let episodes = plan.episodes(&cell);
    let device = plan.backend.device()?;
    match cell.game {
        Game::Queen4x4 => {
            let solution = oracles.queen4x4.as_ref().context("queen4x4 is solved")?;
            run_neural(
                &game::queen4x4(solution),
                &Queen4x4Encoding,
                cell,
                episodes,
                &device,
            )
        }
        Game::Knight => run_neural(&game::knight(), &KnightEncoding, cell, episodes, &device),
        Game::Endgame(endgame) if cell.algorithm == Algorithm::Mcts => {
            // Trained on the rules alone: the tablebase is read only to evaluate.
            let run = training::SearchTraining {
                endgame,
                seed: cell.seed,
                games: episodes,
                starts: plan.starts,
                playout_cap: None,
                attacker_simulations: None,
                defender_simulations: None,
                updates: None,
                retry_share: None,
                lr_end: None,
                promoted_share: settings::promoted_share(endgame),
                captured_share: settings::captured_share(endgame),
                near_mate_share: settings::near_mate_share(endgame),
            };
            let metrics = metrics_path(dir, &cell);
            let resume = resume_path(dir, &cell);
            let trained = training::train_search(&run, &device, &resume, Some(&metrics))?;
            let tablebase = oracles.tablebase(endgame)?;
            let scenario = game::endgame(endgame, tablebase, plan.starts)?;
            let net = net_path(dir, &cell);
            let result =
                evaluation::evaluate_trained(&scenario, cell.seed, &trained, &device, &net)?;
            Ok(CellResult::of_search(cell, result))
        }
        Game::Endgame(endgame) => {
            let tablebase = oracles.tablebase(endgame)?;
            let scenario = game::endgame(endgame, tablebase, plan.starts)?;
            if cell.algorithm == Algorithm::Tabular {
                run_tabular(
                    &scenario,
                    &EndgameEncoding::of(endgame),
                    endgame,
                    tablebase,
                    cell,
                    episodes,
                )
            } else {
                run_neural(
                    &scenario,
                    &EndgameEncoding::of(endgame),
                    cell,
                    episodes,
                    &device,
                )
            }
        }
    }
}

/// Name of the plan file of a matrix directory.
pub const PLAN_FILE: &str = "matrix.toml";

/// Runs every cell of `plan` (of `shard`, if given) not yet in `dir` on `jobs`
/// threads, then writes `matrix.md`, `matrix.json` and `matrix.svg`.
pub fn matrix_command(
    dir: &Path,
    plan: &MatrixPlan,
    shard: Option<Shard>,
    jobs: usize,
) -> Result<()> {
    plan.validate()?;
    let grid = GridDir::<CellResult>::open(dir, PLAN_FILE, plan, shard)?;
    let pending = grid.pending("matrix", plan.cells(), shard, 1);
    let oracles = Oracles::load(plan, &tablebase_dir());
    grid.run_all("matrix", &pending, jobs, |&cell| {
        run_cell(plan, cell, &oracles, dir)
    })?;
    let results: Vec<CellResult> =
        in_plan_order(&plan.cells(), read_results(&dir.join(RESULTS_FILE))?)?;
    for result in &results {
        // A recorded cell needs its resume point no more.
        let resume = resume_path(dir, &result.cell);
        if resume.exists() {
            std::fs::remove_file(&resume)
                .with_context(|| format!("cannot remove {}", resume.display()))?;
        }
    }
    report::write_report(dir, plan, &results)
}

/// `burnmate merge` for matrix shards: one matrix directory `out` with every run of
/// `dirs` and its report.
pub fn merge_command(out: &Path, dirs: &[&Path], partial: bool) -> Result<()> {
    // A search cell's net comes along, so the merged matrix serves it.
    let carry = |result: &CellResult| {
        let net = dirs
            .iter()
            .map(|dir| net_path(dir, &result.cell))
            .find(|path| path.exists());
        match net {
            Some(net) => {
                let to = net_path(out, &result.cell);
                std::fs::create_dir_all(out.join(NETS_DIR))?;
                crate::run::files::write_atomic(&to, &std::fs::read(&net)?)
            }
            None => Ok(()),
        }
    };
    let (plan, results) =
        merge::<MatrixPlan, CellResult>(out, PLAN_FILE, dirs, partial, MatrixPlan::cells, carry)?;
    say!(
        "merged          {} of {} runs",
        results.len(),
        plan.cells().len()
    );
    report::write_report(out, &plan, &results)
}

#[cfg(test)]
mod tests;
