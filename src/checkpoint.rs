//! Checkpoint files: JSON with a format tag and a checksum over the parameters, so
//! a corrupt or truncated file is an error, never a silently wrong model.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::files::write_atomic;

/// FNV-1a over a stream of `f32` bit patterns.
pub fn checksum<'a>(values: impl IntoIterator<Item = &'a f32>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for v in values {
        for byte in v.to_bits().to_le_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// Writes a checkpoint atomically.
pub fn save<T: Serialize>(path: &Path, checkpoint: &T) -> Result<()> {
    let json = serde_json::to_vec(checkpoint).context("cannot serialise the checkpoint")?;
    write_atomic(path, &json)
}

/// Reads a checkpoint; a missing, truncated or malformed file is a one-line error.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read checkpoint {}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "checkpoint {} is malformed or truncated ({e})",
            path.display()
        )
    })
}

/// Fails unless `stored` equals `computed`.
pub fn verify(path: &Path, stored: u64, computed: u64) -> Result<()> {
    if stored != computed {
        bail!(
            "checkpoint {} is corrupt: checksum {stored:016x} stored, {computed:016x} computed",
            path.display()
        );
    }
    Ok(())
}
