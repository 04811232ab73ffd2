//! Command-line interface: parses arguments and hands each command to its study.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use burnmate_oracle::pawnless::Material;
use clap::{Parser, Subcommand};

use burnmate::device::backend::BackendChoice;
use burnmate::device::limits::MAX_BENCH_BATCH;
use burnmate::run::grid_dir::Shard;
use burnmate::run::overrides::Overrides;
use burnmate::studies::experiment::{Experiment, load_config_with};
use burnmate::studies::{endgame, queen4x4};
use burnmate::tools::{compare, matrix, solve, throughput, uci_server};
use burnmate_engine::Features;

mod fit_args;
mod match_args;
use fit_args::FitArgs;
mod play_args;
use play_args::PlayArgs;
mod eval_args;
use eval_args::EvalArgs;
use match_args::MatchArgs;

/// Reinforcement learning for chess endgames on Burn, measured against perfect play.
#[derive(Parser, Debug)]
#[command(name = "burnmate", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A config's run settings and `--set` keys on top of the file.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RunOverrides {
    #[command(flatten)]
    run: Overrides,
    /// Sets any config key, e.g. `--set lr=0.001 --set epsilon.min=0.2` (repeatable;
    /// unknown keys are errors).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

/// The steps of `burnmate generation`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum GenerationStepName {
    /// A new run of --config, no generation played.
    New,
    /// Train and gate the next generation's candidate.
    Prepare,
    /// Play one shard of its self-play.
    Play,
    /// Join its shards and record it.
    Record,
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
    /// Run a hyper-parameter grid (beta x gamma for queen4x4) and tabulate it
    /// (resumable: rerun with the same --out and options).
    Grid {
        /// Experiment config (TOML) whose other settings every grid run shares.
        config: PathBuf,
        /// Exploration decay values (comma-separated); default: the config's [grid].
        #[arg(long, value_delimiter = ',')]
        beta: Vec<f64>,
        /// Discount factors (comma-separated); default: the config's [grid].
        #[arg(long, value_delimiter = ',')]
        gamma: Vec<f64>,
        /// Run only shard i of N (every N-th cell from the i-th); `merge` joins shards.
        #[arg(long, value_name = "i/N")]
        shard: Option<String>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
        #[command(flatten)]
        overrides: RunOverrides,
    },
    /// Play the trained greedy policy and report win rate and mean moves.
    Eval(EvalArgs),
    /// Build (or load from cache) an exact distance-to-mate table and print its statistics.
    Solve {
        /// kqk, krk, kbbk, kbnk, any pawnless material up to five pieces, or
        /// material with pawns up to four ('k' + white pieces + 'k' + black pieces:
        /// kqkr, krbkr, kpk, krkp, kpkp ...).
        #[arg(value_parser = parse_material)]
        material: Material,
        /// Directory of cached tables (default: $BURNMATE_TABLEBASES, or `tablebases`).
        #[arg(long)]
        cache: Option<PathBuf>,
        /// Analyse this position (white to move): its verdict and every legal move's.
        #[arg(long)]
        fen: Option<String>,
        /// List this many start positions from the study's generator, with their verdicts.
        #[arg(long, default_value_t = 0)]
        starts: usize,
        /// Seed of the start generator.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Check every entry of the table against its successors (as Syzygy's
        /// `rtbver`) and print the count of inconsistent ones.
        #[arg(long)]
        verify: bool,
    },
    /// Print the evaluation results of several runs side by side.
    Compare {
        /// Run directories written by `train`.
        #[arg(required = true)]
        runs: Vec<PathBuf>,
    },
    /// Show one game of the trained policy, move by move.
    Play(PlayArgs),
    /// The engine's bench (OpenBench style): fixed positions searched to a fixed
    /// depth on one thread; the last line is `N nodes M nps`, N the same on every
    /// machine and run.
    Bench {
        /// The net (a compact chess net file, a chess run, builtin:material; default:
        /// the shipped net).
        #[arg(default_value = "builtin:net")]
        net: PathBuf,
        /// Depth each position is searched to.
        #[arg(long, default_value_t = burnmate_engine::bench::DEFAULT_DEPTH)]
        depth: u32,
        /// Search threads (Lazy SMP, as UCI `Threads`): nodes a second on several
        /// cores; only one thread's node count is a signature.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// One step of a chess run's next generation, so that its self-play spreads over
    /// machines (a Slurm job array: `scripts/slurm/chess-generations.sh`): `new`
    /// (a run of --config, nothing played), `prepare` (train and gate the candidate),
    /// `play --shard i/N` (block i of the self-play games), `record` (join the shards,
    /// write the generation's row).
    Generation {
        /// The chess run.
        run: PathBuf,
        /// new, prepare, play or record.
        #[arg(value_enum)]
        step: GenerationStepName,
        /// play: the block of games, i/N (1 <= i <= N).
        #[arg(long, required_if_eq("step", "play"))]
        shard: Option<String>,
        /// new: the chess config (TOML) of the run.
        #[arg(long, required_if_eq("step", "new"))]
        config: Option<PathBuf>,
    },
    /// Export a chess run's net as a compact file (`assets/nets/chess.bmnet` is one)
    /// that `uci`, `match` and `bench` play.
    Export {
        /// The chess run.
        run: PathBuf,
        /// The generation (default: the newest incumbent).
        #[arg(long)]
        generation: Option<u32>,
        /// The file to write (never replaced).
        #[arg(long)]
        out: PathBuf,
    },
    /// Measure forward and training-step throughput of every study's network.
    Throughput {
        /// Backends to measure (comma-separated).
        #[arg(long, value_enum, value_delimiter = ',', default_value = "flex")]
        backend: Vec<BackendChoice>,
        /// Batch sizes (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "1,64,1024,16384")]
        batch: Vec<usize>,
        /// Minimum seconds timed per measurement.
        #[arg(long, default_value_t = 0.5)]
        seconds: f64,
    },
    /// Every algorithm on every game, each cell next to the exact optimum: trains
    /// games x algorithms x seeds in parallel and writes matrix.md/.json/.svg
    /// (resumable: rerun with the same options).
    Matrix {
        /// Matrix directory; rerunning with the same options resumes it.
        #[arg(long, default_value = "runs/matrix")]
        out: PathBuf,
        #[command(flatten)]
        plan: matrix::MatrixPlan,
        /// Run only shard i of N (every N-th run from the i-th); `merge` joins shards.
        #[arg(long, value_name = "i/N")]
        shard: Option<String>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Merge shard directories of one `grid`, `study endgame` or `matrix` grid into one
    /// directory with the report an unsharded run writes.
    Merge {
        /// The merged directory (new).
        #[arg(long)]
        out: PathBuf,
        /// The shard directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Merge even when the shards do not hold every run of the grid.
        #[arg(long)]
        partial: bool,
    },
    /// Continue a killed run in place from its last resume point (its files end as
    /// an uninterrupted run's would).
    Resume {
        /// The run directory.
        run: PathBuf,
        /// A chess run only: continue to this many generations (more than its
        /// config asked for: a finished run learns on).
        #[arg(long)]
        generations: Option<u32>,
        /// With --generations: settings for the generations still to come (e.g.
        /// `--set epochs=1`), recorded in the run's `changes.txt`.
        #[arg(long = "set", value_name = "KEY=VALUE", requires = "generations")]
        set: Vec<String>,
    },
    /// Play a trained selfplay run (or an endgame Q-table, or a matrix's search net)
    /// as a UCI engine on stdin/stdout, for any chess GUI or match runner.
    Uci {
        /// The run directory, a compact chess net (`assets/nets/chess.bmnet`), a
        /// search net file a matrix wrote (`nets/kqk-mcts-0.json`), or
        /// builtin:material; default: the shipped chess net (builtin:net).
        #[arg(default_value = "builtin:net")]
        run: PathBuf,
        /// afterstate-td runs: plies of full-width search on the learned values.
        #[arg(long, default_value_t = 1)]
        plies: u32,
        /// afterstate-td runs: an alpha-beta search with quiescence on the learned
        /// values, this many positions a move (instead of --plies; `go` limits it).
        #[arg(long)]
        nodes: Option<u64>,
        /// Chess runs and builtin:material: rules of the engine-grade search to switch
        /// on that are off by default (null-move), to measure what each is worth.
        #[arg(long, value_delimiter = ',')]
        with: Vec<String>,
        /// Chess runs and builtin:material: rules of the engine-grade search to switch
        /// off (comma-separated: table, late-move-reductions, pvs, aspiration,
        /// check-extension, reverse-futility, futility, see), to measure what each is worth
        /// in a match.
        #[arg(long, value_delimiter = ',')]
        without: Vec<String>,
        /// Chess runs: the generation to play (its net, kept or not; 0: material
        /// values; default: the newest incumbent).
        #[arg(long)]
        generation: Option<u32>,
    },
    /// Play a trained run against a UCI engine or another run and report its Elo
    /// (resumable: rerun the same command).
    Match(MatchArgs),
    /// Fit one rating to the games of finished matches of one player, each opponent
    /// at its match's rating or at one given with --rating (e.g. a label ladder's
    /// rungs at the ratings measured from their games against each other).
    Fit(FitArgs),
    /// Run a study's whole grid of runs and write its tables and plots (resumable).
    Study {
        #[command(subcommand)]
        study: StudyCommand,
    },
}

/// The studies `burnmate study` runs.
#[derive(Subcommand, Debug)]
enum StudyCommand {
    /// Boar 2022: 3 endgames x engine/heuristic reward x static/decaying exploration
    /// x start positions x runs, each run of `--matches` matches; Table 3.2.
    Endgame {
        /// Study directory; rerunning with the same options resumes it.
        #[arg(long, default_value = "runs/study-endgame")]
        out: PathBuf,
        #[command(flatten)]
        plan: endgame::study_plan::StudyPlan,
        /// Run only shard i of N (every N-th pair of a static and a decaying run of one
        /// seed, from the i-th); `merge` joins shards.
        #[arg(long, value_name = "i/N")]
        shard: Option<String>,
        /// Worker threads (default: all cores).
        #[arg(long)]
        jobs: Option<usize>,
    },
}

/// Runs one parsed command.
pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Train { config, overrides } => load_config_with(&config, &overrides.set)?
            .study()
            .train(&config, &overrides.run),
        Command::Grid {
            config,
            beta,
            gamma,
            shard,
            jobs,
            overrides,
        } => match load_config_with(&config, &overrides.set)? {
            Experiment::Queen4x4(study) => {
                distinct("beta", &beta, f64::to_string)?;
                distinct("gamma", &gamma, f64::to_string)?;
                let options = queen4x4::grid::GridOptions {
                    betas: beta,
                    gammas: gamma,
                    shard: shard.as_deref().map(Shard::parse).transpose()?,
                    jobs: jobs_or_cores(jobs)?,
                };
                queen4x4::grid::grid_command(&config, study, options, &overrides.run)
            }
            _ => anyhow::bail!("grid is defined for queen4x4 configs only"),
        },
        Command::Eval(args) => args.run(),
        Command::Compare { runs } => compare::compare_command(&runs),
        Command::Solve {
            material,
            cache,
            fen,
            starts,
            seed,
            verify,
        } => solve::solve_command(&solve::SolveRequest {
            material,
            cache_dir: &cache.unwrap_or_else(burnmate::run::tablebases::tablebase_dir),
            fen: fen.as_deref(),
            starts,
            seed,
            verify,
        }),
        Command::Play(args) => args.run(),
        Command::Bench {
            net,
            depth,
            threads,
        } => {
            anyhow::ensure!(
                (1..=burnmate_engine::limits::MAX_DEPTH).contains(&depth),
                "--depth must lie in 1..={}",
                burnmate_engine::limits::MAX_DEPTH
            );
            anyhow::ensure!(
                (1..=burnmate_engine::smp::MAX_THREADS).contains(&threads),
                "--threads must lie in 1..={}",
                burnmate_engine::smp::MAX_THREADS
            );
            burnmate::tools::engine_bench::bench_command(&net, depth, threads)
        }
        Command::Generation {
            run,
            step,
            shard,
            config,
        } => generation_command(&run, step, shard.as_deref(), config),
        Command::Export {
            run,
            generation,
            out,
        } => burnmate::studies::chess::compact::export(&run, generation, &out),
        Command::Throughput {
            backend,
            batch,
            seconds,
        } => throughput_command(&backend, &batch, seconds),
        Command::Matrix {
            out,
            plan,
            shard,
            jobs,
        } => {
            let shard = shard.as_deref().map(Shard::parse).transpose()?;
            matrix::matrix_command(&out, &plan, shard, jobs_or_cores(jobs)?)
        }
        Command::Resume {
            run,
            generations,
            set,
        } => resume_command(&run, generations, &set),
        Command::Match(args) => args.run(),
        Command::Fit(args) => args.run(),
        Command::Uci {
            run,
            plies,
            nodes,
            with,
            without,
            generation,
        } => {
            let search = uci_server::players::PlaySearch::of(plies, nodes)?;
            let features = Features::switched(&with, &without).map_err(anyhow::Error::msg)?;
            let mut player = uci_server::players::load_player(&run, search, features, generation)?;
            uci_server::serve(player.as_mut(), std::io::stdin().lock(), std::io::stdout())
        }
        Command::Merge { out, dirs, partial } => merge_command(&out, &dirs, partial),
        Command::Study { study } => match study {
            StudyCommand::Endgame {
                out,
                plan,
                shard,
                jobs,
            } => {
                let shard = shard.as_deref().map(Shard::parse).transpose()?;
                endgame::study::study_command(&out, &plan, shard, jobs_or_cores(jobs)?)
            }
        },
    }
}

