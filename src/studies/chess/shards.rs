//! One generation in separate steps, so that a cluster can spread its self-play
//! over many machines (a Slurm job array) with the training in a job of its own:
//!
//! ```text
//! prepare          train and gate generation g's candidate    gen-NNN.decision.json
//! play --shard i/N games [(i-1) G / N, i G / N) of its G       data/gen-NNN.shard-I-of-N.{bin,json}
//! record           the shards joined in order, the row written data/gen-NNN.bin, generations.csv
//! ```
//!
//! A game's moves depend only on its index, so the joined shards are the file one
//! machine writes, byte for byte, and the recorded run is the same run (its CPU
//! seconds are the steps' summed). The steps work on the run's first unfinished
//! generation; `prepare` and `record` lock the run, shards write only their own files
//! and may run at once. A step whose output exists already says so and does nothing
//! (a requeued job is harmless).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::config::ChessConfig;
use super::data_file;
use super::generations::{
    Decision, Player, finished, play_generation, player, record, train_and_gate,
};
use super::step_files::{clear, decision_path, shard_path, shards_found};
use crate::run::cpu::cpu_seconds;
use crate::run::files::{lock_dir, write_atomic};
use crate::run::grid_dir::Shard;
use crate::studies::experiment::{Experiment, load_config};

/// A step of `burnmate generation`.
#[derive(Clone, Debug)]
pub enum Step {
    /// A new run of this chess config, nothing played.
    New(PathBuf),
    /// [`prepare`].
    Prepare,
    /// [`play`] this shard.
    Play(Shard),
    /// [`record_generation`].
    Record,
}

/// Takes `step` in chess run `run` (for [`Step::New`], a directory that does not
/// exist yet or is empty).
pub fn run_step(run: &Path, step: Step) -> Result<()> {
    if let Step::New(file) = &step {
        let Experiment::Chess(config) = load_config(file)? else {
            bail!(
                "{} is not a chess config (study = \"chess\")",
                file.display()
            );
        };
        return super::create(run, &config);
    }
    let config_path = run.join("config.toml");
    if !config_path.exists() {
        bail!(
            "{} is not a run ({} is missing): `burnmate generation {} new --config FILE` starts one",
            run.display(),
            config_path.display(),
            run.display()
        );
    }
    let Experiment::Chess(config) = load_config(&config_path)? else {
        bail!("{} is not a chess run", run.display());
    };
    match step {
        Step::New(_) => unreachable!("handled above"),
        Step::Prepare => prepare(run, &config),
        Step::Play(shard) => play(run, &config, shard),
        Step::Record => record_generation(run, &config),
    }
}

/// The decision of a prepared generation and the CPU seconds it took.
#[derive(Serialize, Deserialize)]
struct Prepared {
    decision: Decision,
    cpu_seconds: f64,
}

/// What a played shard adds to its generation's row.
#[derive(Serialize, Deserialize)]
struct Played {
    outcomes: [u32; 3],
    cpu_seconds: f64,
}

/// The games of `shard` among `games`: a contiguous block, in game order.
fn shard_games(shard: Shard, games: u32) -> std::ops::Range<u64> {
    let part = |i: usize| u64::from(games) * i as u64 / shard.count as u64;
    part(shard.index - 1)..part(shard.index)
}

/// The run's first unfinished generation; an error once `config`'s count is done.
fn next_generation(run: &Path, config: &ChessConfig) -> Result<u32> {
    let done = finished(run)?.len() as u32;
    if done > config.generations {
        bail!(
            "{} has finished its {} generations; `burnmate resume {} --generations N` extends it",
            run.display(),
            config.generations,
            run.display()
        );
    }
    Ok(done)
}

/// The decision of `generation` (material for generation 0); an error naming the
/// missing step when it was not prepared.
fn decision(run: &Path, generation: u32) -> Result<Prepared> {
    if generation == 0 {
        return Ok(Prepared {
            decision: Decision::MATERIAL,
            cpu_seconds: 0.0,
        });
    }
    let path = decision_path(run, generation);
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "generation {generation} of {} is not prepared ({} is missing): run `burnmate generation {} prepare` first",
            run.display(),
            path.display(),
            run.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("{} is damaged", path.display()))
}

