//! A resumable grid directory (`burnmate study endgame`, `burnmate matrix`): the
//! grid's plan stored as TOML, one JSON line per finished run in `results.jsonl`.
//!
//! A rerun with the same plan skips the runs found there; a line cut short by a
//! kill is dropped (and its run repeated); a run recorded twice counts once. A grid
//! can be split into shards (`--shard i/N`: every N-th run, or group of runs that
//! visit the same positions, from the i-th, in plan order), each in its own directory (its `shard.toml` says which), and the shard
//! directories merged into one (`burnmate merge`); reports read the runs in plan
//! order, so a merged grid reports exactly what one unsharded run does.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::run::files::{DirLock, is_empty_dir, lock_dir, write_atomic};

/// Name of the results file of a grid directory.
pub const RESULTS_FILE: &str = "results.jsonl";
/// Name of the file that says which shard a directory holds.
pub const SHARD_FILE: &str = "shard.toml";

/// One of N parts of a grid: the runs (or groups of runs) whose index in the plan is
/// `index - 1` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// Which part, 1..=count.
    pub index: usize,
    /// Parts in all.
    pub count: usize,
}

impl Shard {
    /// Parses `i/N` (1 <= i <= N).
    pub fn parse(text: &str) -> Result<Shard> {
        let parsed = text
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if (1..=count).contains(&index) => Ok(Shard { index, count }),
            _ => bail!("--shard must be i/N with 1 <= i <= N, e.g. 2/3, not '{text}'"),
        }
    }

    /// Whether the run (or group of runs) at `plan_index` belongs to this shard.
    pub fn takes(&self, plan_index: usize) -> bool {
        plan_index % self.count == self.index - 1
    }
}

