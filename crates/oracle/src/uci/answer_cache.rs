//! Engine answers kept across runs: one table per engine and setting, shared by
//! every engine process of a grid, and appended to files so that a later run, or
//! another shard on a shared disk, asks for each distinct position once.
//!
//! Files: `<dir>/<key>.<pid>-<n>.tsv`, one `fen \t best move \t cp|mate \t value \t
//! checksum` line per answer (the checksum: FNV-1a of the four fields and their
//! tabs, 16 hex digits), appended by one process. A line whose checksum does not
//! match (a flipped bit, a stray byte, a line of an older format) is skipped and
//! counted, so a damaged answer is searched again, never used. Opening reads every file of the key, and
//! before each search the files of other processes are read again from where they
//! were left (a few `stat`s, nothing when no file grew), so shards running at the same
//! time on a shared disk see each other's answers. A line cut short by a kill is
//! skipped. Merging shards' caches is copying files.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Analysis, Score};
use crate::checksum::fnv1a;

/// Answers of one engine at one setting.
pub struct AnswerCache {
    answers: Mutex<HashMap<String, Analysis>>,
    /// The files of the key on disk, if the cache is kept.
    disk: Option<Mutex<Disk>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// Where a kept cache reads and writes.
struct Disk {
    dir: PathBuf,
    prefix: String,
    /// This process's file (created with its first answer).
    own: PathBuf,
    writer: Option<File>,
    /// Bytes of complete lines read so far from each other file.
    read: HashMap<PathBuf, u64>,
    /// Complete lines skipped as damaged.
    damaged: u64,
}

impl Disk {
    /// Reads what other processes' files gained since the last call.
    fn catch_up(&mut self, answers: &mut HashMap<String, Analysis>) -> std::io::Result<()> {
        for entry in fs::read_dir(&self.dir)? {
            let path = entry?.path();
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            if path == self.own || !(name.starts_with(&self.prefix) && name.ends_with(".tsv")) {
                continue;
            }
            let done = self.read.get(&path).copied().unwrap_or(0);
            if fs::metadata(&path)?.len() <= done {
                continue;
            }
            let mut file = File::open(&path)?;
            file.seek(SeekFrom::Start(done))?;
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            let complete = bytes
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |end| end + 1);
            for line in bytes[..complete].split(|&b| b == b'\n') {
                if line.is_empty() {
                    continue;
                }
                match parse_line(&String::from_utf8_lossy(line)) {
                    Some((fen, analysis)) => {
                        answers.insert(fen, analysis);
                    }
                    None => self.damaged += 1,
                }
            }
            self.read.insert(path, done + complete as u64);
        }
        Ok(())
    }
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
    /// Damaged lines skipped in the cache files.
    pub damaged: u64,
}

