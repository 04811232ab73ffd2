//! A small UCI client for an installed engine (Stockfish), run as a child process.
//!
//! Settings follow STUDIES.md section 3 (the study's Python wrapper defaults): one
//! thread, 16 MB hash cleared before every position (`ucinewgame`), a bare FEN, a
//! fixed depth. With those the engine is deterministic per FEN, so answers are cached.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

mod answer_cache;
use crate::engine_process::EngineProcess;
pub use answer_cache::{AnswerCache, CacheStats};

/// How long the engine may take to answer `uci` and `isready`.
pub const HANDSHAKE: Duration = Duration::from_secs(10);

/// How long an engine told `stop` after its deadline may take to send its move.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// Where an engine is looked for when no path is given, after `$PATH`.
const FALLBACK_DIRS: [&str; 2] = ["/usr/games", "/usr/local/bin"];

/// What went wrong talking to an engine (UCI or xboard).
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
    /// The program did not answer in time: it is not a UCI engine, or it hangs.
    #[error("engine {path}: no answer within {seconds} s; is it a UCI chess engine?")]
    Timeout {
        /// The executable.
        path: String,
        /// The wait, in seconds.
        seconds: f64,
    },
    /// The engine sent no move within its deadline, nor soon after `stop`.
    #[error("engine {path}: no move within {seconds} s of `go {limit}`, nor {grace} s after `stop`", grace = STOP_GRACE.as_secs())]
    NoMove {
        /// The executable.
        path: String,
        /// The deadline, in seconds.
        seconds: f64,
        /// The arguments of `go`.
        limit: String,
    },
    /// A spin option set outside the range the engine declared.
    #[error("engine {path}: option {name} accepts {min}..={max}, not {value}")]
    OutOfRange {
        /// The executable.
        path: String,
        /// The option.
        name: String,
        /// The value asked for.
        value: String,
        /// The engine's minimum.
        min: i64,
        /// The engine's maximum.
        max: i64,
    },
    /// An option the engine did not declare in its `uci` reply: setting it would be
    /// ignored, and the engine would play as if it had not been asked.
    #[error("engine {path} declares no option '{name}', so it cannot be set")]
    UnknownOption {
        /// The executable.
        path: String,
        /// The option.
        name: String,
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
    process: EngineProcess,
    /// What the engine calls itself (`id name`), its version included.
    id: String,
    /// The name of every option the engine declared.
    options: Vec<String>,
    /// The range of each `spin` option the engine declared (name, min, max).
    spins: Vec<(String, i64, i64)>,
    depth: u32,
    cache: Arc<AnswerCache>,
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
    /// and a 16 MB hash; a program that does not complete the UCI handshake within
    /// [`HANDSHAKE`] is an error.
    pub fn start(name: &str, depth: u32) -> Result<UciEngine, UciError> {
        UciEngine::start_within(name, depth, HANDSHAKE)
    }

    /// [`UciEngine::start`] with another handshake timeout.
    pub fn start_within(
        name: &str,
        depth: u32,
        handshake: Duration,
    ) -> Result<UciEngine, UciError> {
        UciEngine::start_with_args(name, &[], depth, handshake)
    }

    /// [`UciEngine::start_within`] of `name` run with `args` (GNU Chess: `--uci`).
    pub fn start_with_args(
        name: &str,
        args: &[String],
        depth: u32,
        handshake: Duration,
    ) -> Result<UciEngine, UciError> {
        let process = EngineProcess::spawn(name, args)?;
        let mut engine = UciEngine {
            process,
            id: String::new(),
            options: Vec::new(),
            spins: Vec::new(),
            depth,
            cache: Arc::new(AnswerCache::in_memory()),
            randomised: false,
        };
        engine.send("uci")?;
        let hello = engine.read_until("uciok", handshake)?;
        engine.id = hello
            .iter()
            .find_map(|l| l.strip_prefix("id name "))
            .unwrap_or("unnamed engine")
            .trim()
            .to_string();
        engine.options = hello.iter().filter_map(|l| option_name(l)).collect();
        engine.spins = hello.iter().filter_map(|l| spin_range(l)).collect();
        engine.send("setoption name Threads value 1")?;
        engine.send("setoption name Hash value 16")?;
        engine.send("isready")?;
        engine.read_until("readyok", handshake)?;
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
        self.read_until("readyok", HANDSHAKE)?;
        self.randomised = true;
        Ok(self)
    }

    /// Sets a UCI option (e.g. `UCI_LimitStrength` `true`, `UCI_Elo` `1350`) and
    /// waits until the engine is ready. Answers are no longer cached: a limited
    /// engine's moves are random. An option the engine did not declare is refused.
    pub fn with_option(mut self, name: &str, value: &str) -> Result<UciEngine, UciError> {
        if !self.options.iter().any(|declared| declared == name) {
            return Err(UciError::UnknownOption {
                path: self.process.path.clone(),
                name: name.to_string(),
            });
        }
        if let Some((_, min, max)) = self.spins.iter().find(|(n, ..)| n == name)
            && !value
                .parse::<i64>()
                .is_ok_and(|v| (*min..=*max).contains(&v))
        {
            return Err(UciError::OutOfRange {
                path: self.process.path.clone(),
                name: name.to_string(),
                value: value.to_string(),
                min: *min,
                max: *max,
            });
        }
        self.send(&format!("setoption name {name} value {value}"))?;
        self.send("isready")?;
        self.read_until("readyok", HANDSHAKE)?;
        self.randomised = true;
        Ok(self)
    }

    /// What the engine calls itself (`id name`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Tells the engine a new game starts (its hash is cleared).
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.read_until("readyok", HANDSHAKE).map(|_| ())
    }

    /// The engine's move (UCI notation) after `moves` (UCI notation) from `start_fen`,
    /// searched with the `go` arguments `limit` (e.g. `movetime 100`, `nodes 20000`);
    /// never cached: the game's history matters. An engine still searching after
    /// `deadline` is told `stop`; one that then sends no move within [`STOP_GRACE`]
    /// is an error.
    pub fn move_after(
        &mut self,
        start_fen: &str,
        moves: &[String],
        limit: &str,
        deadline: Duration,
    ) -> Result<String, UciError> {
        let mut command = format!("position fen {start_fen}");
        if !moves.is_empty() {
            command.push_str(" moves ");
            command.push_str(&moves.join(" "));
        }
        self.send(&command)?;
        self.send(&format!("go {limit}"))?;
        let started = Instant::now();
        let mut stopped = false;
        loop {
            let wait = if stopped {
                STOP_GRACE
            } else {
                deadline.saturating_sub(started.elapsed())
            };
            match self.read_line(Some(wait)) {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix("bestmove") {
                        return Ok(rest
                            .split_whitespace()
                            .next()
                            .unwrap_or("(none)")
                            .to_string());
                    }
                }
                Err(UciError::Timeout { .. }) if !stopped => {
                    self.send("stop")?;
                    stopped = true;
                }
                Err(UciError::Timeout { .. }) => {
                    return Err(UciError::NoMove {
                        path: self.process.path.clone(),
                        seconds: deadline.as_secs_f64(),
                        limit: limit.to_string(),
                    });
                }
                Err(other) => return Err(other),
            }
        }
    }

    /// Answers of this engine at this setting, for [`UciEngine::with_cache`]: a
    /// file-name-safe key of its `id name`, depth, threads and hash.
    pub fn settings_key(&self) -> String {
        let id: String = self
            .id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        format!("{id}-depth{}-threads1-hash16", self.depth)
    }

    /// The engine with `cache` (e.g. one [`AnswerCache::open`]ed for its
    /// [`UciEngine::settings_key`], shared by the engines of a grid) for its answers.
    pub fn with_cache(mut self, cache: Arc<AnswerCache>) -> UciEngine {
        self.cache = cache;
        self
    }

    /// The engine's best move and score for `fen`, searched afresh (hash cleared) or
    /// taken from the cache (a full-strength engine is deterministic per FEN).
    pub fn analyse(&mut self, fen: &str) -> Result<Analysis, UciError> {
        if !self.randomised
            && let Some(known) = self.cache.get(fen)
        {
            return Ok(known);
        }
        self.send("ucinewgame")?;
        self.send(&format!("position fen {fen}"))?;
        self.send("isready")?;
        self.read_until("readyok", HANDSHAKE)?;
        self.send(&format!("go depth {}", self.depth))?;
        let mut score = None;
        loop {
            let line = self.read_line(None)?;
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
                    self.cache
                        .insert(fen, &analysis)
                        .map_err(|e| UciError::Io {
                            path: self.process.path.clone(),
                            message: format!("cannot keep the answer: {e}"),
                        })?;
                }
                return Ok(analysis);
            }
        }
    }

    /// Lookups of this engine's cache so far.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    fn send(&mut self, command: &str) -> Result<(), UciError> {
        self.process.send(command)
    }

    fn read_line(&mut self, timeout: Option<Duration>) -> Result<String, UciError> {
        self.process.read_line(timeout)
    }

    /// Reads until the line `token`, each line within `timeout`; returns the lines
    /// before it.
    fn read_until(&mut self, token: &str, timeout: Duration) -> Result<Vec<String>, UciError> {
        let mut lines = Vec::new();
        for _ in 0..10_000 {
            let line = self.read_line(Some(timeout))?;
            if line.trim() == token {
                return Ok(lines);
            }
            lines.push(line);
        }
        Err(UciError::Protocol {
            path: self.process.path.clone(),
            line: format!("no '{token}' after 10000 lines"),
        })
    }
}