/// `burnmate generation RUN STEP`: one step of a chess run's next generation.
fn generation_command(
    run: &Path,
    step: GenerationStepName,
    shard: Option<&str>,
    config: Option<PathBuf>,
) -> Result<()> {
    use burnmate::studies::chess::shards::{Step, run_step};
    let step = match step {
        GenerationStepName::New => Step::New(config.expect("clap requires --config")),
        GenerationStepName::Prepare => Step::Prepare,
        GenerationStepName::Play => {
            Step::Play(Shard::parse(shard.expect("clap requires --shard"))?)
        }
        GenerationStepName::Record => Step::Record,
    };
    run_step(run, step)
}

/// `burnmate throughput`: the table of every study's network on each backend.
fn throughput_command(backends: &[BackendChoice], batch: &[usize], seconds: f64) -> Result<()> {
    anyhow::ensure!(
        batch.iter().all(|&b| (1..=MAX_BENCH_BATCH).contains(&b)),
        "--batch sizes must lie in 1..={MAX_BENCH_BATCH}"
    );
    anyhow::ensure!(
        seconds.is_finite() && seconds > 0.0,
        "--seconds must be a positive number, not {seconds}"
    );
    burnmate::say!("{}", throughput::TABLE_HEADER);
    for choice in backends {
        let device = choice.device()?;
        let print = |row: String| burnmate::say!("{row}");
        throughput::table(
            choice.name(),
            &device,
            &throughput::ModelKind::ALL,
            batch,
            seconds,
            print,
        );
        burnmate::tools::search_throughput::table(choice.name(), &device, batch, seconds, print);
    }
    Ok(())
}

