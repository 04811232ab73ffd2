//! The one training loop every study runs: train a block of units (episodes,
//! matches or games), let the learner end the block (an evaluation), check that its
//! numbers stayed finite, save a resume point when one is due, and mark the end of
//! training for the kill tests. What a unit is, what a study records per unit and
//! what it stores in a resume point is the [`Trainer`]'s business; the cadence,
//! the clock and the order of those steps are written once, here.

use anyhow::Result;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::time::Instant;

use crate::run::Run;
use crate::run::fault::crash_point;
use crate::run::resume::resume_point_due;

/// A study's learner as [`drive`] runs it.
pub trait Trainer {
    /// The learner's part of a resume point.
    type Resume: Serialize;

    /// Trains units `from..to`, recording one metrics row per unit in `run`.
    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()>;

    /// What ends a block after its training (e.g. an evaluation); nothing by default.
    fn end_block(&mut self, _done: u64, _rng: &mut ChaCha8Rng) -> Result<()> {
        Ok(())
    }

    /// A one-line error naming the setting to lower when the learner's numbers
    /// are no longer finite after `done` units.
    fn check_finite(&self, done: u64) -> Result<()>;

    /// The learner's state for a resume point taken `seconds` into the run.
    fn resume_state(&self, seconds: f64) -> Result<Self::Resume>;
}

/// Where a run stands and how it is cut into blocks.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// Units done before this process (0, or a resume point's count).
    pub done: u64,
    /// Units of the whole run.
    pub total: u64,
    /// Units trained between two checks, at least 1 (1 for episode studies).
    pub block: u64,
    /// A resume point every this many units and after the last
    /// ([`resume_point_due`]); `None` for a run that leaves none.
    pub resume_every: Option<u64>,
    /// Seconds spent before this process.
    pub seconds_before: f64,
}

/// Trains `trainer` from `schedule.done` to `schedule.total` block by block: train,
/// end the block, check, then save a resume point of `format` when one is due.
/// Returns the run's seconds so far (this process's and those before it).
pub fn drive<T: Trainer>(
    trainer: &mut T,
    run: &mut Run,
    format: &str,
    schedule: Schedule,
    rng: &mut ChaCha8Rng,
) -> Result<f64> {
    let started = Instant::now();
    let seconds = || schedule.seconds_before + started.elapsed().as_secs_f64();
    assert!(schedule.block > 0, "a schedule's block must hold a unit");
    let mut done = schedule.done;
    while done < schedule.total {
        let to = (done + schedule.block).min(schedule.total);
        trainer.train(done, to, run, rng)?;
        trainer.end_block(to, rng)?;
        trainer.check_finite(to)?;
        done = to;
        if let Some(every) = schedule.resume_every
            && resume_point_due(done, every, schedule.total)
        {
            let now = seconds();
            let state = trainer.resume_state(now)?;
            run.save_resume_point(format, done, now, rng, state)?;
        }
    }
    crash_point("trained");
    Ok(seconds())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::metrics::EpisodeRow;
    use crate::run::resume::{RESUME_FILE, ResumePoint};
    use crate::temp_dir::TempDir;
    use rand::SeedableRng;
    use std::path::Path;

    const FORMAT: &str = "burnmate-driver-test";

    /// Counts its units; its numbers stop being finite once `diverges_after` units are done.
    struct Counter {
        blocks: Vec<(u64, u64)>,
        evaluated: Vec<u64>,
        done: u64,
        diverges_after: u64,
    }

    impl Trainer for Counter {
        type Resume = u64;

        fn train(&mut self, from: u64, to: u64, run: &mut Run, _: &mut ChaCha8Rng) -> Result<()> {
            self.blocks.push((from, to));
            for episode in from..to {
                let row = EpisodeRow {
                    episode,
                    reward: 1.0,
                    moves: 1,
                    outcome: "counted",
                    epsilon: 0.0,
                    won: false,
                };
                run.metrics.record(row, &[])?;
            }
            self.done = to;
            Ok(())
        }

        fn end_block(&mut self, done: u64, _: &mut ChaCha8Rng) -> Result<()> {
            self.evaluated.push(done);
            Ok(())
        }

        fn check_finite(&self, done: u64) -> Result<()> {
            anyhow::ensure!(done <= self.diverges_after, "diverged by unit {done}");
            Ok(())
        }

        fn resume_state(&self, _seconds: f64) -> Result<u64> {
            Ok(self.done)
        }
    }

    fn counter(diverges_after: u64) -> Counter {
        Counter {
            blocks: vec![],
            evaluated: vec![],
            done: 0,
            diverges_after,
        }
    }

    fn saved_units(dir: &Path) -> u64 {
        let point: ResumePoint<u64> =
            crate::run::checkpoint::load(&dir.join(RESUME_FILE), FORMAT).expect("a resume point");
        assert_eq!(point.episodes, point.trainer);
        point.episodes
    }

    fn run_in(dir: &Path) -> Run {
        Run::start(dir, "study = \"counter\"\n", &[]).expect("a run")
    }

    /// Drives a fresh [`Counter`] through `schedule` in a new run directory.
    fn drive_counter(diverges_after: u64, schedule: Schedule) -> (TempDir, Counter, Result<f64>) {
        let dir = TempDir::new();
        let mut run = run_in(dir.path());
        let mut trainer = counter(diverges_after);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let driven = drive(&mut trainer, &mut run, FORMAT, schedule, &mut rng);
        (dir, trainer, driven)
    }

    fn schedule(done: u64, total: u64, block: u64, resume_every: Option<u64>) -> Schedule {
        Schedule {
            done,
            total,
            block,
            resume_every,
            seconds_before: 0.0,
        }
    }

    #[test]
    fn blocks_run_to_the_total_and_the_last_resume_point_is_the_end() {
        let (dir, trainer, driven) = drive_counter(u64::MAX, schedule(0, 10, 4, Some(4)));
        driven.unwrap();
        assert_eq!(trainer.blocks, [(0, 4), (4, 8), (8, 10)]);
        assert_eq!(trainer.evaluated, [4, 8, 10]);
        assert_eq!(saved_units(dir.path()), 10);
    }

    #[test]
    fn a_block_that_diverges_keeps_the_resume_point_before_it() {
        let (dir, trainer, driven) = drive_counter(5, schedule(0, 10, 1, Some(4)));
        assert_eq!(driven.unwrap_err().to_string(), "diverged by unit 6");
        assert_eq!(trainer.blocks.last(), Some(&(5, 6)));
        assert_eq!(saved_units(dir.path()), 4);
    }

    #[test]
    fn a_run_without_resume_points_saves_none() {
        let (dir, trainer, driven) = drive_counter(u64::MAX, schedule(3, 7, 7, None));
        driven.unwrap();
        assert_eq!(trainer.blocks, [(3, 7)]);
        assert!(!dir.path().join(RESUME_FILE).exists());
    }
}