/// The name, minimum and maximum of an `option name N type spin ... min A max B`
/// line (names may hold spaces).
/// The name an `option name NAME type ...` line declares.
fn option_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("option name ")?;
    let (name, _) = rest.split_once(" type ")?;
    Some(name.trim().to_string())
}

fn spin_range(line: &str) -> Option<(String, i64, i64)> {
    let rest = line.strip_prefix("option name ")?;
    let (name, rest) = rest.split_once(" type ")?;
    let words: Vec<&str> = rest.split_whitespace().collect();
    if words.first() != Some(&"spin") {
        return None;
    }
    let after = |key: &str| -> Option<i64> {
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse().ok()
    };
    Some((name.trim().to_string(), after("min")?, after("max")?))
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
    use std::process::Command;

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
    fn spin_options_are_read_with_their_range() {
        assert_eq!(
            spin_range("option name UCI_Elo type spin default 1350 min 1350 max 2850"),
            Some(("UCI_Elo".to_string(), 1350, 2850))
        );
        assert_eq!(
            spin_range("option name Skill Level type spin default 20 min 0 max 20"),
            Some(("Skill Level".to_string(), 0, 20))
        );
        assert_eq!(
            spin_range("option name Ponder type check default false"),
            None
        );
    }

    #[test]
    fn a_program_that_is_no_uci_engine_fails_the_handshake_quickly() {
        // `cat` echoes "uci" back and never says "uciok".
        if locate("cat").is_err() {
            return;
        }
        let err = UciEngine::start_within("cat", 10, Duration::from_millis(300))
            .err()
            .expect("cat is no engine");
        let text = err.to_string();
        assert!(text.contains("is it a UCI chess engine?"), "{text}");
        assert!(!text.contains('\n'));
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

    /// A scripted engine: `go` makes it `on_go` (a shell command), `stop` makes
    /// it answer `e2e4`; its `id author` is Latin-1, not UTF-8.
    fn scripted_engine(name: &str, on_go: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("burnmate-{name}-{}.sh", std::process::id()));
        let script = format!(
            "#!/bin/sh\nwhile read cmd rest; do case \"$cmd\" in\n\
             uci) printf 'id name Scripted\\nid author J\\351r\\364me\\noption name UCI_Elo type spin default 1350 min 1350 max 2850\\nuciok\\n';;\n\
             isready) echo readyok;;\n\
             go) {on_go};;\n\
             stop) echo 'bestmove e2e4';;\n\
             quit) exit 0;;\n\
             esac; done\n"
        );
        std::fs::write(&path, script).unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        path
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn an_engine_past_its_deadline_is_told_stop_and_its_move_taken() {
        let path = scripted_engine("stops", "true");
        let mut engine = UciEngine::start(path.to_str().unwrap(), 1).unwrap();
        // The Latin-1 author line did not end the handshake.
        assert_eq!(engine.id(), "Scripted");
        let err = UciEngine::start(path.to_str().unwrap(), 1)
            .unwrap()
            .with_option("UCI_Elo", "1000")
            .err()
            .unwrap();
        assert!(
            err.to_string()
                .contains("option UCI_Elo accepts 1350..=2850, not 1000")
        );
        // An option the engine never declared would be ignored: refused.
        let err = UciEngine::start(path.to_str().unwrap(), 1)
            .unwrap()
            .with_option("UCI_LimitStrength", "true")
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            format!(
                "engine {} declares no option 'UCI_LimitStrength', so it cannot be set",
                path.display()
            )
        );
        let started = Instant::now();
        let mv = engine
            .move_after(START, &[], "infinite", Duration::from_millis(200))
            .unwrap();
        assert_eq!(mv, "e2e4");
        assert!(started.elapsed() < Duration::from_secs(20), "no hang");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_engine_that_never_answers_go_is_a_one_line_error_soon_after_its_deadline() {
        let path = scripted_engine("silent", "exec sleep 600");
        let mut engine = UciEngine::start(path.to_str().unwrap(), 1).unwrap();
        let started = Instant::now();
        let err = engine
            .move_after(START, &[], "nodes 100", Duration::from_millis(200))
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(20), "no hang");
        let text = err.to_string();
        assert!(
            text.contains("no move within 0.2 s of `go nodes 100`, nor 2 s after `stop`"),
            "{text}"
        );
        assert!(!text.contains('\n'));
        drop(engine);
        std::fs::remove_file(path).unwrap();
    }
}