/// `burnmate resume RUN [--generations N --set ...]`: a killed run continued, or a
/// chess run extended to `generations`.
fn resume_command(run: &Path, generations: Option<u32>, set: &[String]) -> Result<()> {
    match (
        load_config_with(&run.join("config.toml"), set)?,
        generations,
    ) {
        (Experiment::Chess(config), Some(n)) => {
            burnmate::studies::chess::extend(run, &config, n, set)
        }
        (_, Some(_)) => bail!(
            "--generations extends a chess run; {} is another study's run",
            run.display()
        ),
        (experiment, None) => experiment.study().resume(run),
    }
}

/// `burnmate merge`: shards of a matrix, a queen4x4 grid or an endgame study,
/// told apart by the plan file of the first.
fn merge_command(out: &Path, dirs: &[PathBuf], partial: bool) -> Result<()> {
    let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    if dirs[0].join(matrix::PLAN_FILE).exists() {
        matrix::merge_command(out, &dirs, partial)
    } else if dirs[0].join(queen4x4::grid::PLAN_FILE).exists() {
        queen4x4::grid::merge_command(out, &dirs, partial)
    } else {
        endgame::study::merge_command(out, &dirs, partial)
    }
}

/// Refuses a list option that names one value twice (two cells of a grid would
/// race on one directory and every row would be reported twice), in the words of
/// the matrix's and the endgame study's own checks.
fn distinct<T: PartialEq>(option: &str, values: &[T], name: impl Fn(&T) -> String) -> Result<()> {
    match values
        .iter()
        .enumerate()
        .find(|(i, v)| values[..*i].contains(v))
    {
        Some((_, v)) => anyhow::bail!("--{option} {} is listed twice", name(v)),
        None => Ok(()),
    }
}

/// Worker threads when `--jobs` is not given: every core.
/// `--jobs`: the value given (at least 1, else a one-line error) or one per core.
fn jobs_or_cores(jobs: Option<usize>) -> Result<usize> {
    match jobs {
        Some(0) => anyhow::bail!("--jobs must be at least 1"),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
    }
}

/// A material name for `solve` (clap's parser: the error is its one line).
fn parse_material(name: &str) -> Result<Material, String> {
    Material::parse(name).map_err(|e| e.to_string())
}
