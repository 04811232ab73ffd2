//! The run plumbing every study shares: the run directory, overrides,
//! training driver, resume points, checkpoints, crash-safe files, metrics and the
//! tablebase cache. This file holds the one run pipeline: [`Run`], the directory
//! and files every run writes.

pub mod checkpoint;
pub mod cpu;
pub mod driver;
pub mod engine_cache;
pub mod fault;
pub mod files;
pub mod grid_dir;
pub mod metrics;
pub mod overrides;
pub mod progress;
pub mod resume;
pub mod tablebases;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::output::plot::{Series, line_chart, thin};
use crate::run::fault::crash_point;
use crate::run::files::{DirLock, StreamedFile, claim_new_run, lock_dir, write_atomic};
use crate::run::metrics::MetricsRecorder;
use crate::run::resume::{RESUME_FILE, ResumePoint};

/// One run's directory, locked while the run writes, and the files every run
/// writes, in order: `config.toml` first
/// (the resolved config, so the run can be repeated), `metrics.csv` one row per
/// episode, then `summary.json` and the EMA training curves. Every file is written
/// under a temporary name and renamed, so a killed run never leaves a half-written
/// file under a real name.
pub struct Run {
    dir: PathBuf,
    /// The per-episode metrics (`metrics.csv`).
    pub metrics: MetricsRecorder,
    /// Held while the run writes: a second process gets a one-line error.
    _lock: DirLock,
}

impl Run {
    /// Starts a run in `dir` (existing and empty) whose resolved config is
    /// `config_toml`, with the study's extra metric columns.
    pub fn start(dir: &Path, config_toml: &str, extra_columns: &[&str]) -> Result<Run> {
        let lock = claim_new_run(dir, config_toml)?;
        Ok(Run {
            dir: dir.to_path_buf(),
            metrics: MetricsRecorder::create(&dir.join("metrics.csv"), extra_columns)?,
            _lock: lock,
        })
    }

    /// Reopens the killed run in `dir` at its resume point (of `format`): the
    /// metrics rows after it are dropped; returns the run and the point.
    pub fn resume<S: Serialize + DeserializeOwned>(
        dir: &Path,
        format: &str,
        extra_columns: &[&str],
    ) -> Result<(Run, ResumePoint<S>)> {
        let lock = lock_dir(dir)?;
        let path = dir.join(RESUME_FILE);
        if !path.exists() {
            if dir.join("summary.json").exists() {
                bail!("{} finished; there is nothing to resume", dir.display());
            }
            bail!(
                "{} has no resume point: it stopped before its first checkpoint (see checkpoint_every in its config.toml); train it again",
                dir.display()
            );
        }
        let point: ResumePoint<S> = crate::run::checkpoint::load(&path, format)?;
        let metrics = MetricsRecorder::resume(
            &dir.join("metrics.csv"),
            extra_columns,
            point.episodes,
            point.wins,
            point.metrics_digest,
        )?;
        Ok((
            Run {
                dir: dir.to_path_buf(),
                metrics,
                _lock: lock,
            },
            point,
        ))
    }

    /// Flushes the metrics, then writes the resume point (of `format`) after
    /// `episodes`: the wins so far, `wall_seconds`, `rng`'s position and `trainer`.
    /// A study saves one every `checkpoint_every` episodes and one after the last
    /// ([`crate::run::resume::resume_point_due`]), before it writes its outputs.
    pub fn save_resume_point<S: Serialize>(
        &mut self,
        format: &str,
        episodes: u64,
        wall_seconds: f64,
        rng: &rand_chacha::ChaCha8Rng,
        trainer: S,
    ) -> Result<()> {
        self.metrics.flush()?;
        let point = ResumePoint {
            episodes,
            wins: self.metrics.wins(),
            metrics_digest: self.metrics.digest(),
            wall_seconds,
            rng: crate::run::resume::RngState::of(rng),
            trainer,
        };
        crate::run::checkpoint::save(&self.dir.join(RESUME_FILE), format, &point)
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Ends the run, in an order a kill can interrupt anywhere: the study has written
    /// its final resume point (`resume.json` at the last episode) and its outputs
    /// (checkpoint, evaluation); this renames `metrics.csv` and the study's other
    /// `streams` into place, writes `ema_reward.svg` and `ema_moves.svg`, then
    /// `summary.json`, and removes `resume.json` last. Until then `burnmate resume`
    /// repeats the finish from the final resume point (no training) and writes the
    /// same files; a run is finished when it has `summary.json` and no `resume.json`.
    pub fn finish(
        mut self,
        summary: &impl Serialize,
        streams: impl IntoIterator<Item = StreamedFile>,
    ) -> Result<()> {
        crash_point("outputs-written");
        self.metrics.finish()?;
        for stream in streams {
            stream.finish()?;
        }
        crash_point("streams-renamed");
        for (file, title, label, curve) in [
            (
                "ema_reward.svg",
                "EMA reward per episode",
                "reward (EMA, alpha 2/2001)",
                &self.metrics.reward_curve,
            ),
            (
                "ema_moves.svg",
                "EMA moves per episode",
                "moves (EMA, alpha 2/2001)",
                &self.metrics.moves_curve,
            ),
        ] {
            let series = [Series {
                name: label.into(),
                points: thin(curve, 2000),
            }];
            write_atomic(
                &self.dir.join(file),
                line_chart(title, "episode", label, &series).as_bytes(),
            )?;
        }
        crash_point("plots-written");
        write_atomic(
            &self.dir.join("summary.json"),
            serde_json::to_string_pretty(summary)?.as_bytes(),
        )?;
        crash_point("summary-written");
        match std::fs::remove_file(self.dir.join(RESUME_FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).context("cannot remove the finished run's resume point")
            }
            _ => Ok(()),
        }
    }
}
