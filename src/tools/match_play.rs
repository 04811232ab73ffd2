//! `burnmate match RUN`: games between a trained run and a UCI engine (Stockfish at
//! a `UCI_Elo` or `Skill Level`, or any engine by path) or another run, colours
//! alternating, each pair of games from the same opening, several games at once
//! (`--jobs`), with PGN and the Elo difference with its 95 % interval; a ladder of
//! `UCI_Elo` levels fits one Elo on Stockfish's scale, and `--sprt elo0,elo1` stops
//! when the test decides. The match directory keeps every finished game, so a
//! killed match resumes when the same command is run again.

pub mod engine_limit;
pub mod game;
pub mod gauntlet;
pub mod record;
pub mod refit;
pub mod tested_engine;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use burnmate_engine::Features;
use burnmate_oracle::uci::{HANDSHAKE, UciEngine};
use burnmate_oracle::xboard::XboardEngine;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position};

use crate::run::fault::crash_point;
use crate::run::files::{lock_dir, write_atomic};
use crate::run::tablebases::tablebase_dir;
use crate::studies::chess::openings;
use crate::tools::uci_server::players::{BUILTIN_MATERIAL, BUILTIN_NET, PlaySearch, load_player};
use burnmate_env::game_result::GameResult;
use burnmate_oracle::rating::{EloEstimate, Sprt, SprtDecision, Tally, elo_estimate, ladder_fit};
pub use game::TimeControl;
use game::{
    Adjudicator, EnginePlayer, Player, RunPlayer, XboardPlayer, legal_move, play_game, rejudge,
};
use record::{Row, RowWriter, check_numbers, read_rows};

/// The file that records a match's settings; a rerun must ask for the same.
pub const SETTINGS_FILE: &str = "match.json";

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The Universal Chess Interface.
    #[default]
    Uci,
    /// xboard / CECP, protocol 2 ([`burnmate_oracle::xboard`]).
    Xboard,
}

impl Protocol {
    fn is_uci(&self) -> bool {
        *self == Protocol::Uci
    }
}

/// Whom the run plays.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Opponent {
    /// Another run.
    Run {
        /// Its directory.
        run: PathBuf,
    },
    /// A chess engine (UCI or xboard).
    Engine {
        /// What reports call it (absent: the command and its options).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        /// Its name on `$PATH` or its path.
        engine: String,
        /// Arguments it is started with (absent in matches from before they existed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// The protocol it speaks (absent: UCI).
        #[serde(default, skip_serializing_if = "Protocol::is_uci")]
        protocol: Protocol,
        /// Options set after the handshake (name, value): UCI's `setoption`,
        /// xboard's `option NAME=VALUE`.
        options: Vec<(String, String)>,
        /// Its rating on the match's scale (its `UCI_Elo` label, or a gauntlet's
        /// published rating), when it has one.
        rating: Option<f64>,
    },
}

impl Opponent {
    /// Its name in PGN headers and reports.
    pub fn label(&self) -> String {
        match self {
            Opponent::Run { run } => run_label(run),
            Opponent::Engine {
                name: Some(name), ..
            } => name.clone(),
            Opponent::Engine {
                engine, options, ..
            } => {
                let shown: Vec<String> = options
                    .iter()
                    .filter(|(name, _)| name != "UCI_LimitStrength")
                    .map(|(name, value)| format!("{name} {value}"))
                    .collect();
                if shown.is_empty() {
                    engine.clone()
                } else {
                    format!("{engine} ({})", shown.join(", "))
                }
            }
        }
    }

    /// The opponent ready to play: an engine searching with `go limit` (unless the
    /// match is `clocked`), a run searching as the match's own run does (`search`,
    /// every rule on).
    fn start(
        &self,
        limit: &str,
        search: PlaySearch,
        deadline: Duration,
        clocked: bool,
    ) -> Result<Box<dyn Player>> {
        Ok(match self {
            Opponent::Run { run } => Box::new(RunPlayer(load_player(
                run,
                search,
                Features::default(),
                None,
            )?)),
            Opponent::Engine {
                engine,
                args,
                protocol: Protocol::Uci,
                options,
                rating,
                ..
            } => {
                let mut started = UciEngine::start_with_args(engine, args, 1, HANDSHAKE)?;
                for (name, value) in options {
                    started = started
                        .with_option(name, value)
                        .with_context(|| match rating {
                            Some(elo) if name.starts_with("UCI_") => {
                                format!("--uci-elo {elo} needs an engine with a UCI_Elo option")
                            }
                            _ => format!("cannot set {name} on {engine}"),
                        })?;
                }
                Box::new(EnginePlayer {
                    engine: started,
                    limit: limit.to_string(),
                    deadline,
                })
            }
            Opponent::Engine {
                engine,
                args,
                protocol: Protocol::Xboard,
                options,
                ..
            } => {
                let mut started = XboardEngine::start(engine, args)?;
                for (name, value) in options {
                    started.set_option(name, value)?;
                }
                let limit = if clocked {
                    None
                } else {
                    Some(XboardPlayer::limit_of(limit)?)
                };
                Box::new(XboardPlayer {
                    engine: started,
                    limit,
                    deadline,
                })
            }
        })
    }

