//! `burnmate grid`: the study's beta x gamma grid (Figure 3), runs in parallel.
//!
//! The grid directory is a [`crate::run::grid_dir`]: its plan is the resolved config
//! (`grid.toml`), each cell trains into its own run directory and is recorded in
//! `results.jsonl` when done. A rerun with the same `--out` and options resumes: done
//! cells are skipped, a cell killed after a resume point continues from it, any other
//! unfinished cell is trained again. `--shard i/N` runs every N-th cell, and
//! `burnmate merge` joins shard directories (cell directories included) into one.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, ensure};

use crate::run::files::{config_stem, copy_dir, create_run_dir};
use crate::run::grid_dir::{GridDir, RESULTS_FILE, Shard, in_plan_order, merge, read_results};
use crate::run::overrides::Overrides;
use crate::run::progress::Silent;
use crate::run::resume::RESUME_FILE;
use crate::studies::queen4x4::config::Queen4x4Config;
use crate::studies::queen4x4::grid_cell::{GridCell, GridCellResult};
use crate::studies::queen4x4::grid_report::write_report;
use crate::studies::queen4x4::train::{resume_run, train_run};

/// Name of the plan file of a grid directory.
pub const PLAN_FILE: &str = "grid.toml";

/// Options of `burnmate grid` beyond the config.
pub struct GridOptions {
    /// Exploration decay values replacing the config's `[grid]` ones (if any).
    pub betas: Vec<f64>,
    /// Discount factors replacing the config's `[grid]` ones (if any).
    pub gammas: Vec<f64>,
    /// Only this part of the grid.
    pub shard: Option<Shard>,
    /// Worker threads.
    pub jobs: usize,
}

/// `burnmate grid CONFIG [--beta ..] [--gamma ..] [--shard i/N] [--jobs N]`.
pub fn grid_command(
    path: &Path,
    config: Queen4x4Config,
    options: GridOptions,
    overrides: &Overrides,
) -> Result<()> {
    let mut plan = config.with_overrides(overrides);
    if !options.betas.is_empty() {
        plan.grid.beta = options.betas;
    }
    if !options.gammas.is_empty() {
        plan.grid.gamma = options.gammas;
    }
    plan.validate()?;
    ensure!(
        !plan.grid.beta.is_empty() && !plan.grid.gamma.is_empty(),
        "the grid needs at least one beta and one gamma"
    );
    let device = plan.backend.device()?;
    let root = match &overrides.out {
        Some(dir) => dir.clone(),
        None => create_run_dir(None, &format!("{}-grid", config_stem(path)))?,
    };
    let grid = GridDir::<GridCellResult>::open(&root, PLAN_FILE, &plan, options.shard)?;
    let pending = grid.pending("grid", cells(&plan), options.shard, 1);
    grid.run_all("grid", &pending, options.jobs, |cell| {
        run_cell(&plan, &root, cell, device.clone())
    })?;
    let results = in_plan_order(&cells(&plan), read_results(&root.join(RESULTS_FILE))?)?;
    say!("grid directory  {}", root.display());
    say_inline!("{}", write_report(&root, &plan, &results)?);
    Ok(())
}

/// Every cell of the grid, in plan order (gamma-major, as the config lists them).
pub fn cells(plan: &Queen4x4Config) -> Vec<GridCell> {
    plan.grid
        .gamma
        .iter()
        .flat_map(|&gamma| {
            plan.grid
                .beta
                .iter()
                .map(move |&beta| GridCell { beta, gamma })
        })
        .collect()
}

/// The run directory of `cell` inside the grid directory `root`.
pub fn cell_dir(root: &Path, cell: &GridCell) -> std::path::PathBuf {
    root.join(format!("beta-{:e}-gamma-{}", cell.beta, cell.gamma))
}

/// Trains one cell into its run directory: continues it from its resume point if a
/// killed grid left one, else (re)starts it in an empty directory.
fn run_cell(
    plan: &Queen4x4Config,
    root: &Path,
    cell: &GridCell,
    device: burn::tensor::Device,
) -> Result<GridCellResult> {
    let mut config = plan.clone();
    config.beta = cell.beta;
    config.gamma = cell.gamma as f32;
    let dir = cell_dir(root, cell);
    let summary = if dir.join(RESUME_FILE).exists() {
        resume_run(&config, &dir, &Silent)?
    } else {
        if dir.exists() {
            fs::remove_dir_all(&dir)
                .with_context(|| format!("cannot clear the unfinished cell {}", dir.display()))?;
        }
        fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        train_run(&config, device, &dir, &Silent, false)?
    };
    Ok(GridCellResult {
        cell: *cell,
        summary,
    })
}

/// `burnmate merge` for grid shards: one grid directory `out` with every cell's
/// result and run directory, and the report an unsharded grid writes.
pub fn merge_command(out: &Path, dirs: &[&Path], partial: bool) -> Result<()> {
    let carry = |result: &GridCellResult| {
        let source = dirs
            .iter()
            .map(|dir| cell_dir(dir, &result.cell))
            .find(|dir| dir.join("summary.json").exists())
            .with_context(|| {
                format!(
                    "no shard holds the run directory of beta {} gamma {}",
                    result.cell.beta, result.cell.gamma
                )
            })?;
        copy_dir(&source, &cell_dir(out, &result.cell))
    };
    let (plan, results) =
        merge::<Queen4x4Config, GridCellResult>(out, PLAN_FILE, dirs, partial, cells, carry)?;
    say!(
        "merged          {} of {} runs",
        results.len(),
        cells(&plan).len()
    );
    say_inline!("{}", write_report(out, &plan, &results)?);
    Ok(())
}
