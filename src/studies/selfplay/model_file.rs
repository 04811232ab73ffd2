//! The selfplay checkpoint: both sides' fourteen selectors, the games played and the
//! run's random-number position, so `--resume` continues exactly where a run stopped.

use std::path::Path;

use anyhow::{Result, anyhow, bail};
use burnmate_agents::selfplay::net::SelectorSet;
use burnmate_agents::selfplay::trainer::SelfPlay;
use burnmate_models::SelectorWeights;
use serde::{Deserialize, Serialize};

use crate::run::checkpoint;
use crate::studies::experiment::{Experiment, load_config};
use crate::studies::selfplay::config::SelfplayConfig;

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

/// Both sides of `state` on the config's backend, ready to train or play.
pub fn sides(config: &SelfplayConfig, state: &SelfplayState) -> Result<SelfPlay> {
    let device = config.backend.device()?.autodiff();
    let side = |weights: &[SelectorWeights]| {
        SelectorSet::new(config.net(), device.clone(), weights)
            .map_err(|e| anyhow!("checkpoint does not fit the config: {e}"))
    };
    Ok(SelfPlay::new(
        config.play(),
        side(&state.white)?,
        side(&state.black)?,
    )?)
}

/// A finished selfplay run: its config and both frozen sides.
pub fn load_run(run: &Path) -> Result<(SelfplayConfig, SelfPlay)> {
    let config = match load_config(&run.join("config.toml"))? {
        Experiment::Selfplay(c) => c,
        _ => bail!("{} is not a selfplay run", run.display()),
    };
    config.validate()?;
    let play = sides(&config, &load(run)?)?;
    Ok((config, play))
}