    /// What the opponent is, so a resumed match is refused when it changed: a run's
    /// [`run_identity`], an engine's `id name` and the FNV-1a of its executable.
    fn identity(&self) -> Result<String> {
        match self {
            Opponent::Run { run } => run_identity(run, None),
            Opponent::Engine {
                engine,
                args,
                protocol,
                ..
            } => {
                let path = burnmate_oracle::uci::locate(engine)?;
                let bytes = std::fs::read(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
                let id = match protocol {
                    Protocol::Uci => UciEngine::start_with_args(engine, args, 1, HANDSHAKE)?
                        .id()
                        .to_string(),
                    Protocol::Xboard => XboardEngine::start(engine, args)?.id().to_string(),
                };
                Ok(format!(
                    "{id} fnv1a:{:016x}",
                    burnmate_oracle::checksum::fnv1a(&bytes)
                ))
            }
        }
    }
}

/// The engine `engine` at each `UCI_Elo` of `uci_elo` (a ladder), else at Skill
/// Level `skill`, else at full strength.
pub fn engine_opponents(engine: &str, uci_elo: &[u32], skill: Option<u8>) -> Vec<Opponent> {
    let opponent = |options: Vec<(&str, String)>, rating: Option<f64>| Opponent::Engine {
        name: None,
        engine: engine.to_string(),
        args: Vec::new(),
        protocol: Protocol::Uci,
        options: options
            .into_iter()
            .map(|(name, value)| (name.to_string(), value))
            .collect(),
        rating,
    };
    if !uci_elo.is_empty() {
        return uci_elo
            .iter()
            .map(|&elo| {
                let options = vec![
                    ("UCI_LimitStrength", "true".to_string()),
                    ("UCI_Elo", elo.to_string()),
                ];
                opponent(options, Some(f64::from(elo)))
            })
            .collect();
    }
    match skill {
        Some(level) => vec![opponent(vec![("Skill Level", level.to_string())], None)],
        None => vec![opponent(Vec::new(), None)],
    }
}

fn run_label(run: &Path) -> String {
    if let Ok(Some(engine)) = tested_engine::parse(run) {
        return engine.label();
    }
    let name = run
        .file_name()
        .map_or("run".into(), |n| n.to_string_lossy());
    format!("burnmate {name}")
}

/// What a match plays: everything but where and how fast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchSettings {
    /// The run under test.
    pub run: PathBuf,
    /// Its opponents, played one after the other (several: a ladder).
    pub opponents: Vec<Opponent>,
    /// The arguments of `go` for engines, e.g. `nodes 50000`.
    pub limit: String,
    /// Games against each opponent.
    pub games: u64,
    /// An EPD file of openings (none: the shipped set).
    pub openings: Option<PathBuf>,
    /// Plies after which a game is a draw.
    pub max_plies: u32,
    /// Plies the run under test searches (afterstate-td runs; others play one).
    pub plies: u32,
    /// Positions a move of the run's alpha-beta search, instead of `plies`
    /// (afterstate-td runs; absent in matches from before it existed).
    #[serde(default)]
    pub nodes: Option<u64>,
    /// The SPRT's (elo0, elo1), if one may stop the match.
    pub sprt: Option<(f64, f64)>,
    /// Rules of the run's engine-grade search switched on ([`Features::switched`];
    /// absent in matches from before it existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub with: Vec<String>,
    /// Rules of the run's engine-grade search switched off (as `with`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub without: Vec<String>,
    /// A chess run's generation to play (absent: its newest incumbent, and absent
    /// in matches from before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<u32>,
    /// Search threads of the run under test (UCI `Threads`; absent in matches from
    /// before it existed: 1).
    #[serde(default = "one_thread", skip_serializing_if = "is_one_thread")]
    pub threads: usize,
    /// What the run under test is: the FNV-1a of its weights file (a run's
    /// `checkpoint.json`, a search net's file), so a resume with another run at the
    /// same path is refused; [`match_command`] fills it in (absent in matches from
    /// before it existed).
    #[serde(default)]
    pub run_identity: Option<String>,
    /// What each opponent is ([`Opponent::identity`]), so a resume against a replaced
    /// opponent run or engine binary is refused (absent in matches from before it
    /// existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_identities: Option<Vec<String>>,
    /// Both sides on this clock instead of `limit` and the run's node budget
    /// (absent in matches from before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControl>,
    /// The scale the opponents' ratings are on, as the report names it (absent:
    /// the engine's `UCI_Elo` labels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<String>,
}

