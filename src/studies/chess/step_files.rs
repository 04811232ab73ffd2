//! Where a generation's steps (`shards.rs`) keep their files in a run:
//! the decision of `prepare` and each shard's positions and outcomes, found and
//! removed here by the steps and by the unsharded loop alike.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::run::grid_dir::Shard;

/// The decision `prepare` wrote for `generation`.
pub fn decision_path(run: &Path, generation: u32) -> PathBuf {
    run.join(format!("gen-{generation:03}.decision.json"))
}

/// The positions (`bin`) or the outcomes (`json`) of shard `shard` of `generation`.
pub fn shard_path(run: &Path, generation: u32, shard: Shard, ext: &str) -> PathBuf {
    run.join("data").join(format!(
        "gen-{generation:03}.shard-{}-of-{}.{ext}",
        shard.index, shard.count
    ))
}

/// The shards of `generation` found in `run`'s data directory.
pub fn shards_found(run: &Path, generation: u32) -> Result<Vec<Shard>> {
    let prefix = format!("gen-{generation:03}.shard-");
    let dir = run.join("data");
    if !dir.exists() {
        return Ok(Vec::new());
    }
    let entries =
        std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
    let mut shards = Vec::new();
    for entry in entries {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(rest) = name
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".json"))
        else {
            continue;
        };
        let shard = rest
            .split_once("-of-")
            .map(|(i, n)| format!("{i}/{n}"))
            .and_then(|text| Shard::parse(&text).ok())
            .with_context(|| format!("{} is not a shard's file", dir.join(&name).display()))?;
        shards.push(shard);
    }
    shards.sort_by_key(|s| s.index);
    Ok(shards)
}

/// Removes generation `generation`'s step files (its decision and shards).
pub fn clear(run: &Path, generation: u32) -> Result<()> {
    let mut files = vec![decision_path(run, generation)];
    for shard in shards_found(run, generation)? {
        files.push(shard_path(run, generation, shard, "bin"));
        files.push(shard_path(run, generation, shard, "json"));
    }
    for file in files.into_iter().filter(|f| f.exists()) {
        std::fs::remove_file(&file).with_context(|| format!("cannot remove {}", file.display()))?;
    }
    Ok(())
}
