//! `burnmate eval`: its arguments and the evaluation they ask of a run's study.

use std::path::PathBuf;

use anyhow::Result;
use burnmate::device::backend::BackendChoice;
use burnmate::studies::experiment::{Experiment, load_config};
use burnmate::studies::search::evaluation::MovesLeftTerm;
use burnmate::studies::search::evaluation::SearchEvalOptions;
use burnmate::studies::study::{EvalRequest, refuse_stockfish_skills};
use burnmate_env::tactics::ForcingMoves;

/// `burnmate eval`'s arguments.
#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// A run directory written by `train`, or a search net file a matrix wrote
    /// (`nets/kqk-mcts-0.json`: it plays the matrix's won starts against the
    /// perfect defender, with its search and as a raw policy).
    pub run: PathBuf,
    /// Number of games (a search net: the first N of the matrix's starts).
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// Seed of the evaluation games (default 1; a search net: its own seed, as
    /// the matrix evaluated it).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Search net: simulations a move (default: the matrix's 128).
    #[arg(long)]
    pub simulations: Option<u32>,
    /// Search net with a moves-left head: value of one ply sooner in the
    /// search's move choice (default: the matrix's).
    #[arg(long)]
    pub moves_left_slope: Option<f32>,
    /// Search net with a moves-left head: the most the moves-left term moves a
    /// move's value (default: the matrix's).
    #[arg(long)]
    pub moves_left_cap: Option<f32>,
    /// Search net: share of each node's prior spread over its forcing moves
    /// (default: the ending's, 0.5 in KQKR, KRKB, KRKN and KBNK, else 0).
    #[arg(long)]
    pub forcing_share: Option<f32>,
    /// Search net: which moves are forcing, checks-captures, captures-threats or
    /// all (default: the ending's: all in KRKB and KRKN, captures-threats in KBNK,
    /// else checks-captures).
    #[arg(long)]
    pub forcing_moves: Option<ForcingMoves>,
    /// Burn backend to evaluate on.
    #[arg(long, value_enum, default_value_t = BackendChoice::Flex)]
    pub backend: BackendChoice,
    /// selfplay afterstate runs: also play Stockfish at these Skill Levels
    /// (comma-separated, 0 = weakest), at the run's stockfish_depth.
    #[arg(long, value_delimiter = ',')]
    pub stockfish_skills: Vec<u8>,
}

impl EvalArgs {
    /// Evaluates the run the arguments name.
    pub fn run(self) -> Result<()> {
        let EvalArgs {
            run,
            games,
            seed,
            simulations,
            moves_left_slope,
            moves_left_cap,
            forcing_share,
            forcing_moves,
            backend,
            stockfish_skills,
        } = self;
        anyhow::ensure!(games > 0, "--games must be positive");
        let search = SearchEvalOptions {
            seed,
            simulations,
            moves_left: MovesLeftTerm {
                slope: moves_left_slope,
                cap: moves_left_cap,
            },
            forcing_share,
            forcing_moves,
        };
        let request = EvalRequest {
            run: &run,
            games,
            seed: seed.unwrap_or(1),
            backend,
            stockfish_skills: &stockfish_skills,
            search,
        };
        if burnmate::studies::chess::compact::names_a_compact_net(&run) {
            anyhow::bail!(
                "a chess net is measured in games: `burnmate match {} --gauntlet configs/gauntlet-ccrl.toml --tc 10+0.1 --out DIR` rates it",
                run.display()
            );
        }
        if run.is_file() {
            // A search net file (a matrix's or a shipped compact one): no run directory.
            refuse_stockfish_skills(&request)?;
            return burnmate::studies::search::evaluation::eval_command(
                &run, games, &search, backend,
            );
        }
        let experiment = load_config(&run.join("config.toml"))?;
        let search_only = simulations.is_some() || search.moves_left != MovesLeftTerm::default();
        if search_only && !matches!(experiment, Experiment::Search(_)) {
            anyhow::bail!(
                "--simulations and --moves-left-* apply to search nets (search runs, nets/*.json of a matrix)"
            );
        }
        experiment.study().eval(&request)
    }
}
