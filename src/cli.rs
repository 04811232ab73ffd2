//! Command-line interface: parses arguments and hands each command to its study.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};

use crate::backend::BackendChoice;
use crate::config::{Experiment, load_config};
use crate::{compare, endgame, knight, queen4x4, solve};

/// Reinforcement learning for chess endgames on Burn, measured against perfect play.
#[derive(Parser, Debug)]
#[command(name = "burnmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Overrides of a config file's run settings.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RunOverrides {
    /// Output directory (default: runs/<config-stem>-<UTC time>); must not exist yet.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Burn backend to train on.
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Seed of the run's random number generator.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of training episodes.
    #[arg(long)]
    pub episodes: Option<u64>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Train an agent from a config file; writes a new run directory.
    Train {
        /// Experiment config (TOML), e.g. configs/queen4x4-sarsa.toml.
        config: PathBuf,
        #[command(flatten)]
        overrides: RunOverrides,
    },
    /// Run a hyper-parameter grid (beta x gamma for queen4x4) and tabulate it.
    Grid {
        /// Experiment config (TOML) whose other settings every grid run shares.
        config: PathBuf,
        /// Exploration decay values (comma-separated); default: the config's [grid].
        #[arg(long, value_delimiter = ',')]
        beta: Vec<f64>,
        /// Discount factors (comma-separated); default: the config's [grid].
        #[arg(long, value_delimiter = ',')]
        gamma: Vec<f64>,
        #[command(flatten)]
        overrides: RunOverrides,
    },
    /// Play the trained greedy policy and report win rate and mean moves.
    Eval {
        /// A run directory written by `train`.
        run: PathBuf,
        /// Number of games.
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// Seed of the evaluation games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Burn backend to evaluate on.
        #[arg(long, value_enum, default_value_t = BackendChoice::Flex)]
        backend: BackendChoice,
    },
    /// Build (or load from cache) an exact distance-to-mate table and print its statistics.
    Solve {
        /// kqk, krk or kbbk.
        endgame: String,
        /// Directory of cached tables.
        #[arg(long, default_value = "tablebases")]
        cache: PathBuf,
        /// Analyse this position (white to move): its verdict and every legal move's.
        #[arg(long)]
        fen: Option<String>,
        /// List this many start positions from the study's generator, with their verdicts.
        #[arg(long, default_value_t = 0)]
        starts: usize,
        /// Seed of the start generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Print the evaluation results of several runs side by side.
    Compare {
        /// Run directories written by `train`.
        #[arg(required = true)]
        runs: Vec<PathBuf>,
    },
    /// Show one game of the trained policy, move by move.
    Play {
        /// A run directory written by `train`.
        run: PathBuf,
        /// Start position, e.g. "Qa1 Ka2 / Kc2" (white pieces / black king).
        #[arg(long, default_value = "Qa1 Ka2 / Kc2")]
        start: String,
        /// Seed of the black king's random moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Stop after this many white moves.
        #[arg(long, default_value_t = 50)]
        max_moves: u32,
    },
}

/// Runs one parsed command.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Train { config, overrides } => match load_config(&config)? {
            Experiment::Queen4x4(study) => {
                queen4x4::train::train_command(&config, study, &overrides)
            }
            Experiment::Knight(study) => knight::train::train_command(&config, study, &overrides),
            Experiment::Endgame(study) => endgame::train::train_command(&config, study, &overrides),
        },
        Command::Grid {
            config,
            beta,
            gamma,
            overrides,
        } => match load_config(&config)? {
            Experiment::Queen4x4(study) => {
                queen4x4::grid::grid_command(&config, study, beta, gamma, &overrides)
            }
            Experiment::Knight(_) | Experiment::Endgame(_) => {
                anyhow::bail!("grid is defined for queen4x4 configs only")
            }
        },
        Command::Eval {
            run,
            games,
            seed,
            backend,
        } => match load_config(&run.join("config.toml"))? {
            Experiment::Queen4x4(_) => queen4x4::eval::eval_command(&run, games, seed, backend),
            Experiment::Knight(_) => knight::eval::eval_command(&run, games, seed, backend),
            Experiment::Endgame(_) => endgame::train::eval_command(&run, games, seed),
        },
        Command::Compare { runs } => compare::compare_command(&runs),
        Command::Solve {
            endgame,
            cache,
            fen,
            starts,
            seed,
        } => solve::solve_command(&solve::SolveRequest {
            name: &endgame,
            cache_dir: &cache,
            fen: fen.as_deref(),
            starts,
            seed,
        }),
        Command::Play {
            run,
            start,
            seed,
            max_moves,
        } => queen4x4::play::play_command(&run, &start, seed, max_moves),
    }
}