fn one_thread() -> usize {
    1
}

fn is_one_thread(threads: &usize) -> bool {
    *threads == 1
}

/// The identity [`MatchSettings::run_identity`] records for `run`: the FNV-1a of its
/// weights file (a run's `checkpoint.json`, a search net's file, a chess run's
/// generations file, which names its newest incumbent), or for a chess run's
/// `generation` that of its net's weights alone (`net-fnv1a:`), which a
/// `resume --generations` that rebinds the file to a new config leaves unchanged.
pub fn run_identity(run: &Path, generation: Option<u32>) -> Result<String> {
    if run == Path::new(BUILTIN_MATERIAL) || generation == Some(0) {
        return Ok(BUILTIN_MATERIAL.to_string());
    }
    if run == Path::new(BUILTIN_NET) {
        let digest = burnmate_oracle::checksum::fnv1a(crate::studies::chess::compact::SHIPPED);
        return Ok(format!("{BUILTIN_NET} fnv1a:{digest:016x}"));
    }
    if let Some(generation) = generation {
        let net = crate::studies::chess::net_file::path(run, generation);
        let digest = crate::run::checkpoint::payload_digest(&net)?;
        return Ok(format!("net-fnv1a:{digest:016x}"));
    }
    let weights = if run.is_file() {
        run.to_path_buf()
    } else if run.join("checkpoint.json").exists() {
        run.join("checkpoint.json")
    } else {
        run.join(crate::studies::chess::generations::GENERATIONS_FILE)
    };
    file_identity(&weights)
}

/// `fnv1a:` and the FNV-1a of the file's bytes.
fn file_identity(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(format!(
        "fnv1a:{:016x}",
        burnmate_oracle::checksum::fnv1a(&bytes)
    ))
}

/// Whether `recorded` names the run `settings` plays: equal identities, or a match
/// recorded before generations had `net-fnv1a:` identities whose net file is
/// unchanged.
fn same_run(recorded: &str, settings: &MatchSettings) -> Result<bool> {
    let now = settings.run_identity.as_deref().unwrap_or(recorded);
    Ok(recorded == now
        || match settings.generation {
            Some(generation) if recorded.starts_with("fnv1a:") => {
                recorded
                    == file_identity(&crate::studies::chess::net_file::path(
                        &settings.run,
                        generation,
                    ))?
            }
            _ => false,
        })
}

impl MatchSettings {
    /// The run under test as a player, with its `threads`.
    fn run_player(&self) -> Result<Box<dyn crate::tools::uci_server::UciPlayer>> {
        let mut player = load_player(&self.run, self.search()?, self.features()?, self.generation)?;
        if self.threads != 1 {
            player
                .set_option("Threads", &self.threads.to_string())
                .map_err(|e| anyhow::anyhow!("--threads {}: {e}", self.threads))?;
        }
        Ok(player)
    }

    /// The side under test: a UCI engine ([`tested_engine::parse`]) searching as the
    /// opponents do, or the run's player.
    fn tested_player(&self, deadline: Duration) -> Result<Box<dyn Player>> {
        match tested_engine::parse(&self.run)? {
            Some(engine) => engine.start(
                &self.limit,
                self.search()?,
                deadline,
                self.time_control.is_some(),
            ),
            None => Ok(Box::new(RunPlayer(self.run_player()?))),
        }
    }

