//! Checkpoint files, one format for every study: JSON `{format, config_digest,
//! checksum, payload}`. The config digest is the FNV-1a of the run's `config.toml`
//! beside the checkpoint; the checksum covers the format tag, the digest and the
//! payload's whole JSON, header fields (hyper-parameters, activation, config)
//! included. A corrupt, truncated, edited or foreign file, or a checkpoint whose
//! run config was edited since, is a one-line error, never a silently wrong model.

use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::run::files::write_atomic;

pub use burnmate_oracle::checksum::{FNV1A_START, fnv1a, fnv1a_extend};

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope<T> {
    format: String,
    config_digest: u64,
    checksum: u64,
    payload: T,
}

#[derive(Deserialize)]
struct FormatOnly {
    format: String,
}

/// The checksum of `payload` under `format` and `config_digest`.
fn checksum<T: Serialize>(format: &str, config_digest: u64, payload: &T) -> Result<u64> {
    let mut bytes = format.as_bytes().to_vec();
    bytes.extend_from_slice(&config_digest.to_le_bytes());
    bytes.extend(serde_json::to_vec(payload).context("cannot serialise the checkpoint")?);
    Ok(fnv1a(&bytes))
}

/// The digest of the `config.toml` beside `path` (0 when there is none).
fn config_digest(path: &Path) -> u64 {
    let config = path.with_file_name("config.toml");
    std::fs::read(config).map_or(0, |bytes| fnv1a(&bytes))
}

/// Writes `payload` as a checkpoint of `format`, atomically, bound to the run's
/// `config.toml` beside it.
pub fn save<T: Serialize>(path: &Path, format: &str, payload: &T) -> Result<()> {
    save_bound(path, format, payload, config_digest(path))
}

/// Writes `payload` as a checkpoint of `format` bound to the config digest `digest`.
fn save_bound<T: Serialize>(path: &Path, format: &str, payload: &T, digest: u64) -> Result<()> {
    let envelope = Envelope {
        format: format.to_string(),
        config_digest: digest,
        checksum: checksum(format, digest, payload)?,
        payload,
    };
    let json = serde_json::to_vec(&envelope).context("cannot serialise the checkpoint")?;
    write_atomic(path, &json)
}

/// The error of a checkpoint file that is not the JSON of one.
fn malformed(path: &Path, e: serde_json::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "checkpoint {} is malformed or truncated ({e})",
        path.display()
    )
}

/// The format tag of the checkpoint at `path`; an unreadable or malformed file is a
/// one-line error.
pub fn format_of(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read checkpoint {}", path.display()))?;
    let found: FormatOnly = serde_json::from_slice(&bytes).map_err(|e| malformed(path, e))?;
    Ok(found.format)
}

/// Binds the checkpoint of `format` at `path` to the config `new_config` (the bytes
/// its run's `config.toml` is about to hold), after checking it intact and bound to
/// `old_config` or already to `new_config`: how a run's config is edited without
/// orphaning its checkpoints. Rebinding twice is harmless, so a command killed
/// between its files can be run again.
pub fn rebind<T: Serialize + DeserializeOwned>(
    path: &Path,
    format: &str,
    old_config: &[u8],
    new_config: &[u8],
) -> Result<()> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read checkpoint {}", path.display()))?;
    let envelope: Envelope<T> = serde_json::from_slice(&bytes).map_err(|e| malformed(path, e))?;
    let (old, new) = (fnv1a(old_config), fnv1a(new_config));
    if envelope.format != format
        || envelope.checksum != checksum(format, envelope.config_digest, &envelope.payload)?
        || ![old, new].contains(&envelope.config_digest)
    {
        bail!(
            "checkpoint {} is corrupt, foreign or bound to another config; not rebinding it",
            path.display()
        );
    }
    save_bound(path, format, &envelope.payload, new)
}

/// The FNV-1a of a checkpoint's payload alone: what it holds, whatever config it is
/// bound to (a [`rebind`] leaves it unchanged).
pub fn payload_digest(path: &Path) -> Result<u64> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read checkpoint {}", path.display()))?;
    let envelope: Envelope<serde_json::Value> =
        serde_json::from_slice(&bytes).map_err(|e| malformed(path, e))?;
    let payload =
        serde_json::to_vec(&envelope.payload).context("cannot serialise the checkpoint")?;
    Ok(fnv1a(&payload))
}

