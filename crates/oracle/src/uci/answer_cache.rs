//! Engine answers kept across runs: one table per engine and setting, shared by
//! every engine process of a grid, and appended to files so that a later run, or
//! another shard on a shared disk, asks for each distinct position once.
//!
//! Files: `<dir>/<key>.<pid>-<n>.tsv`, one `fen \t best move \t cp|mate \t value`
//! line per answer, appended by one process; opening reads every file of the key
//! (a line cut short by a kill is skipped). Merging shards' caches is copying files.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Analysis, Score};

/// Answers of one engine at one setting.
pub struct AnswerCache {
    answers: Mutex<HashMap<String, Analysis>>,
    /// This process's file (created with its first answer), if the cache is kept.
    file: Option<Mutex<(PathBuf, Option<File>)>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// Lookups so far: answered from the cache, and searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheStats {
    /// Answers found.
    pub hits: u64,
    /// Positions searched.
    pub misses: u64,
    /// Distinct positions held.
    pub positions: usize,
}

impl AnswerCache {
    /// A cache of this process only.
    pub fn in_memory() -> AnswerCache {
        AnswerCache {
            answers: Mutex::new(HashMap::new()),
            file: None,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The cache of `key` in `dir`: every answer its files hold, and a new file of
    /// this process for the answers to come.
    pub fn open(dir: &Path, key: &str) -> std::io::Result<AnswerCache> {
        fs::create_dir_all(dir)?;
        let mut answers = HashMap::new();
        let prefix = format!("{key}.");
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if name.starts_with(&prefix) && name.ends_with(".tsv") {
                let text = fs::read_to_string(&path)?;
                for line in text.split_inclusive('\n').filter(|l| l.ends_with('\n')) {
                    if let Some((fen, analysis)) = parse_line(line.trim_end_matches('\n')) {
                        answers.insert(fen, analysis);
                    }
                }
            }
        }
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{key}.{}-{n}.tsv", std::process::id()));
        Ok(AnswerCache {
            answers: Mutex::new(answers),
            file: Some(Mutex::new((path, None))),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    /// The answer for `fen`, if known (counted as a hit or a miss).
    pub fn get(&self, fen: &str) -> Option<Analysis> {
        let found = self.answers.lock().expect("cache lock").get(fen).cloned();
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Keeps the answer for `fen` (and appends it to this process's file).
    pub fn insert(&self, fen: &str, analysis: &Analysis) -> std::io::Result<()> {
        let line = format_line(fen, analysis);
        if let Some(file) = &self.file {
            let mut guard = file.lock().expect("cache file lock");
            let (path, open) = &mut *guard;
            if open.is_none() {
                *open = Some(OpenOptions::new().create(true).append(true).open(path)?);
            }
            open.as_mut()
                .expect("opened above")
                .write_all(line.as_bytes())?;
        }
        self.answers
            .lock()
            .expect("cache lock")
            .insert(fen.to_string(), analysis.clone());
        Ok(())
    }

    /// Lookups so far and positions held.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            positions: self.answers.lock().expect("cache lock").len(),
        }
    }
}

fn format_line(fen: &str, analysis: &Analysis) -> String {
    let (kind, value) = match analysis.score {
        Score::Centipawns(cp) => ("cp", cp),
        Score::Mate(m) => ("mate", m),
    };
    format!("{fen}\t{}\t{kind}\t{value}\n", analysis.best_move)
}

fn parse_line(line: &str) -> Option<(String, Analysis)> {
    let mut fields = line.split('\t');
    let (fen, best_move, kind, value) = (
        fields.next()?,
        fields.next()?,
        fields.next()?,
        fields.next()?,
    );
    let value: i32 = value.parse().ok()?;
    let score = match kind {
        "cp" => Score::Centipawns(value),
        "mate" => Score::Mate(value),
        _ => return None,
    };
    fields.next().is_none().then(|| {
        (
            fen.to_string(),
            Analysis {
                best_move: best_move.to_string(),
                score,
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(best: &str, score: Score) -> Analysis {
        Analysis {
            best_move: best.into(),
            score,
        }
    }

    #[test]
    fn answers_outlive_the_process_that_found_them_and_a_torn_line_is_skipped() {
        let dir = std::env::temp_dir().join(format!("burnmate-cache-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let first = AnswerCache::open(&dir, "k").unwrap();
        assert_eq!(first.get("fen a"), None);
        first
            .insert("fen a", &answer("e2e4", Score::Centipawns(31)))
            .unwrap();
        first
            .insert("fen b", &answer("a7a8n", Score::Mate(-3)))
            .unwrap();
        assert_eq!(
            first.get("fen a"),
            Some(answer("e2e4", Score::Centipawns(31)))
        );
        assert_eq!(
            first.stats(),
            CacheStats {
                hits: 1,
                misses: 1,
                positions: 2
            }
        );
        // A kill mid-line in another process's file, and another key's file.
        fs::write(
            dir.join("k.999-0.tsv"),
            "fen c\tg1f3\tcp\t1\nfen d\tg1f3\tcp\t4",
        )
        .unwrap();
        fs::write(dir.join("other.1-0.tsv"), "fen e\tg1f3\tcp\t5\n").unwrap();
        let second = AnswerCache::open(&dir, "k").unwrap();
        assert_eq!(second.get("fen b"), Some(answer("a7a8n", Score::Mate(-3))));
        assert_eq!(
            second.get("fen c"),
            Some(answer("g1f3", Score::Centipawns(1)))
        );
        assert_eq!(second.get("fen d"), None, "a torn line is skipped");
        assert_eq!(
            second.get("fen e"),
            None,
            "another setting's answers are not used"
        );
        assert_eq!(second.stats().positions, 3);
        fs::remove_dir_all(&dir).unwrap();
    }
}
