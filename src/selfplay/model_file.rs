//! The selfplay checkpoint: both sides' fourteen selectors, the games played and the
//! run's random-number position, so `--resume` continues exactly where a run stopped.

use std::path::Path;

use anyhow::Result;
use burnmate_models::SelectorWeights;
use serde::{Deserialize, Serialize};

use crate::checkpoint;

/// File name of the checkpoint inside a run directory.
pub const CHECKPOINT: &str = "checkpoint.json";
const FORMAT: &str = "burnmate-selfplay-v2";

/// Everything a run needs to continue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfplayState {
    /// Training games played so far.
    pub games_played: u64,
    /// The run's ChaCha8 seed.
    pub rng_seed: [u8; 32],
    /// The generator's word position (as a decimal string: JSON has no u128).
    pub rng_word_pos: String,
    /// White's selectors (piece, pawn .. king).
    pub white: Vec<SelectorWeights>,
    /// Black's selectors.
    pub black: Vec<SelectorWeights>,
}

/// Writes the checkpoint into `dir`.
pub fn save(dir: &Path, state: SelfplayState) -> Result<()> {
    checkpoint::save(&dir.join(CHECKPOINT), FORMAT, &state)
}

/// Reads and verifies the checkpoint of the run in `dir`.
pub fn load(dir: &Path) -> Result<SelfplayState> {
    checkpoint::load(&dir.join(CHECKPOINT), FORMAT)
}
