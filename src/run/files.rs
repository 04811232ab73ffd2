//! Run directories and crash-safe file writes.

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

use burnmate_oracle::checksum::{FNV1A_START, fnv1a_extend};

/// Writes `contents` to `path` through a temporary file and a rename, so a reader
/// never sees a half-written file under the real name; a failed write (a full disk)
/// removes its temporary file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    let written = fs::write(&tmp, contents)
        .with_context(|| format!("cannot write {}", tmp.display()))
        .and_then(|()| {
            fs::rename(&tmp, path).with_context(|| format!("cannot rename to {}", path.display()))
        });
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Writes `contents` to `path` only if no file has that name, atomically: through a
/// temporary file and a hard link, which fails when the name exists (so of two
/// processes writing the same new file, one gets an error, and no content is lost).
pub fn write_new_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    let written = fs::write(&tmp, contents)
        .with_context(|| format!("cannot write {}", tmp.display()))
        .and_then(|()| match fs::hard_link(&tmp, path) {
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                bail!("{} already exists; choose another name", path.display())
            }
            linked => linked.with_context(|| format!("cannot create {}", path.display())),
        });
    let _ = fs::remove_file(&tmp);
    written
}

/// A temporary name beside `path`, unique to this process and call, so two
/// processes writing the same file never share (and rename away) each other's
/// temporary file.
fn tmp_path(path: &Path) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// A file written line by line under `<name>.partial` and renamed on `finish`; an
/// interrupted run leaves only the partial file, which a resumed run reopens.
pub struct StreamedFile {
    path: PathBuf,
    partial: PathBuf,
    writer: BufWriter<fs::File>,
    lines: usize,
    /// FNV-1a of every byte written (or kept on reopening).
    digest: u64,
}

/// The partial name of a streamed file.
pub fn partial_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

impl StreamedFile {
    /// Creates (or empties) the partial file of `path`.
    pub fn create(path: &Path) -> Result<StreamedFile> {
        let partial = partial_path(path);
        let file = fs::File::create(&partial)
            .with_context(|| format!("cannot create {}", partial.display()))?;
        Ok(StreamedFile {
            path: path.to_path_buf(),
            partial,
            writer: BufWriter::new(file),
            lines: 0,
            digest: FNV1A_START,
        })
    }

    /// Reopens the partial file of `path` after its first `keep` lines (dropping
    /// any written after them) and returns those lines. A run killed while it
    /// finished may have renamed the partial file already: the finished file is then
    /// taken back as the partial one.
    pub fn reopen(path: &Path, keep: usize) -> Result<(StreamedFile, Vec<String>)> {
        let partial = partial_path(path);
        if !partial.exists() && path.exists() {
            fs::rename(path, &partial)
                .with_context(|| format!("cannot rename {} back", path.display()))?;
        }
        let text = fs::read_to_string(&partial)
            .with_context(|| format!("cannot read {}", partial.display()))?;
        let lines: Vec<String> = text.lines().take(keep).map(String::from).collect();
        if lines.len() < keep {
            bail!(
                "{} holds {} lines, fewer than the {keep} its resume point counts",
                partial.display(),
                lines.len()
            );
        }
        let kept: usize = lines.iter().map(|l| l.len() + 1).sum();
        let digest = lines.iter().fold(FNV1A_START, |h, line| {
            fnv1a_extend(fnv1a_extend(h, line.as_bytes()), b"\n")
        });
        let file = fs::OpenOptions::new()
            .write(true)
            .open(&partial)
            .with_context(|| format!("cannot open {}", partial.display()))?;
        file.set_len(kept as u64)
            .with_context(|| format!("cannot truncate {}", partial.display()))?;
        let mut writer = BufWriter::new(file);
        std::io::Seek::seek(&mut writer, std::io::SeekFrom::End(0))?;
        Ok((
            StreamedFile {
                path: path.to_path_buf(),
                partial,
                writer,
                lines: keep,
                digest,
            },
            lines,
        ))
    }

