//! Resuming a killed run in place. Every `checkpoint_every` episodes a run flushes
//! `metrics.csv.partial` and then writes `resume.json` (atomically, checksummed and
//! bound to the run's config like every checkpoint): the episodes done, the random
//! generator's exact position and the trainer's whole state, optimiser included.
//! `burnmate resume RUN` drops the metrics rows written after that point and
//! continues, so a resumed run ends with the files of an uninterrupted one.

use anyhow::{Result, anyhow};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// File name of the resume point inside a run directory (removed when the run ends).
pub const RESUME_FILE: &str = "resume.json";

/// Whether a run saves a resume point after `done` of its `total` episodes: every
/// `every` episodes, and after the last one (so that a kill while it writes its
/// outputs resumes without training again).
pub fn resume_point_due(done: u64, every: u64, total: u64) -> bool {
    done.is_multiple_of(every) || done == total
}

/// A ChaCha8 generator's exact position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RngState {
    /// The generator's seed.
    pub seed: [u8; 32],
    /// Its word position (decimal: JSON has no u128).
    pub word_pos: String,
}

impl RngState {
    /// The position of `rng`.
    pub fn of(rng: &ChaCha8Rng) -> RngState {
        RngState {
            seed: rng.get_seed(),
            word_pos: rng.get_word_pos().to_string(),
        }
    }

    /// A generator at this position.
    pub fn restore(&self) -> Result<ChaCha8Rng> {
        let mut rng = ChaCha8Rng::from_seed(self.seed);
        let pos: u128 = self
            .word_pos
            .parse()
            .map_err(|_| anyhow!("resume point: bad generator position '{}'", self.word_pos))?;
        rng.set_word_pos(pos);
        Ok(rng)
    }
}

/// Where a run stood at its last checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResumePoint<S> {
    /// Episodes (games) finished.
    pub episodes: u64,
    /// Of which won (the metrics' tally).
    pub wins: u64,
    /// Training seconds so far.
    pub wall_seconds: f64,
    /// FNV-1a of the first `episodes + 1` lines of `metrics.csv.partial` (header
    /// and rows) when the point was saved: a resumed run refuses rows that changed
    /// since (absent in resume points of older versions: not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics_digest: Option<u64>,
    /// The run's generator.
    pub rng: RngState,
    /// The trainer's state.
    pub trainer: S,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn a_generator_continues_from_its_saved_position() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let _: u64 = rng.next_u64();
        let state = RngState::of(&rng);
        let mut copy = state.restore().unwrap();
        assert_eq!(copy.next_u64(), rng.next_u64());
        assert!(
            RngState {
                word_pos: "x".into(),
                ..state
            }
            .restore()
            .is_err()
        );
    }
}
