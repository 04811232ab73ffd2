//! `burnmate match`: its arguments and how they become a match.

use std::path::PathBuf;

use anyhow::Result;
use burnmate::tools::match_play;

use super::jobs_or_cores;

/// `burnmate match`'s arguments.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The run directory (a selfplay or endgame run).
    pub run: PathBuf,
    /// Directory of the match's games, PGN and summary.
    #[arg(long)]
    pub out: PathBuf,
    /// The UCI engine to play (a name on $PATH or a path).
    #[arg(long, default_value = "stockfish")]
    pub engine: String,
    /// Play this run instead of an engine (it searches as RUN does: the same
    /// --plies or --nodes, every rule on).
    #[arg(long, conflicts_with_all = ["uci_elo", "skill"])]
    pub opponent_run: Option<PathBuf>,
    /// Limit the engine to these UCI_Elo ratings (comma-separated; several make a
    /// ladder that fits one Elo on the engine's scale; Stockfish 15.1: 1350-2850).
    #[arg(long, value_delimiter = ',', conflicts_with = "skill")]
    pub uci_elo: Vec<u32>,
    /// Stockfish's Skill Level (0 = weakest, 20 = full strength).
    #[arg(long)]
    pub skill: Option<u8>,
    /// Play the engines of a gauntlet file instead (configs/gauntlet-ccrl.toml),
    /// each at its published rating: the fit is on the gauntlet's scale.
    #[arg(long, conflicts_with_all = ["uci_elo", "skill", "opponent_run", "engine"])]
    pub gauntlet: Option<PathBuf>,
    /// The engine's search limit: the arguments of UCI `go` (default: a node count,
    /// so a match means the same on any CPU and under any load).
    #[arg(long, default_value = "nodes 50000")]
    pub go: String,
    /// Both sides on a clock instead: BASE+INC in seconds, e.g. 10+0.1 (the run
    /// searches by its clock too, not by nodes).
    #[arg(long, conflicts_with = "go")]
    pub tc: Option<String>,
    /// Seconds an engine move may take beyond the time `--go` grants before the
    /// engine is told `stop` (one that then sends no move ends the match).
    #[arg(long, default_value_t = 60.0)]
    pub move_timeout: f64,
    /// Games against each opponent (colours alternate; each pair shares an opening).
    #[arg(long, default_value_t = 100)]
    pub games: u64,
    /// Openings as EPD or FEN lines (default: the shipped data/openings.epd).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 400)]
    pub max_plies: u32,
    /// afterstate-td runs: plies of full-width search on the learned values.
    #[arg(long, default_value_t = 1)]
    pub plies: u32,
    /// afterstate-td runs: an alpha-beta search with quiescence on the learned
    /// values, this many positions a move (instead of --plies; `go` limits it).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Stop when an SPRT of elo0 against elo1 (α = β = 0.05) decides, e.g. 0,50.
    #[arg(long, value_delimiter = ',', num_args = 1, value_name = "ELO0,ELO1")]
    pub sprt: Vec<f64>,
    /// Chess runs and builtin:material: rules of the run's engine-grade search to
    /// switch off (as `uci --without`), e.g. to rate generation 0 without one.
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
    /// Chess runs and builtin:material: rules switched on (as `uci --with`).
    #[arg(long, value_delimiter = ',')]
    pub with: Vec<String>,
    /// Chess runs: the generation to play (as `uci --generation`), e.g. to rate
    /// a snapshot while the run learns on.
    #[arg(long)]
    pub generation: Option<u32>,
    /// Chess runs and nets: search threads of the run under test (UCI `Threads`,
    /// Lazy SMP), e.g. to measure what a second thread is worth at a clock.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Games played at once (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
}

impl MatchArgs {
    /// Plays (or resumes) the match the arguments describe.
    pub fn run(self) -> Result<()> {
        let MatchArgs {
            run,
            out,
            engine,
            opponent_run,
            uci_elo,
            skill,
            gauntlet,
            go,
            tc,
            move_timeout,
            games,
            openings,
            max_plies,
            plies,
            nodes,
            sprt,
            with,
            without,
            generation,
            threads,
            jobs,
        } = self;
        let move_timeout = std::time::Duration::try_from_secs_f64(move_timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| {
                anyhow::anyhow!("--move-timeout must be a positive number of seconds")
            })?;
        let sprt = match sprt[..] {
            [] => None,
            [elo0, elo1] => Some((elo0, elo1)),
            _ => anyhow::bail!("--sprt takes two numbers, elo0,elo1 (e.g. 0,50)"),
        };
        let gauntlet = gauntlet
            .as_deref()
            .map(match_play::gauntlet::Gauntlet::load)
            .transpose()?;
        let opponents = match (&gauntlet, opponent_run) {
            (Some(gauntlet), _) => gauntlet.opponents(),
            (None, Some(run)) => vec![match_play::Opponent::Run { run }],
            (None, None) => match_play::engine_opponents(&engine, &uci_elo, skill),
        };
        let settings = match_play::MatchSettings {
            run,
            opponents,
            limit: go,
            games,
            openings,
            max_plies,
            plies,
            nodes,
            sprt,
            with,
            without,
            generation,
            threads,
            run_identity: None,
            opponent_identities: None,
            time_control: tc
                .as_deref()
                .map(match_play::TimeControl::parse)
                .transpose()?,
            scale: gauntlet.map(|g| g.scale),
        };
        let jobs = jobs_or_cores(jobs)?;
        match_play::match_command(&settings, &out, jobs, move_timeout).map(|_| ())
    }
}
