//! The settings a caller may override on top of a config file's run settings (the
//! command line's `--out`, `--backend`, `--seed`, ...): a leaf the study configs and the
//! run pipeline both read.

use std::path::PathBuf;

use crate::device::backend::BackendChoice;

/// Overrides of a config file's run settings (`train` and `grid`'s options);
/// `None` keeps the config's value.
#[derive(Clone, Debug, Default, PartialEq, clap::Args)]
pub struct Overrides {
    /// Output directory (default: runs/<config-stem>-<UTC time>); must not exist yet
    /// (`grid`: an existing grid directory of the same options resumes).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Burn backend to train on.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Seed of the run's random number generator.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of training episodes (games for selfplay and search runs).
    #[arg(long)]
    pub episodes: Option<u64>,
    /// selfplay and knight DQN: environments stepped together, batched through the networks.
    #[arg(long)]
    pub envs: Option<usize>,
    /// selfplay: continue from this run's checkpoint (into a new run directory).
    #[arg(long)]
    pub continue_from: Option<PathBuf>,
}