    /// What the side under test is ([`run_identity`], or an engine's identity).
    fn tested_identity(&self) -> Result<String> {
        match tested_engine::parse(&self.run)? {
            Some(engine) => engine.identity(),
            None => run_identity(&self.run, self.generation),
        }
    }

    /// Refuses settings that cannot make a match, in one line.
    pub fn check(&self) -> Result<()> {
        if self.games == 0 {
            bail!("--games must be at least 1");
        }
        if self.max_plies == 0 {
            bail!("--max-plies must be at least 1");
        }
        if self.opponents.is_empty() {
            bail!("a match needs an opponent");
        }
        self.search()?;
        engine_limit::move_deadline(&self.limit, engine_limit::DEFAULT_MOVE_TIMEOUT)?;
        if tested_engine::parse(&self.run)?.is_some()
            && (!self.with.is_empty()
                || !self.without.is_empty()
                || self.generation.is_some()
                || self.threads != 1
                || self.nodes.is_some())
        {
            bail!(
                "{}: an engine under test searches by --go or --tc; --with, --without, --generation, --threads and --nodes are for runs",
                self.run.display()
            );
        }
        if self.sprt.is_some() && self.opponents.len() > 1 {
            bail!(
                "--sprt needs one opponent, not a ladder of {}",
                self.opponents.len()
            );
        }
        if let Some((elo0, elo1)) = self.sprt {
            Sprt::new(elo0, elo1).map_err(anyhow::Error::msg)?;
        }
        Ok(())
    }

    /// How the run under test searches.
    fn search(&self) -> Result<PlaySearch> {
        PlaySearch::of(self.plies, self.nodes)
    }

    /// The rules of the run's engine-grade search that are on.
    fn features(&self) -> Result<Features> {
        Features::switched(&self.with, &self.without).map_err(anyhow::Error::msg)
    }

    /// The run's name in reports and PGN, with its search when it searches and the
    /// rules switched on or off.
    fn run_label(&self) -> String {
        let mut off = self
            .generation
            .map_or(String::new(), |g| format!(" generation {g}"));
        for (word, names) in [("with", &self.with), ("without", &self.without)] {
            if !names.is_empty() {
                off.push_str(&format!(" {word} {}", names.join(", ")));
            }
        }
        match self.search() {
            Ok(search) if search.searches() => {
                format!("{} ({}){off}", run_label(&self.run), search.label())
            }
            _ => format!("{}{off}", run_label(&self.run)),
        }
    }

    fn planned(&self) -> u64 {
        self.games * self.opponents.len() as u64
    }

    /// Game `n`'s opponent, opening and whether the run has white: games alternate
    /// colours, each pair from the next opening.
    fn game_plan(&self, n: u64, openings: usize) -> (usize, usize, bool) {
        let within = n % self.games;
        let opponent = (n / self.games) as usize;
        let opening = ((within / 2) % openings as u64) as usize;
        (opponent, opening, within.is_multiple_of(2))
    }
}

/// One opponent's results, as `summary.json` and the report give them.
#[derive(Clone, Debug, Serialize)]
pub struct OpponentResult {
    /// The opponent.
    pub opponent: String,
    /// Its rating, for a ladder.
    pub rating: Option<f64>,
    /// The run's games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// The run's games lost.
    pub losses: u64,
    /// The run's mean score.
    pub score: f64,
    /// The run's Elo over the opponent, with its 95 % interval (null: unbounded).
    pub elo: [f64; 3],
}

/// A match's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct MatchSummary {
    /// The run.
    pub run: String,
    /// The scale of the fitted rating.
    pub scale: String,
    /// Per opponent.
    pub opponents: Vec<OpponentResult>,
    /// The Elo fitted on the opponents' ratings, with its 95 % interval.
    pub rating: Option<[f64; 3]>,
    /// The SPRT's log-likelihood ratio and decision, if one ran.
    pub sprt: Option<(f64, String)>,
}

