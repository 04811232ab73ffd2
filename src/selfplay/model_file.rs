//! The selfplay checkpoint: both sides' fourteen selectors, the games played and the
//! run's random-number position, so `--resume` continues exactly where a run stopped.

use std::path::Path;

use anyhow::{Result, bail};
use burnmate_models::SelectorWeights;
use serde::{Deserialize, Serialize};

use crate::checkpoint;

/// File name of the checkpoint inside a run directory.
pub const CHECKPOINT: &str = "checkpoint.json";
const FORMAT: &str = "burnmate-selfplay-v1";

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

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckpointFile {
    format: String,
    checksum: u64,
    state: SelfplayState,
}

fn state_checksum(state: &SelfplayState) -> u64 {
    let values = state.white.iter().chain(&state.black).flat_map(|w| {
        w.convs
            .iter()
            .flat_map(|c| c.weight.iter().chain(&c.bias))
            .chain(&w.dense.weight)
            .chain(&w.dense.bias)
            .chain(&w.output.weight)
            .chain(&w.output.bias)
    });
    checkpoint::checksum(values) ^ state.games_played
}

/// Writes the checkpoint into `dir`.
pub fn save(dir: &Path, state: SelfplayState) -> Result<()> {
    let file = CheckpointFile {
        format: FORMAT.into(),
        checksum: state_checksum(&state),
        state,
    };
    checkpoint::save(&dir.join(CHECKPOINT), &file)
}

/// Reads and verifies the checkpoint of the run in `dir`.
pub fn load(dir: &Path) -> Result<SelfplayState> {
    let path = dir.join(CHECKPOINT);
    let file: CheckpointFile = checkpoint::load(&path)?;
    if file.format != FORMAT {
        bail!("{} is not a selfplay checkpoint", path.display());
    }
    checkpoint::verify(&path, file.checksum, state_checksum(&file.state))?;
    Ok(file.state)
}
