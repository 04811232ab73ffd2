//! `burnmate study endgame`: the study's whole grid (endgames x rewards x exploration
//! x start positions x runs), in parallel, resumable, summarised as Table 3.2.
//!
//! The study directory is a [`crate::run::grid_dir`]: a rerun with the same settings
//! skips the runs already in its `results.jsonl`.

use std::path::Path;

use anyhow::Result;
use burnmate_env::endgame::{Endgame, MatchEnd};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::run::grid_dir::{GridDir, RESULTS_FILE, Shard, in_plan_order, merge, read_results};
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::endgame::game::Arena;
use crate::studies::endgame::starts::shipped_start;
use crate::studies::endgame::study_plan::{CURVE_BUCKET, StudyCell, StudyCellResult, StudyPlan};
use crate::studies::endgame::study_report::write_report;
use crate::studies::endgame::train::{EVAL_SEED_OFFSET, TrainingTable, evaluate};

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
    let grid = GridDir::<StudyCellResult>::open(dir, PLAN_FILE, plan, shard)?;
    let pending = grid.pending("study", plan.cells(), shard, SHARD_GROUP);
    let tablebases: Vec<(Endgame, Tablebase)> = plan
        .endgames
        .iter()
        .map(|&endgame| load_or_build(endgame, &tablebase_dir()).map(|t| (endgame, t)))
        .collect::<Result<_>>()?;
    grid.run_all("study endgame", &pending, jobs, |cell| {
        let tablebase = &tablebases
            .iter()
            .find(|(e, _)| *e == cell.endgame)
            .expect("loaded above")
            .1;
        run_cell(plan, cell, tablebase)
    })?;
    if let Some(stats) = crate::run::engine_cache::total_stats() {
        crate::studies::endgame::train::say_cache_stats(stats);
    }
    let results = in_plan_order(&plan.cells(), read_results(&dir.join(RESULTS_FILE))?)?;
    write_report(dir, plan, &results)
}

/// `burnmate merge` for study shards: one study directory `out` with every run
/// of `dirs` and its report.
pub fn merge_command(out: &Path, dirs: &[&Path], partial: bool) -> Result<()> {
    let (plan, results) = merge::<StudyPlan, StudyCellResult>(
        out,
        PLAN_FILE,
        dirs,
        partial,
        StudyPlan::cells,
        |_| Ok(()),
    )?;
    say!(
        "merged          {} of {} runs",
        results.len(),
        plan.cells().len()
    );
    write_report(out, &plan, &results)
}

/// Trains and evaluates one run of the grid.
pub fn run_cell(
    plan: &StudyPlan,
    cell: &StudyCell,
    tablebase: &Tablebase,
) -> Result<StudyCellResult> {
    let config = plan.config(cell);
    let start = shipped_start(cell.endgame, cell.start)?;
    let arena = Arena::new(cell.endgame, tablebase, &config)?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let buckets = plan.matches.div_ceil(CURVE_BUCKET) as usize;
    let mut wins_per_bucket = vec![0u32; buckets];
    let mut training_wins = 0;
    let mut table = TrainingTable::fresh(&arena);
    for n in 0..config.episodes {
        let (result, _) = table.train_match(&arena, &start, &mut rng)?;
        if result.end == MatchEnd::Checkmate {
            wins_per_bucket[(n / CURVE_BUCKET) as usize] += 1;
            training_wins += 1;
        }
    }
    let mut q = table.q;
    let eval = evaluate(
        &arena,
        &mut q,
        &start,
        1,
        config.seed.wrapping_add(EVAL_SEED_OFFSET),
    )?;
    let solved = eval.win_rate > 0.0;
    Ok(StudyCellResult {
        cell: *cell,
        solved,
        eval_moves: solved.then_some(eval.mean_moves_won.round() as u32),
        optimal_moves: tablebase.mate_in(&start),
        training_wins,
        wins_per_bucket,
        stockfish: arena.engine.as_ref().map(|_| *arena.audit.borrow()),
    })
}