/// Plays (or resumes) the match of `settings` in `out` with `jobs` games at once,
/// each engine move allowed the time its limit grants plus `move_timeout`; prints
/// the report and returns the summary.
pub fn match_command(
    settings: &MatchSettings,
    out: &Path,
    jobs: usize,
    move_timeout: Duration,
) -> Result<MatchSummary> {
    anyhow::ensure!(jobs >= 1, "--jobs must be at least 1");
    settings.check()?;
    let deadline = engine_limit::move_deadline(&settings.limit, move_timeout)?;
    let openings = openings::load(settings.openings.as_deref())?;
    // Players that cannot start are refused before the directory is touched.
    settings.tested_player(deadline)?;
    // Each opponent is started once with its options (an option out of the engine's
    // declared range, such as UCI_Elo 1000 on Stockfish 15.1, is refused here).
    for opponent in &settings.opponents {
        let clocked = settings.time_control.is_some();
        drop(opponent.start(&settings.limit, settings.search()?, deadline, clocked)?);
    }
    let identified = MatchSettings {
        run_identity: Some(settings.tested_identity()?),
        opponent_identities: Some(
            settings
                .opponents
                .iter()
                .map(Opponent::identity)
                .collect::<Result<_>>()?,
        ),
        ..settings.clone()
    };
    let settings = &identified;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let _lock = lock_dir(out)?;
    adopt_settings(settings, out)?;
    let rows = read_rows(out)?;
    check_numbers(&rows, settings.planned())?;
    let adjudicator = Adjudicator::new(tablebase_dir());
    for row in &rows {
        let (_, opening, _) = settings.game_plan(row.game, openings.len());
        let damaged = || format!("{} game {} is damaged", record::RESULTS_FILE, row.game);
        let record = &row.record;
        let judged = rejudge(
            &openings[opening],
            &record.moves,
            &record.reason,
            settings.max_plies,
            &adjudicator,
        )
        .with_context(damaged)?;
        if judged != record.result {
            bail!(
                "{}: its result {} contradicts its moves, which give {}",
                damaged(),
                record.result.pgn(),
                judged.pgn()
            );
        }
    }
    let sprt = settings
        .sprt
        .map(|(elo0, elo1)| Sprt::new(elo0, elo1).map_err(anyhow::Error::msg))
        .transpose()?;
    // The schedule is streamed: memory grows with the games played, not asked for.
    let done: std::collections::HashSet<u64> = rows.iter().map(|r| r.game).collect();
    let pending = (0..settings.planned()).filter(move |n| !done.contains(n));
    let shared = Mutex::new(Progress {
        pending: Box::new(pending),
        rows,
        writer: RowWriter::open(out)?,
        failed: false,
    });
    let context = Worker {
        settings,
        deadline,
        openings: &openings,
        sprt,
        adjudicator: &adjudicator,
        shared: &shared,
    };
    let outcomes: Vec<Result<()>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs).map(|_| scope.spawn(|| context.work())).collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a match worker panicked"))
            .collect()
    });
    outcomes.into_iter().collect::<Result<Vec<()>>>()?;
    let mut rows = shared.into_inner().expect("no worker panicked").rows;
    rows.sort_by_key(|r| r.game);
    let summary = summarise(settings, &rows, sprt);
    write_atomic(
        &out.join("games.pgn"),
        pgn(settings, &openings, &rows).as_bytes(),
    )?;
    write_atomic(
        &out.join("summary.json"),
        serde_json::to_string_pretty(&summary)?.as_bytes(),
    )?;
    print!("{}", report(&summary, rows.len()));
    Ok(summary)
}

/// Records `settings` in a new match directory, or checks that a rerun asks for the
/// same match.
fn adopt_settings(settings: &MatchSettings, out: &Path) -> Result<()> {
    let path = out.join(SETTINGS_FILE);
    if path.exists() {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let recorded: MatchSettings = serde_json::from_str(&text)
            .with_context(|| format!("{} is damaged", path.display()))?;
        let same = match &recorded.run_identity {
            Some(identity) => same_run(identity, settings)?,
            None => true,
        };
        if !same {
            bail!(
                "{} holds a match of another run at {} (its weights changed since: {} then, {} now); choose another --out",
                out.display(),
                settings.run.display(),
                recorded.run_identity.as_deref().unwrap_or("?"),
                settings.run_identity.as_deref().unwrap_or("?")
            );
        }
        if let (Some(then), Some(now)) =
            (&recorded.opponent_identities, &settings.opponent_identities)
            && let Some(((was, is), opponent)) = then
                .iter()
                .zip(now)
                .zip(&settings.opponents)
                .find(|((was, is), _)| was != is)
        {
            bail!(
                "{} holds a match against another {} (it changed since: {was} then, {is} now); choose another --out",
                out.display(),
                opponent.label()
            );
        }
        let recorded = MatchSettings {
            run_identity: settings.run_identity.clone(),
            opponent_identities: settings.opponent_identities.clone(),
            ..recorded
        };
        if recorded != *settings {
            bail!(
                "{} holds a match with other settings (see its {SETTINGS_FILE}); rerun with them to resume, or choose another --out",
                out.display()
            );
        }
        return Ok(());
    }
    if !crate::run::files::is_empty_dir(out) {
        bail!(
            "{} is not empty and holds no match; choose another --out",
            out.display()
        );
    }
    write_atomic(&path, serde_json::to_string_pretty(settings)?.as_bytes())
}