    /// Appends one line (text holding newlines counts as several).
    pub fn line(&mut self, line: &str) -> Result<()> {
        self.lines += 1 + line.matches('\n').count();
        self.digest = fnv1a_extend(fnv1a_extend(self.digest, line.as_bytes()), b"\n");
        writeln!(self.writer, "{line}")
            .with_context(|| format!("cannot write {}", self.partial.display()))
    }

    /// Lines written so far (what [`StreamedFile::reopen`] keeps).
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// FNV-1a of the lines written so far (of the kept ones, after reopening): what
    /// a resume point vouches for.
    pub fn digest(&self) -> u64 {
        self.digest
    }

    /// Writes everything buffered to the partial file.
    pub fn flush(&mut self) -> Result<()> {
        self.writer
            .flush()
            .with_context(|| format!("cannot write {}", self.partial.display()))
    }

    /// Flushes and renames the file to its real name.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        fs::rename(&self.partial, &self.path)
            .with_context(|| format!("cannot rename to {}", self.path.display()))
    }
}

/// Name of the lock file in run and study directories.
pub const LOCK_FILE: &str = ".burnmate.lock";

/// An exclusive lock on a run or study directory, held until dropped (or the
/// process ends, however it ends): a second burnmate writing the same directory
/// gets a one-line error naming the holder.
pub struct DirLock {
    _file: fs::File,
}

/// Locks `dir` (which exists) for this process.
pub fn lock_dir(dir: &Path) -> Result<DirLock> {
    let path = dir.join(LOCK_FILE);
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => {
            // The pid overwrites the previous holder's from the start, then the rest
            // is cut: a reader sees a pid on the first line at every moment but the
            // very first lock of a new file.
            let pid = format!("{}\n", std::process::id());
            std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0))?;
            file.write_all(pid.as_bytes())
                .context("cannot write the lock file")?;
            file.set_len(pid.len() as u64)?;
            Ok(DirLock { _file: file })
        }
        Err(fs::TryLockError::WouldBlock) => bail!(
            "{} is in use by another burnmate ({}); wait for it to finish or choose another --out",
            dir.display(),
            lock_holder(&path)
        ),
        Err(fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", path.display()))
        }
    }
}

/// "pid N" of the process holding the lock file at `path`, read from its first
/// line; a holder that has not written its pid yet (it locked a new file a moment
/// ago) is waited for briefly, then called unknown.
fn lock_holder(path: &Path) -> String {
    for _ in 0..20 {
        let text = fs::read_to_string(path).unwrap_or_default();
        if let Some(pid) = text.lines().next().filter(|l| !l.trim().is_empty()) {
            return format!("pid {}", pid.trim());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    "pid not yet written".into()
}

/// Copies the directory `from` (files and sub-directories, not its lock file) to
/// `to`, which must not exist yet.
pub fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir(to).with_context(|| format!("cannot create {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == LOCK_FILE {
            continue;
        }
        if entry.file_type()?.is_dir() {
            copy_dir(&source, &target)?;
        } else {
            fs::copy(&source, &target).with_context(|| {
                format!("cannot copy {} to {}", source.display(), target.display())
            })?;
        }
    }
    Ok(())
}

/// Claims `dir` (made by [`create_run_dir`]) for a new run: locks it, refuses one
/// that already holds a run, and writes the run's resolved config as its
/// `config.toml`. Every study's run starts here ([`crate::run::Run::start`] adds the
/// episode studies' metrics); the lock is held while the guard lives.
pub fn claim_new_run(dir: &Path, config_toml: &str) -> Result<DirLock> {
    let lock = lock_dir(dir)?;
    anyhow::ensure!(
        is_empty_dir(dir),
        "output directory {} already holds a run; choose another --out",
        dir.display()
    );
    write_atomic(&dir.join("config.toml"), config_toml.as_bytes())?;
    Ok(lock)
}

/// Whether `dir` holds nothing but, perhaps, a lock file.
pub fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .all(|entry| entry.file_name() == LOCK_FILE)
    })
}

/// The stem of a config path, used to name run directories.
pub fn config_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "run".into())
}