impl AnswerCache {
    /// A cache of this process only.
    pub fn in_memory() -> AnswerCache {
        AnswerCache {
            answers: Mutex::new(HashMap::new()),
            disk: None,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The cache of `key` in `dir`: every answer its files hold, and a new file of
    /// this process for the answers to come.
    pub fn open(dir: &Path, key: &str) -> std::io::Result<AnswerCache> {
        fs::create_dir_all(dir)?;
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut disk = Disk {
            dir: dir.to_path_buf(),
            prefix: format!("{key}."),
            own: PathBuf::new(),
            writer: None,
            read: HashMap::new(),
            damaged: 0,
        };
        let mut answers = HashMap::new();
        // Every file first, even one named as ours (a finished process with our pid).
        disk.catch_up(&mut answers)?;
        disk.own = dir.join(format!("{key}.{}-{n}.tsv", std::process::id()));
        Ok(AnswerCache {
            answers: Mutex::new(answers),
            disk: Some(Mutex::new(disk)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    /// The answer for `fen`, if known (counted as a hit or a miss); before a miss,
    /// other processes' new answers are read.
    pub fn get(&self, fen: &str) -> Option<Analysis> {
        let mut found = self.answers.lock().expect("cache lock").get(fen).cloned();
        if found.is_none()
            && let Some(disk) = &self.disk
        {
            let mut answers = HashMap::new();
            // Unreadable peers only cost searches: the answer is then searched here.
            let _ = disk.lock().expect("cache file lock").catch_up(&mut answers);
            let mut held = self.answers.lock().expect("cache lock");
            held.extend(answers);
            found = held.get(fen).cloned();
        }
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
        if let Some(disk) = &self.disk {
            let mut disk = disk.lock().expect("cache file lock");
            if disk.writer.is_none() {
                disk.writer = Some(
                    OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&disk.own)?,
                );
            }
            disk.writer
                .as_mut()
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
            damaged: self
                .disk
                .as_ref()
                .map_or(0, |d| d.lock().expect("cache file lock").damaged),
        }
    }
}

fn format_line(fen: &str, analysis: &Analysis) -> String {
    let (kind, value) = match analysis.score {
        Score::Centipawns(cp) => ("cp", cp),
        Score::Mate(m) => ("mate", m),
    };
    let fields = format!("{fen}\t{}\t{kind}\t{value}", analysis.best_move);
    format!("{fields}\t{:016x}\n", fnv1a(fields.as_bytes()))
}

fn parse_line(line: &str) -> Option<(String, Analysis)> {
    let (fields, checksum) = line.rsplit_once('\t')?;
    if u64::from_str_radix(checksum, 16).ok()? != fnv1a(fields.as_bytes()) || checksum.len() != 16 {
        return None;
    }
    let mut fields = fields.split('\t');
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

    /// A cache file's line for `fen`.
    fn line(fen: &str, best: &str, score: Score) -> String {
        format_line(fen, &answer(best, score))
    }

    #[test]
    fn a_damaged_line_is_skipped_counted_and_searched_again_not_used() {
        let dir =
            std::env::temp_dir().join(format!("burnmate-cache-damage-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let good = line("fen a", "e2e4", Score::Centipawns(31));
        // A flipped digit in the score, a byte that is not UTF-8, an old 4-field line.
        let flipped = line("fen b", "e2e4", Score::Centipawns(31)).replace("\t31\t", "\t71\t");
        let mut bytes = format!("{good}{flipped}").into_bytes();
        bytes.extend_from_slice(b"fen \xff\tg1f3\tcp\t2\t0000000000000000\n");
        bytes.extend_from_slice(b"fen d\tg1f3\tcp\t4\n");
        fs::write(dir.join("k.999-0.tsv"), bytes).unwrap();
        let cache = AnswerCache::open(&dir, "k").unwrap();
        assert_eq!(
            cache.get("fen a"),
            Some(answer("e2e4", Score::Centipawns(31)))
        );
        assert_eq!(cache.get("fen b"), None);
        assert_eq!(cache.get("fen d"), None);
        assert_eq!(cache.stats().damaged, 3);
        assert_eq!(cache.stats().positions, 1);
        fs::remove_dir_all(&dir).unwrap();
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
                positions: 2,
                damaged: 0
            }
        );
        // A kill mid-line in another process's file, and another key's file.
        let c = line("fen c", "g1f3", Score::Centipawns(1));
        let d = line("fen d", "g1f3", Score::Centipawns(4));
        fs::write(dir.join("k.999-0.tsv"), format!("{c}{}", d.trim_end())).unwrap();
        let e = line("fen e", "g1f3", Score::Centipawns(5));
        fs::write(dir.join("other.1-0.tsv"), e).unwrap();
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

    #[test]
    fn a_cache_sees_answers_another_process_finds_while_it_runs() {
        let dir = std::env::temp_dir().join(format!("burnmate-cache-peers-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let (a, b) = (
            AnswerCache::open(&dir, "k").unwrap(),
            AnswerCache::open(&dir, "k").unwrap(),
        );
        a.insert("fen a", &answer("e2e4", Score::Centipawns(31)))
            .unwrap();
        assert_eq!(b.get("fen a"), Some(answer("e2e4", Score::Centipawns(31))));
        // A line still being written is read once it is complete.
        let peer = dir.join("k.999-0.tsv");
        let c = line("fen c", "g1f3", Score::Centipawns(1));
        let d = line("fen d", "g1f3", Score::Centipawns(4));
        fs::write(&peer, format!("{c}{}", &d[..8])).unwrap();
        assert_eq!(b.get("fen d"), None);
        let mut file = OpenOptions::new().append(true).open(&peer).unwrap();
        file.write_all(&d.as_bytes()[8..]).unwrap();
        assert_eq!(b.get("fen d"), Some(answer("g1f3", Score::Centipawns(4))));
        assert_eq!(b.get("fen c"), Some(answer("g1f3", Score::Centipawns(1))));
        assert_eq!(
            b.stats(),
            CacheStats {
                hits: 3,
                misses: 1,
                positions: 3,
                damaged: 0
            }
        );
        // Its own answers are not read back as a peer's.
        b.insert("fen e", &answer("a2a4", Score::Mate(2))).unwrap();
        assert_eq!(a.get("fen e"), Some(answer("a2a4", Score::Mate(2))));
        assert_eq!(b.stats().positions, 4);
        fs::remove_dir_all(&dir).unwrap();
    }
}