/// The position after `moves` (UCI notation) from `start`, each checked legal.
fn replay(start: &Chess, moves: &[String]) -> Result<Vec<Move>> {
    let mut position = start.clone();
    moves
        .iter()
        .map(|text| {
            let mv = legal_move(&position, text)
                .with_context(|| format!("move '{text}' is not legal there"))?;
            position.play_unchecked(mv);
            Ok(mv)
        })
        .collect()
}

/// What the workers share.
struct Progress {
    pending: Box<dyn Iterator<Item = u64> + Send>,
    rows: Vec<Row>,
    writer: RowWriter,
    failed: bool,
}

struct Worker<'a> {
    settings: &'a MatchSettings,
    deadline: Duration,
    openings: &'a [Chess],
    sprt: Option<Sprt>,
    adjudicator: &'a Adjudicator,
    shared: &'a Mutex<Progress>,
}

impl Worker<'_> {
    /// One worker: takes the next pending game until none is left, the SPRT
    /// decides, or another worker failed.
    fn work(&self) -> Result<()> {
        let outcome = self.play_pending();
        if outcome.is_err() {
            self.shared.lock().expect("no worker panicked").failed = true;
        }
        outcome
    }

    fn play_pending(&self) -> Result<()> {
        let mut run = self.settings.tested_player(self.deadline)?;
        let mut opponents: Vec<Option<Box<dyn Player>>> =
            self.settings.opponents.iter().map(|_| None).collect();
        loop {
            let next = {
                let mut shared = self.shared.lock().expect("no worker panicked");
                if shared.failed || self.decided(&shared.rows) {
                    return Ok(());
                }
                shared.pending.next()
            };
            let Some(n) = next else { return Ok(()) };
            let (which, opening, run_white) = self.settings.game_plan(n, self.openings.len());
            let opponent = match &mut opponents[which] {
                Some(player) => player,
                slot => slot.insert(self.settings.opponents[which].start(
                    &self.settings.limit,
                    self.settings.search()?,
                    self.deadline,
                    self.settings.time_control.is_some(),
                )?),
            };
            let (white, black): (&mut dyn Player, &mut dyn Player) = if run_white {
                (run.as_mut(), opponent.as_mut())
            } else {
                (opponent.as_mut(), run.as_mut())
            };
            let record = play_game(
                white,
                black,
                &self.openings[opening],
                self.settings.max_plies,
                self.adjudicator,
                self.settings.time_control,
            )
            .with_context(|| {
                format!(
                    "game {} vs {}",
                    n + 1,
                    self.settings.opponents[which].label()
                )
            })?;
            let row = Row { game: n, record };
            let mut shared = self.shared.lock().expect("no worker panicked");
            shared.writer.append(&row)?;
            crate::note!(
                "game {}/{} vs {}: {} {}, {} ({}, {} plies)",
                n + 1,
                self.settings.planned(),
                self.settings.opponents[which].label(),
                run_label(&self.settings.run),
                if run_white { "white" } else { "black" },
                row.record.result.pgn(),
                row.record.reason,
                row.record.moves.len()
            );
            shared.rows.push(row);
            crash_point("match-game-recorded");
        }
    }

    fn decided(&self, rows: &[Row]) -> bool {
        self.sprt.is_some_and(|sprt| {
            sprt.decide(tally(self.settings, rows, 0)) != SprtDecision::Continue
        })
    }
}

/// The run's results against opponent `which` in `rows`.
fn tally(settings: &MatchSettings, rows: &[Row], which: usize) -> Tally {
    let mut t = Tally::default();
    for row in rows {
        let (opponent, _, run_white) = settings.game_plan(row.game, 1);
        if opponent != which {
            continue;
        }
        match (row.record.result, run_white) {
            (GameResult::Draw, _) => t.draws += 1,
            (GameResult::WhiteWins, true) | (GameResult::BlackWins, false) => t.wins += 1,
            _ => t.losses += 1,
        }
    }
    t
}