/// One finished run of a grid, identified by its key.
pub trait GridRecord: Serialize + DeserializeOwned {
    /// What identifies the run within its grid.
    type Key: PartialEq + std::fmt::Debug;
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
    /// Creates `dir` with `plan` stored as `plan_file` (and `shard`), or checks
    /// that an existing directory holds the same plan and shard; a directory holding
    /// anything else is refused.
    pub fn open<P>(
        dir: &Path,
        plan_file: &str,
        plan: &P,
        shard: Option<Shard>,
    ) -> Result<GridDir<R>>
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
            let stored_shard = read_shard(dir)?;
            if stored_shard != shard {
                let name = |s: Option<Shard>| {
                    s.map_or("the whole grid".to_string(), |s| {
                        format!("shard {}/{}", s.index, s.count)
                    })
                };
                bail!(
                    "{} holds {}, not {}; resume it with the same --shard or choose another --out",
                    dir.display(),
                    name(stored_shard),
                    name(shard)
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
            if let Some(shard) = shard {
                let text = toml::to_string(&shard).context("cannot write the shard")?;
                write_atomic(&dir.join(SHARD_FILE), text.as_bytes())?;
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

    /// The runs of `cells` (the plan's, in order) that belong to `shard` and are not
    /// done yet, after saying how many of the shard's runs are done; `label` names
    /// the grid in that line. Shards take every N-th group of `group` consecutive
    /// runs (runs that visit the same positions stay together: 1 for none).
    pub fn pending(
        &self,
        label: &str,
        cells: Vec<R::Key>,
        shard: Option<Shard>,
        group: usize,
    ) -> Vec<R::Key> {
        let mine: Vec<R::Key> = cells
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.is_none_or(|s| s.takes(*i / group.max(1))))
            .map(|(_, c)| c)
            .collect();
        let total = mine.len();
        let pending: Vec<R::Key> = mine.into_iter().filter(|c| !self.is_done(c)).collect();
        say!(
            "{label:<15} {total} runs: {} done, {} to run",
            total - pending.len(),
            pending.len()
        );
        pending
    }

    /// Runs `pending` on `jobs` threads, recording each result as it finishes.
    pub fn run_all(
        &self,
        label: &str,
        pending: &[R::Key],
        jobs: usize,
        run: impl Fn(&R::Key) -> Result<R> + Sync,
    ) -> Result<()>
    where
        R: Send + Sync,
        R::Key: Sync,
    {
        use rayon::prelude::*;
        let bar = crate::run::progress::episode_bar(pending.len() as u64, label);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .context("cannot start the worker threads")?;
        let started = std::time::Instant::now();
        pool.install(|| {
            pending.par_iter().try_for_each(|key| -> Result<()> {
                self.record(&run(key)?)?;
                crate::run::progress::Progress::advance(&bar, 1);
                Ok(())
            })
        })?;
        bar.finish_and_clear();
        if !pending.is_empty() {
            say!(
                "ran             {} runs in {:.1} s on {jobs} threads",
                pending.len(),
                started.elapsed().as_secs_f64()
            );
        }
        Ok(())
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

/// The shard a grid directory holds (`None`: the whole grid).
fn read_shard(dir: &Path) -> Result<Option<Shard>> {
    let path = dir.join(SHARD_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some(toml::from_str(&text).with_context(|| {
        format!("{} is not a shard file", path.display())
    })?))
}

/// `results` in the order of `keys` (the plan's runs); a result outside the plan
/// (a line of another grid, or an edited file) is refused with one line, so it
/// never counts into a table of this plan.
pub fn in_plan_order<R: GridRecord>(keys: &[R::Key], mut results: Vec<R>) -> Result<Vec<R>> {
    if let Some(stranger) = results.iter().find(|r| !keys.contains(&r.key())) {
        bail!(
            "{RESULTS_FILE} holds a run outside this plan ({:?}); remove its line or use another directory",
            stranger.key()
        );
    }
    results.sort_by_key(|r| keys.iter().position(|k| *k == r.key()));
    Ok(results)
}

/// Merges shard directories (all holding `plan_file` with one plan) into `out`, a
/// new directory holding the whole grid: returns the plan and every run, in plan
/// order, already recorded in `out`. `carry` brings a run's own files from its shard
/// into `out` before its line is recorded, so a killed merge records only runs whose
/// files are in place (a grid rerun on `out` runs the others).
pub fn merge<P, R>(
    out: &Path,
    plan_file: &str,
    dirs: &[&Path],
    partial: bool,
    keys: impl Fn(&P) -> Vec<R::Key>,
    carry: impl Fn(&R) -> Result<()>,
) -> Result<(P, Vec<R>)>
where
    P: Serialize + DeserializeOwned + PartialEq,
    R: GridRecord,
{
    let mut plan: Option<P> = None;
    let mut results: Vec<R> = Vec::new();
    for dir in dirs {
        let path = dir.join(plan_file);
        let text = fs::read_to_string(&path).with_context(|| {
            format!(
                "{} holds no {plan_file}: not a grid directory",
                dir.display()
            )
        })?;
        let this: P = toml::from_str(&text)
            .with_context(|| format!("{} is not a grid plan", path.display()))?;
        match &plan {
            Some(p) if *p != this => bail!(
                "{} holds a grid with other settings than {}; only shards of one grid merge",
                dir.display(),
                dirs[0].display()
            ),
            Some(_) => {}
            None => plan = Some(this),
        }
        for r in read_results::<R>(&dir.join(RESULTS_FILE))? {
            if !results.iter().any(|done| done.key() == r.key()) {
                results.push(r);
            }
        }
    }
    let plan = plan.context("no directory to merge")?;
    let planned = keys(&plan).len();
    let results = in_plan_order(&keys(&plan), results)?;
    if results.len() < planned && !partial {
        bail!(
            "the directories hold {} of the grid's {planned} runs (a shard missing or given twice); give every shard, or --partial to merge what is there",
            results.len()
        );
    }
    if out.exists() && !is_empty_dir(out) {
        bail!(
            "{} exists and is not empty; merge into a new directory",
            out.display()
        );
    }
    let grid = GridDir::<R>::open(out, plan_file, &plan, None)?;
    for r in &results {
        carry(r)?;
        grid.record(r)?;
        crate::run::fault::crash_point("merge-recorded");
    }
    Ok((plan, results))
}