/// Creates a fresh run directory: `out` if given (it must not exist, or be empty),
/// else `runs/<stem>-<UTC time>` with a numeric suffix if that exists already.
/// Older runs are never overwritten.
pub fn create_run_dir(out: Option<&Path>, stem: &str) -> Result<PathBuf> {
    if let Some(dir) = out {
        if dir.exists() && !is_empty_dir(dir) {
            bail!(
                "output directory {} already exists and is not empty; choose another --out",
                dir.display()
            );
        }
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        return Ok(dir.to_path_buf());
    }
    fs::create_dir_all("runs").context("cannot create runs/")?;
    let base = format!("runs/{stem}-{}", utc_timestamp());
    for attempt in 1.. {
        let dir = if attempt == 1 {
            PathBuf::from(&base)
        } else {
            PathBuf::from(format!("{base}-{attempt}"))
        };
        match fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", dir.display())),
        }
    }
    unreachable!("the attempt counter is unbounded")
}

/// Current UTC time as `YYYYMMDD-HHMMSS`.
fn utc_timestamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_415), (2025, 11, 23));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn a_file_renamed_by_a_killed_finish_is_reopened_at_its_resume_point() {
        // What a run killed between renaming metrics.csv and removing resume.json
        // leaves (this version, or older ones that renamed before their last resume
        // point): no partial file, the finished one holding more lines than the point.
        let dir = crate::temp_dir::TempDir::new();
        let path = dir.path().join("metrics.csv");
        fs::write(&path, "h\n0\n1\n2\n").unwrap();
        let (mut file, kept) = StreamedFile::reopen(&path, 2).unwrap();
        assert_eq!(kept, ["h", "0"]);
        file.line("1b").unwrap();
        file.finish().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "h\n0\n1b\n");
        assert!(!partial_path(&path).exists());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary() {
        let dir = crate::temp_dir::TempDir::new();
        let path = dir.path().join("a.json");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_non_empty_out_dir_is_refused() {
        let dir = crate::temp_dir::TempDir::new();
        fs::write(dir.path().join("old.csv"), "keep").unwrap();
        let err = create_run_dir(Some(dir.path()), "x").unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("old.csv")).unwrap(),
            "keep"
        );
    }

    #[test]
    fn of_two_writers_racing_for_one_new_file_one_wins_and_the_other_is_told() {
        let dir = crate::temp_dir::TempDir::new();
        for round in 0..50 {
            let path = dir.path().join(format!("game-{round}.pgn"));
            let results: Vec<Result<()>> = std::thread::scope(|s| {
                let writers: Vec<_> = [b"first", b"other"]
                    .into_iter()
                    .map(|text| s.spawn(|| write_new_atomic(&path, text)))
                    .collect();
                writers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            let won: Vec<usize> = (0..2).filter(|&i| results[i].is_ok()).collect();
            assert_eq!(won.len(), 1, "round {round}: exactly one writer succeeds");
            let lost = results[1 - won[0]].as_ref().unwrap_err().to_string();
            assert!(lost.contains("already exists"), "{lost}");
            let want: &[u8] = if won[0] == 0 { b"first" } else { b"other" };
            assert_eq!(fs::read(&path).unwrap(), want);
        }
        let leftovers = fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 50, "no temporary file is left");
    }

    #[test]
    fn a_locked_directory_names_its_holder_or_says_the_pid_is_not_written_yet() {
        let dir = crate::temp_dir::TempDir::new();
        let held = lock_dir(dir.path()).unwrap();
        let err = lock_dir(dir.path()).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("(pid {})", std::process::id())),
            "{err}"
        );
        // A holder that has locked the file but not written its pid yet.
        fs::write(dir.path().join(LOCK_FILE), "").unwrap();
        let err = lock_dir(dir.path()).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains("(pid not yet written)"), "{err}");
        // A longer pid of an earlier holder is overwritten from the start.
        drop(held);
        fs::write(dir.path().join(LOCK_FILE), "1234567890123\n").unwrap();
        let _held = lock_dir(dir.path()).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap(),
            format!("{}\n", std::process::id())
        );
    }
}
