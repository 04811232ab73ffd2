//! A generation's net (`gen-NNN.net.json`): its two layers in the checksummed
//! checkpoint format, bound to the run's `config.toml`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use burnmate_encode::nnue::KingBuckets;
use burnmate_engine::NnueForm;
use burnmate_models::{Activation, LayerWeights};
use serde::{Deserialize, Serialize};

/// The checkpoint format tag.
pub const FORMAT: &str = "burnmate-chess-nnue-v1";

/// What a net file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NetFile {
    /// Its generation.
    pub generation: u32,
    /// `[transformer, output]`.
    pub layers: [LayerWeights; 2],
    /// The transformer's activation; left out for CReLU, so files written before
    /// there was a choice load, and keep their checksums, unchanged.
    #[serde(default, skip_serializing_if = "is_crelu")]
    pub activation: Activation,
    /// Where each perspective's king places the inputs; left out when plain, as
    /// `activation` is for CReLU.
    #[serde(default, skip_serializing_if = "is_plain")]
    pub king_buckets: KingBuckets,
}

impl NetFile {
    /// The net's form.
    pub fn form(&self) -> NnueForm {
        NnueForm {
            activation: self.activation,
            king_buckets: self.king_buckets,
        }
    }
}

/// Whether the inputs are plain, as in nets before king buckets.
fn is_plain(king_buckets: &KingBuckets) -> bool {
    *king_buckets == KingBuckets::Plain
}

/// Whether `activation` is CReLU, the one activation of nets before SCReLU.
fn is_crelu(activation: &Activation) -> bool {
    *activation == Activation::Crelu
}

/// Where generation `generation`'s net lives in `run`.
pub fn path(run: &Path, generation: u32) -> PathBuf {
    run.join(format!("gen-{generation:03}.net.json"))
}

/// Saves generation `generation`'s net of `layers` and `form`.
pub fn save(run: &Path, generation: u32, layers: &[LayerWeights; 2], form: NnueForm) -> Result<()> {
    let file = NetFile {
        generation,
        layers: layers.clone(),
        activation: form.activation,
        king_buckets: form.king_buckets,
    };
    crate::run::checkpoint::save(&path(run, generation), FORMAT, &file)
}

/// Loads generation `generation`'s net; a missing one is a one-line error naming it.
pub fn load(run: &Path, generation: u32) -> Result<NetFile> {
    let path = path(run, generation);
    if !path.exists() {
        anyhow::bail!(
            "{} has no net of generation {generation} ({} is missing)",
            run.display(),
            path.display()
        );
    }
    crate::run::checkpoint::load(&path, FORMAT)
}
