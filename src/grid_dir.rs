//! A resumable grid directory (`burnmate study endgame`, `burnmate matrix`): the
//! grid's plan stored as TOML, one JSON line per finished run in `results.jsonl`.
//!
//! A rerun with the same plan skips the runs found there; a line cut short by a
//! kill is dropped (and its run repeated); a run recorded twice counts once.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::files::{DirLock, is_empty_dir, lock_dir, write_atomic};

/// Name of the results file of a grid directory.
pub const RESULTS_FILE: &str = "results.jsonl";

/// One finished run of a grid, identified by its key.
pub trait GridRecord: Serialize + DeserializeOwned {
    /// What identifies the run within its grid.
    type Key: PartialEq;
    /// The run's key.
    fn key(&self) -> Self::Key;
}

/// An open grid directory: locked, its plan checked, finished runs read.
pub struct GridDir<R> {
    _lock: DirLock,
    sink: Mutex<fs::File>,
    /// Runs finished before this process opened the directory.
    pub done: Vec<R>,
}

impl<R: GridRecord> GridDir<R> {
    /// Creates `dir` with `plan` stored as `plan_file`, or checks that an existing
    /// directory holds the same plan; a directory holding anything else is refused.
    pub fn open<P>(dir: &Path, plan_file: &str, plan: &P) -> Result<GridDir<R>>
    where
        P: Serialize + DeserializeOwned + PartialEq,
    {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let lock = lock_dir(dir)?;
        let plan_path = dir.join(plan_file);
        let results_path = dir.join(RESULTS_FILE);
        let done = if plan_path.exists() {
            let text = fs::read_to_string(&plan_path)
                .with_context(|| format!("cannot read {}", plan_path.display()))?;
            let stored: P = toml::from_str(&text)
                .with_context(|| format!("{} is not a grid plan", plan_path.display()))?;
            if stored != *plan {
                bail!(
                    "{} holds a grid with other settings; resume it with the same options or choose another --out",
                    dir.display()
                );
            }
            read_results(&results_path)?
        } else {
            if !is_empty_dir(dir) {
                bail!(
                    "{} exists and is not a grid directory; choose another --out",
                    dir.display()
                );
            }
            let text = toml::to_string(plan).context("cannot write the grid plan")?;
            write_atomic(&plan_path, text.as_bytes())?;
            Vec::new()
        };
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&results_path)
            .with_context(|| format!("cannot open {}", results_path.display()))?;
        Ok(GridDir {
            _lock: lock,
            sink: Mutex::new(file),
            done,
        })
    }

    /// Whether a run with `key` finished before.
    pub fn is_done(&self, key: &R::Key) -> bool {
        self.done.iter().any(|r| r.key() == *key)
    }

    /// Appends one finished run (safe from several worker threads).
    pub fn record(&self, result: &R) -> Result<()> {
        let line = serde_json::to_string(result)?;
        let mut file = self.sink.lock().expect("no worker panicked");
        writeln!(file, "{line}").context("cannot append to results.jsonl")?;
        file.flush().context("cannot flush results.jsonl")
    }
}

/// Reads a results file, dropping a last line cut short by a kill and any run
/// recorded twice (the file is rewritten without them, so later appends start on
/// a fresh line).
pub fn read_results<R: GridRecord>(path: &Path) -> Result<Vec<R>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut results: Vec<R> = Vec::new();
    let mut kept = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        match serde_json::from_str::<R>(line) {
            Ok(r) if results.iter().any(|done| done.key() == r.key()) => {}
            Ok(r) => {
                results.push(r);
                kept.push_str(line);
                kept.push('\n');
            }
            Err(_) if i + 1 == lines.len() => {}
            Err(e) => bail!("{} line {}: {e}", path.display(), i + 1),
        }
    }
    if kept.len() != text.len() {
        write_atomic(path, kept.as_bytes())?;
    }
    Ok(results)
}