/// Reads a checkpoint of `format`; a missing, truncated, malformed, foreign or
/// edited file is a one-line error. (Serialising a payload is deterministic and
/// floats round-trip exactly, so the payload read back re-serialises to the bytes
/// the checksum was taken over unless something changed.)
pub fn load<T: Serialize + DeserializeOwned>(path: &Path, format: &str) -> Result<T> {
    let bytes = match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = path.parent().unwrap_or(path);
            if dir.join(crate::run::resume::RESUME_FILE).exists() {
                bail!(
                    "{} has no checkpoint yet: the run is still training or was killed; `burnmate resume {}` finishes it",
                    dir.display(),
                    dir.display()
                );
            }
            bail!(
                "{} has no checkpoint: the run did not finish (killed or failed before its first resume point); train it again",
                dir.display()
            )
        }
        read => read.with_context(|| format!("cannot read checkpoint {}", path.display()))?,
    };
    let malformed = |e| malformed(path, e);
    let found: FormatOnly = serde_json::from_slice(&bytes).map_err(malformed)?;
    if found.format != format {
        bail!(
            "checkpoint {} has format '{}', expected '{format}' (another study, or an older burnmate: retrain)",
            path.display(),
            found.format
        );
    }
    let envelope: Envelope<T> = serde_json::from_slice(&bytes).map_err(malformed)?;
    let computed = checksum(format, envelope.config_digest, &envelope.payload)?;
    if envelope.checksum != computed {
        bail!(
            "checkpoint {} is corrupt: checksum {:016x} stored, {computed:016x} computed",
            path.display(),
            envelope.checksum
        );
    }
    if config_digest(path) != envelope.config_digest {
        bail!(
            "{} changed since its checkpoint was written; restore it or train again",
            path.with_file_name("config.toml").display()
        );
    }
    Ok(envelope.payload)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::temp_dir::TempDir;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Model {
        activation: String,
        weights: Vec<f32>,
    }

    fn model() -> Model {
        Model {
            activation: "relu".into(),
            weights: vec![0.1, -2.5e-7, 3.0],
        }
    }

    #[test]
    fn a_checkpoint_round_trips_and_any_edit_is_caught() {
        let tmp = TempDir::new();
        let path = tmp.path().join("checkpoint.json");
        save(&path, "test-v1", &model()).unwrap();
        assert_eq!(load::<Model>(&path, "test-v1").unwrap(), model());
        let text = std::fs::read_to_string(&path).unwrap();
        for (from, to) in [("relu", "tanh"), ("3.0", "3.5")] {
            std::fs::write(&path, text.replace(from, to)).unwrap();
            let error = load::<Model>(&path, "test-v1").unwrap_err().to_string();
            assert!(error.contains("is corrupt"), "{from} -> {to}: {error}");
        }
        std::fs::write(&path, &text).unwrap();
        let error = load::<Model>(&path, "other-v1").unwrap_err().to_string();
        assert!(
            error.contains("has format 'test-v1', expected 'other-v1'"),
            "{error}"
        );
        std::fs::write(&path, &text[..text.len() / 2]).unwrap();
        let error = load::<Model>(&path, "test-v1").unwrap_err().to_string();
        assert!(error.contains("truncated"), "{error}");
    }

    #[test]
    fn a_checkpoint_is_bound_to_the_run_config_beside_it() {
        let tmp = TempDir::new();
        let path = tmp.path().join("checkpoint.json");
        std::fs::write(tmp.path().join("config.toml"), "lr = 0.1\n").unwrap();
        save(&path, "test-v1", &model()).unwrap();
        assert_eq!(load::<Model>(&path, "test-v1").unwrap(), model());
        std::fs::write(tmp.path().join("config.toml"), "lr = 0.2\n").unwrap();
        let error = load::<Model>(&path, "test-v1").unwrap_err().to_string();
        assert!(
            error.contains("config.toml changed since its checkpoint"),
            "{error}"
        );
    }

    #[test]
    fn rebinding_follows_an_edited_config_and_refuses_a_foreign_one() {
        let tmp = TempDir::new();
        let path = tmp.path().join("checkpoint.json");
        let config = tmp.path().join("config.toml");
        std::fs::write(&config, "generations = 3\n").unwrap();
        save(&path, "test-v1", &model()).unwrap();
        let (old, new) = (b"generations = 3\n", b"generations = 9\n");
        for _ in 0..2 {
            rebind::<Model>(&path, "test-v1", old, new).unwrap();
        }
        std::fs::write(&config, new).unwrap();
        assert_eq!(load::<Model>(&path, "test-v1").unwrap(), model());
        let error = rebind::<Model>(&path, "test-v1", b"lr = 1\n", b"lr = 2\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("bound to another config"), "{error}");
        let error = rebind::<Model>(&path, "other-v1", new, old)
            .unwrap_err()
            .to_string();
        assert!(error.contains("foreign"), "{error}");
    }
}