fn triple(e: EloEstimate) -> [f64; 3] {
    [e.elo, e.low, e.high]
}

/// The run's results against one opponent, its Elo difference with its interval.
fn opponent_result(opponent: String, rating: Option<f64>, t: Tally) -> OpponentResult {
    OpponentResult {
        opponent,
        rating,
        wins: t.wins,
        draws: t.draws,
        losses: t.losses,
        score: t.score(),
        elo: triple(elo_estimate(t)),
    }
}

fn summarise(settings: &MatchSettings, rows: &[Row], sprt: Option<Sprt>) -> MatchSummary {
    let opponents: Vec<OpponentResult> = settings
        .opponents
        .iter()
        .enumerate()
        .map(|(i, opponent)| {
            let rating = match opponent {
                Opponent::Engine { rating, .. } => *rating,
                Opponent::Run { .. } => None,
            };
            opponent_result(opponent.label(), rating, tally(settings, rows, i))
        })
        .collect();
    let rated: Option<Vec<(f64, Tally)>> = settings
        .opponents
        .iter()
        .enumerate()
        .map(|(i, o)| match o {
            Opponent::Engine {
                rating: Some(r), ..
            } => Some((*r, tally(settings, rows, i))),
            _ => None,
        })
        .collect();
    let sprt = sprt.map(|s| {
        let t = tally(settings, rows, 0);
        let decision = match s.decide(t) {
            SprtDecision::H0 => "H0 accepted",
            SprtDecision::H1 => "H1 accepted",
            SprtDecision::Continue => "undecided",
        };
        (s.llr(t), decision.to_string())
    });
    MatchSummary {
        run: settings.run_label(),
        scale: settings
            .scale
            .clone()
            .unwrap_or_else(|| "the engine's UCI_Elo scale".into()),
        opponents,
        rating: rated.and_then(|levels| ladder_fit(&levels)).map(triple),
        sprt,
    }
}

fn signed(elo: f64) -> String {
    let elo = elo + 0.0; // -0.0 prints as +0.0
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.into()
    } else {
        format!("{elo:+.1}")
    }
}

/// The report `burnmate match` prints.
pub fn report(summary: &MatchSummary, games: usize) -> String {
    let mut text = format!("{} after {games} games\n", summary.run);
    for o in &summary.opponents {
        text.push_str(&format!(
            "  vs {}: +{} ={} -{}, score {:.3}, Elo {} [{}, {}] (95 %)\n",
            o.opponent,
            o.wins,
            o.draws,
            o.losses,
            o.score,
            signed(o.elo[0]),
            signed(o.elo[1]),
            signed(o.elo[2])
        ));
    }
    if summary.opponents.iter().all(|o| o.rating.is_some()) {
        match summary.rating {
            Some([elo, low, high]) => text.push_str(&format!(
                "  rating on {}: {elo:.0} [{low:.0}, {high:.0}] (95 %)\n",
                summary.scale
            )),
            None => text.push_str("  rating: unbounded (every game won or every game lost)\n"),
        }
    }
    if let Some((llr, decision)) = &summary.sprt {
        text.push_str(&format!(
            "  SPRT: LLR {llr:.2} (bounds -2.94, 2.94): {decision}\n"
        ));
    }
    text
}

/// Every game of `rows` as PGN, in game order.
fn pgn(settings: &MatchSettings, openings: &[Chess], rows: &[Row]) -> String {
    let run = settings.run_label();
    rows.iter()
        .map(|row| {
            let (which, opening, run_white) = settings.game_plan(row.game, openings.len());
            let opponent = settings.opponents[which].label();
            let (white, black) = if run_white {
                (run.as_str(), opponent.as_str())
            } else {
                (opponent.as_str(), run.as_str())
            };
            let round = (row.game + 1).to_string();
            let moves = replay(&openings[opening], &row.record.moves).expect("checked on entry");
            crate::output::pgn::game_pgn(
                &[
                    ("Event", "burnmate match"),
                    ("Site", "burnmate"),
                    ("Date", "????.??.??"),
                    ("Round", &round),
                    ("White", white),
                    ("Black", black),
                    ("Termination", &row.record.reason),
                ],
                &openings[opening],
                &moves,
                row.record.result.pgn(),
            ) + "\n"
        })
        .collect()
}