/// Trains and gates the first unfinished generation's candidate (nothing to do for
/// generation 0 or a generation already prepared).
pub fn prepare(run: &Path, config: &ChessConfig) -> Result<()> {
    let started = Instant::now();
    let _lock = lock_dir(run)?;
    let generation = next_generation(run, config)?;
    let path = decision_path(run, generation);
    if generation == 0 || path.exists() {
        crate::say!("generation {generation} is ready for its self-play");
        return Ok(());
    }
    let previous = finished(run)?.last().expect("generation >= 1").incumbent;
    let openings = super::openings::load(None)?;
    let (decision, phases) = train_and_gate(run, config, &openings, generation, previous)?;
    let prepared = Prepared {
        decision,
        cpu_seconds: cpu_seconds(started),
    };
    write_atomic(&path, serde_json::to_string(&prepared)?.as_bytes())?;
    crate::say!(
        "generation {generation}: incumbent {} (wall s: {phases})",
        prepared.decision.incumbent
    );
    Ok(())
}

/// Plays `shard` of the first unfinished generation's self-play.
pub fn play(run: &Path, config: &ChessConfig, shard: Shard) -> Result<()> {
    let started = Instant::now();
    let generation = next_generation(run, config)?;
    let prepared = decision(run, generation)?;
    let done = shard_path(run, generation, shard, "json");
    if done.exists() {
        crate::say!(
            "shard {}/{} of generation {generation} is played",
            shard.index,
            shard.count
        );
        return Ok(());
    }
    let incumbent = prepared.decision.incumbent;
    let (player, _): (Player, _) = player(run, incumbent)?;
    let openings = super::openings::load(None)?;
    let games = shard_games(shard, config.games);
    let (positions, outcomes) = play_generation(&player, &openings, config, generation, games);
    std::fs::create_dir_all(run.join("data")).context("cannot create the data directory")?;
    data_file::save(&shard_path(run, generation, shard, "bin"), &positions)?;
    let played = Played {
        outcomes,
        cpu_seconds: cpu_seconds(started),
    };
    write_atomic(&done, serde_json::to_string(&played)?.as_bytes())?;
    crate::say!(
        "generation {generation}, shard {}/{}: {} positions",
        shard.index,
        shard.count,
        positions.len()
    );
    Ok(())
}

/// Joins the first unfinished generation's shards (every one of them) into its
/// position file and records its row.
pub fn record_generation(run: &Path, config: &ChessConfig) -> Result<()> {
    let _lock = lock_dir(run)?;
    let generation = next_generation(run, config)?;
    let prepared = decision(run, generation)?;
    let shards = shards_found(run, generation)?;
    let Some(count) = shards.first().map(|s| s.count) else {
        bail!(
            "generation {generation} has no played shard: run `burnmate generation {} play --shard 1/N`",
            run.display()
        );
    };
    let missing: Vec<String> = (1..=count)
        .filter(|&i| !shards.iter().any(|s| s.index == i && s.count == count))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() || shards.len() != count {
        bail!(
            "generation {generation} is not fully played: shards {} are missing (or shards of another count lie beside them)",
            missing.join(", ")
        );
    }
    let (mut positions, mut outcomes, mut cpu) = (Vec::new(), [0u32; 3], prepared.cpu_seconds);
    for &shard in &shards {
        positions.extend(data_file::load(&shard_path(run, generation, shard, "bin"))?);
        let path = shard_path(run, generation, shard, "json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let played: Played = serde_json::from_str(&text)
            .with_context(|| format!("{} is damaged", path.display()))?;
        for (total, n) in outcomes.iter_mut().zip(played.outcomes) {
            *total += n;
        }
        cpu += played.cpu_seconds;
    }
    data_file::save(&data_file::path(run, generation), &positions)?;
    let mut rows = finished(run)?;
    let before = rows.last().map_or(0.0, |r| r.cpu_seconds);
    let mut row = prepared
        .decision
        .row(generation, config, positions.len(), outcomes);
    row.cpu_seconds = before + cpu;
    rows.push(row);
    record(run, &rows)?;
    clear(run, generation)?;
    crate::say!(
        "generation {generation}: {} positions from {count} shards, incumbent {}",
        positions.len(),
        prepared.decision.incumbent
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_game_once_in_order() {
        let ranges: Vec<_> = (1..=3)
            .map(|index| shard_games(Shard { index, count: 3 }, 2000))
            .collect();
        assert_eq!(ranges, [0..666, 666..1333, 1333..2000]);
        assert_eq!(shard_games(Shard { index: 1, count: 1 }, 7), 0..7);
        assert_eq!(shard_games(Shard { index: 2, count: 4 }, 2), 0..1);
    }
}
