//! A small UCI client for an installed engine (Stockfish), run as a child process.
//!
//! Settings follow STUDIES.md section 3 (the study's Python wrapper defaults): one
//! thread, 16 MB hash cleared before every position (`ucinewgame`), a bare FEN, a
//! fixed depth. With those the engine is deterministic per FEN, so answers are cached.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use thiserror::Error;

/// Where an engine is looked for when no path is given, after `$PATH`.
const FALLBACK_DIRS: [&str; 2] = ["/usr/games", "/usr/local/bin"];

/// What went wrong talking to the engine.
#[derive(Debug, Error)]
pub enum UciError {
    /// No executable was found.
    #[error(
        "engine '{0}' not found on PATH or in /usr/games; install Stockfish (Debian/Ubuntu: `apt-get install stockfish`, macOS: `brew install stockfish`) or pass its path"
    )]
    NotFound(String),
    /// The process could not be started or talked to.
    #[error("engine {path}: {message}")]
    Io {
        /// The executable.
        path: String,
        /// What failed.
        message: String,
    },
    /// The engine said something this client does not understand.
    #[error("engine {path}: unexpected reply '{line}'")]
    Protocol {
        /// The executable.
        path: String,
        /// The offending line.
        line: String,
    },
}

/// The engine's score of a position, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns.
    Centipawns(i32),
    /// Mate in this many moves (negative: the side to move is mated).
    Mate(i32),
}

/// The engine's answer for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Best move in UCI notation (`e2e4`, `e7e8q`), or `(none)` when there is none.
    pub best_move: String,
    /// Score of the position at the searched depth.
    pub score: Score,
}

/// A running UCI engine with a per-FEN answer cache.
pub struct UciEngine {
    path: String,
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    depth: u32,
    cache: HashMap<String, Analysis>,
    randomised: bool,
}

/// Finds `name` (a path, or a program name looked up on `$PATH` and in /usr/games).
pub fn locate(name: &str) -> Result<PathBuf, UciError> {
    let given = Path::new(name);
    if given.components().count() > 1 {
        return given
            .is_file()
            .then(|| given.to_path_buf())
            .ok_or_else(|| UciError::NotFound(name.into()));
    }
    let path_dirs = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    path_dirs
        .into_iter()
        .chain(FALLBACK_DIRS.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| UciError::NotFound(name.into()))
}

impl UciEngine {
    /// Starts the engine `name` and sets it up to search to `depth` with one thread
    /// and a 16 MB hash.
    pub fn start(name: &str, depth: u32) -> Result<UciEngine, UciError> {
        let path = locate(name)?;
        let shown = path.display().to_string();
        let io = |e: std::io::Error| UciError::Io {
            path: shown.clone(),
            message: e.to_string(),
        };
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io)?;
        let input = child.stdin.take().expect("piped stdin");
        let output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut engine = UciEngine {
            path: shown,
            child,
            input,
            output,
            depth,
            cache: HashMap::new(),
            randomised: false,
        };
        engine.send("uci")?;
        engine.read_until("uciok")?;
        engine.send("setoption name Threads value 1")?;
        engine.send("setoption name Hash value 16")?;
        engine.send("isready")?;
        engine.read_until("readyok")?;
        Ok(engine)
    }

    /// Weakens the engine to Stockfish's `Skill Level` (0 = weakest, 20 = full
    /// strength). A weakened Stockfish picks among its best moves with a random
    /// generator seeded from the clock, so its answers are not cached and differ from
    /// run to run.
    pub fn with_skill_level(mut self, level: u8) -> Result<UciEngine, UciError> {
        self.send(&format!(
            "setoption name Skill Level value {}",
            level.min(20)
        ))?;
        self.send("isready")?;
        self.read_until("readyok")?;
        self.randomised = true;
        self.cache.clear();
        Ok(self)
    }

    /// The engine's best move and score for `fen`, searched afresh (hash cleared) or
    /// taken from the cache (a full-strength engine is deterministic per FEN).
    pub fn analyse(&mut self, fen: &str) -> Result<Analysis, UciError> {
        if let Some(known) = self.cache.get(fen) {
            return Ok(known.clone());
        }
        self.send("ucinewgame")?;
        self.send(&format!("position fen {fen}"))?;
        self.send("isready")?;
        self.read_until("readyok")?;
        self.send(&format!("go depth {}", self.depth))?;
        let mut score = None;
        loop {
            let line = self.read_line()?;
            if line.starts_with("info") {
                score = parse_score(&line).or(score);
            } else if let Some(rest) = line.strip_prefix("bestmove") {
                let best_move = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or("(none)")
                    .to_string();
                // With no legal move Stockfish prints `score mate 0` or `cp 0` first.
                let analysis = Analysis {
                    best_move,
                    score: score.unwrap_or(Score::Centipawns(0)),
                };
                if !self.randomised {
                    self.cache.insert(fen.to_string(), analysis.clone());
                }
                return Ok(analysis);
            }
        }
    }

    /// Number of distinct positions analysed so far.
    pub fn cached_positions(&self) -> usize {
        self.cache.len()
    }

    fn send(&mut self, command: &str) -> Result<(), UciError> {
        writeln!(self.input, "{command}")
            .and_then(|()| self.input.flush())
            .map_err(|e| UciError::Io {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }

    fn read_line(&mut self) -> Result<String, UciError> {
        let mut line = String::new();
        match self.output.read_line(&mut line) {
            Ok(0) => Err(UciError::Io {
                path: self.path.clone(),
                message: "the engine exited".into(),
            }),
            Ok(_) => Ok(line.trim_end().to_string()),
            Err(e) => Err(UciError::Io {
                path: self.path.clone(),
                message: e.to_string(),
            }),
        }
    }

    fn read_until(&mut self, token: &str) -> Result<(), UciError> {
        for _ in 0..10_000 {
            if self.read_line()?.trim() == token {
                return Ok(());
            }
        }
        Err(UciError::Protocol {
            path: self.path.clone(),
            line: format!("no '{token}' after 10000 lines"),
        })
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// The `score cp N` / `score mate N` of an `info` line, if it has one.
pub fn parse_score(line: &str) -> Option<Score> {
    let mut words = line.split_whitespace();
    while let Some(word) = words.next() {
        if word == "score" {
            let kind = words.next()?;
            let value: i32 = words.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(Score::Centipawns(value)),
                "mate" => Some(Score::Mate(value)),
                _ => None,
            };
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_from_info_lines() {
        assert_eq!(
            parse_score("info depth 15 seldepth 20 multipv 1 score cp -35 nodes 1 pv e2e4"),
            Some(Score::Centipawns(-35))
        );
        assert_eq!(
            parse_score("info depth 9 score mate -4 nodes 10 pv a1a2"),
            Some(Score::Mate(-4))
        );
        assert_eq!(parse_score("info string NNUE evaluation enabled"), None);
        assert_eq!(parse_score("info depth 3 score lowerbound"), None);
    }

    #[test]
    fn a_missing_engine_is_a_one_line_error_saying_how_to_install() {
        let err = UciEngine::start("no-such-engine-burnmate", 10)
            .err()
            .expect("must fail");
        let text = err.to_string();
        assert!(text.contains("no-such-engine-burnmate"), "{text}");
        assert!(text.contains("apt-get install stockfish"), "{text}");
        assert!(!text.contains('\n'));
    }
}
