//! `burnmate train` and `burnmate resume` for `algorithm = "afterstate-td"`: the
//! afterstate learner trains by self-play and is measured every `eval_every` games
//! against a random mover, a one-ply material-greedy mover and (optionally)
//! Stockfish, each game adjudicated at the cap by material.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};
use burnmate_agents::afterstate::evaluate::{EvaluationScore, play_against, score};
use burnmate_agents::afterstate::trainer::{AfterstateLearner, LearnerState};
use burnmate_agents::afterstate::value_net::ValueNet;
use burnmate_agents::error::AgentError;
use burnmate_agents::init::uniform_layers;
use burnmate_agents::selfplay::trainer::Mover;
use burnmate_encode::side_to_move::FEATURES;
use burnmate_models::LayerWeights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::output::plot::{Series, line_chart};
use crate::run::Run;
use crate::run::driver::{Schedule, Trainer, drive};
use crate::run::files::{StreamedFile, config_stem, create_run_dir, write_atomic};
use crate::run::metrics::TrainingStats;
use crate::run::overrides::Overrides;
use crate::run::progress::{Progress, episode_bar};
use crate::studies::experiment::{Experiment, to_toml};
use crate::studies::selfplay::afterstate_eval::{EVAL_BATCH, evaluation_pgn, play_fixed_mover};
use crate::studies::selfplay::afterstate_file::{
    AfterstateCheckpoint, CHECKPOINT_FORMAT, learner_config,
};
use crate::studies::selfplay::config::SelfplayConfig;
use crate::studies::selfplay::game_record::{count_ending, game_row, training_pgn};
use crate::studies::selfplay::stockfish::StockfishMover;

/// Format of a resume point.
const RESUME_FORMAT: &str = "burnmate-afterstate-resume-v2";
/// Extra metric columns: black's reward and the latest minibatch loss.
const COLUMNS: [&str; 2] = ["black_reward", "loss"];
/// Evaluation opponents, in eval.csv's and the summary's order.
const OPPONENTS: [&str; 3] = ["random", "greedy", "stockfish"];

/// Everything an afterstate run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AfterstateSummary {
    /// Always "selfplay".
    pub study: String,
    /// Always "afterstate-td".
    pub algorithm: String,
    /// Training statistics (reward: white's material and mate rewards; won: white
    /// mated).
    #[serde(flatten)]
    pub training: TrainingStats,
    /// Games played side by side.
    pub envs: usize,
    /// Plies per second of training.
    pub positions_per_second: f64,
    /// Shares of training games by ending.
    pub endings: Vec<(String, f64)>,
    /// The last evaluation against a uniformly random mover.
    pub eval_random: EvaluationScore,
    /// The last evaluation against the one-ply material-greedy mover.
    pub eval_greedy: EvaluationScore,
    /// The last evaluation against Stockfish (when enabled).
    pub eval_stockfish: Option<EvaluationScore>,
}

/// What a run has gathered besides its metrics rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tally {
    done: u64,
    plies: u64,
    endings: Vec<(String, f64)>,
    /// EvaluationScore (%) after each evaluation, per opponent.
    curves: [Vec<(f64, f64)>; 3],
    last: [Option<EvaluationScore>; 3],
    seconds_before: f64,
    eval_seconds: f64,
    pgn_lines: usize,
    eval_lines: usize,
}

#[derive(Serialize, Deserialize)]
struct AfterstateResume {
    tally: Tally,
    learner: LearnerState,
}

fn layer_sizes(config: &SelfplayConfig) -> Vec<usize> {
    let mut sizes = vec![FEATURES];
    sizes.extend(config.afterstate().hidden);
    sizes.push(1);
    sizes
}

/// `burnmate train CONFIG` for the afterstate learner.
pub fn train_command(path: &Path, config: SelfplayConfig, overrides: &Overrides) -> Result<()> {
    let config = config.with_overrides(overrides);
    config.validate()?;
    if overrides.continue_from.is_some() {
        bail!(
            "--continue-from applies to algorithm = \"reference\"; a killed afterstate run continues with `burnmate resume RUN`"
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let device = config.backend.device()?.autodiff();
    let layers = uniform_layers(&layer_sizes(&config), &mut rng);
    let net = ValueNet::new(&layers, config.lr, device).map_err(|e| anyhow!(e))?;
    let learner = AfterstateLearner::new(learner_config(&config), net)?;
    let stockfish = start_stockfish(&config)?;
    let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
    let run = Run::start(
        &dir,
        &to_toml(&Experiment::Selfplay(config.clone()))?,
        &COLUMNS,
    )?;
    let pgn = StreamedFile::create(&dir.join("games.pgn"))?;
    let mut evals = StreamedFile::create(&dir.join("eval.csv"))?;
    evals.line("after_games,opponent,games,wins,mates,draws,losses,score,mean_plies")?;
    let files = Files { run, pgn, evals };
    continue_run(&config, learner, files, Tally::default(), rng, stockfish)
}

/// `burnmate resume RUN` for a killed afterstate run: continues from its last
/// evaluation, exactly.
pub fn resume_command(dir: &Path, config: &SelfplayConfig) -> Result<()> {
    config.validate()?;
    let stockfish = start_stockfish(config)?;
    let (run, point) = Run::resume::<AfterstateResume>(dir, RESUME_FORMAT, &COLUMNS)?;
    let AfterstateResume { tally, learner } = point.trainer;
    let pgn = StreamedFile::reopen(&dir.join("games.pgn"), tally.pgn_lines)?.0;
    let evals = StreamedFile::reopen(&dir.join("eval.csv"), tally.eval_lines)?.0;
    let device = config.backend.device()?.autodiff();
    let broken = |e: AgentError| anyhow!("resume point of {}: {e}", dir.display());
    let net = ValueNet::restore(&learner.net, config.lr, device).map_err(broken)?;
    let learner =
        AfterstateLearner::restore(learner_config(config), net, &learner).map_err(broken)?;
    let files = Files { run, pgn, evals };
    continue_run(
        config,
        learner,
        files,
        tally,
        point.rng.restore()?,
        stockfish,
    )
}

fn start_stockfish(config: &SelfplayConfig) -> Result<Option<StockfishMover>> {
    config
        .eval_stockfish
        .then(|| StockfishMover::start(config))
        .transpose()
}

struct Files {
    run: Run,
    pgn: StreamedFile,
    evals: StreamedFile,
}

/// The learner's scores against each opponent, written to eval.csv and the tally
/// (its time too); returns the PGN of one game with each colour per opponent.
fn evaluate(
    config: &SelfplayConfig,
    learner: &AfterstateLearner,
    rng: &mut ChaCha8Rng,
    stockfish: &mut Option<StockfishMover>,
    evals: &mut StreamedFile,
    t: &mut Tally,
) -> Result<String> {
    let started = Instant::now();
    let mut samples = String::new();
    let (games, cap) = (config.eval_games, config.afterstate().eval_max_plies);
    for (k, name) in OPPONENTS.iter().enumerate() {
        let outcomes = match k {
            0 | 1 => play_fixed_mover(learner, [Mover::Random, Mover::Greedy][k], games, cap, rng),
            _ => match stockfish.as_mut() {
                Some(engine) => {
                    play_against(learner, games, cap, EVAL_BATCH, |p| engine.choose(p))?
                }
                None => continue,
            },
        };
        let s = score(&outcomes);
        evals.line(&format!(
            "{},{name},{},{},{},{},{},{},{}",
            t.done, s.games, s.wins, s.mates, s.draws, s.losses, s.score, s.mean_plies
        ))?;
        t.curves[k].push((t.done as f64, 100.0 * s.score));
        t.last[k] = Some(s);
        for color in [Color::White, Color::Black] {
            if let Some(o) = outcomes.iter().find(|o| o.agent == color) {
                samples.push_str(&evaluation_pgn(t.done, name, o));
                samples.push('\n');
            }
        }
    }
    t.eval_seconds += started.elapsed().as_secs_f64();
    Ok(samples)
}

/// The afterstate learner as the study driver trains it.
struct AfterstateTrainer<'a> {
    config: &'a SelfplayConfig,
    learner: AfterstateLearner,
    pgn: StreamedFile,
    evals: StreamedFile,
    tally: Tally,
    stockfish: Option<StockfishMover>,
    /// Where the last evaluation's sample games go.
    samples: PathBuf,
    progress: &'a dyn Progress,
}

impl Trainer for AfterstateTrainer<'_> {
    type Resume = AfterstateResume;

    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()> {
        let settings = learner_config(self.config);
        let mut records = Vec::new();
        self.learner
            .train(to - from, rng, |record| records.push(record));
        let loss = self.learner.last_loss().map_or(f64::NAN, f64::from);
        let t = &mut self.tally;
        for record in records {
            let n = t.done;
            t.done += 1;
            t.plies += u64::from(record.plies);
            let row = game_row(n, &record, settings.epsilon(n));
            count_ending(&mut t.endings, row.outcome);
            run.metrics
                .record(row, &[f64::from(record.rewards[1]), loss])?;
            if (n + 1).is_multiple_of(self.config.pgn_every) {
                self.pgn
                    .line(&training_pgn(n, &record, ["afterstate-td"; 2]))?;
            }
            self.progress.advance(1);
        }
        Ok(())
    }

    /// Evaluates against every opponent and keeps the sample games.
    fn end_block(&mut self, _done: u64, rng: &mut ChaCha8Rng) -> Result<()> {
        let samples = evaluate(
            self.config,
            &self.learner,
            rng,
            &mut self.stockfish,
            &mut self.evals,
            &mut self.tally,
        )?;
        write_atomic(&self.samples, samples.as_bytes())?;
        self.pgn.flush()?;
        self.evals.flush()
    }

    fn check_finite(&self, done: u64) -> Result<()> {
        anyhow::ensure!(
            self.learner
                .net()
                .weights()
                .iter()
                .all(LayerWeights::is_finite),
            "training diverged by game {done}: the value net's weights became NaN or infinite; lower lr (now {})",
            self.config.lr
        );
        Ok(())
    }

    fn resume_state(&self, seconds: f64) -> Result<AfterstateResume> {
        Ok(AfterstateResume {
            tally: Tally {
                seconds_before: seconds,
                pgn_lines: self.pgn.lines(),
                eval_lines: self.evals.lines(),
                ..self.tally.clone()
            },
            learner: self.learner.snapshot().map_err(|e| anyhow!(e))?,
        })
    }
}

/// Trains to the configured games (a resume point and the last evaluation's sample
/// games after every evaluation), then writes the outputs and reports.
fn continue_run(
    config: &SelfplayConfig,
    learner: AfterstateLearner,
    files: Files,
    mut tally: Tally,
    mut rng: ChaCha8Rng,
    mut stockfish: Option<StockfishMover>,
) -> Result<()> {
    let Files {
        mut run,
        pgn,
        mut evals,
    } = files;
    let dir = run.dir().to_path_buf();
    let bar = episode_bar(config.games, &config_stem(&dir));
    bar.advance(tally.done);
    let first_evaluation = Instant::now();
    if tally.curves[0].is_empty() {
        evaluate(
            config,
            &learner,
            &mut rng,
            &mut stockfish,
            &mut evals,
            &mut tally,
        )?;
    }
    let schedule = Schedule {
        done: tally.done,
        total: config.games,
        block: config.eval_every,
        resume_every: Some(config.eval_every),
        seconds_before: tally.seconds_before + first_evaluation.elapsed().as_secs_f64(),
    };
    let mut trainer = AfterstateTrainer {
        config,
        learner,
        pgn,
        evals,
        tally,
        stockfish,
        samples: dir.join("eval-games.pgn"),
        progress: &bar,
    };
    let seconds = drive(&mut trainer, &mut run, RESUME_FORMAT, schedule, &mut rng)?;
    let AfterstateTrainer {
        learner,
        pgn,
        evals,
        tally: t,
        ..
    } = trainer;
    let wall_seconds = seconds - t.eval_seconds;
    bar.finish_and_clear();
    crate::run::checkpoint::save(
        &dir.join("checkpoint.json"),
        CHECKPOINT_FORMAT,
        &AfterstateCheckpoint {
            games: learner.games(),
            layers: learner.net().weights(),
        },
    )?;
    write_eval_chart(&dir.join("eval.svg"), &t.curves)?;
    let mut endings = t.endings.clone();
    for (_, count) in &mut endings {
        *count /= t.done.max(1) as f64;
    }
    let summary = AfterstateSummary {
        study: "selfplay".into(),
        algorithm: "afterstate-td".into(),
        training: run
            .metrics
            .stats(wall_seconds, config.backend.name(), config.seed),
        envs: config.envs,
        positions_per_second: t.plies as f64 / wall_seconds.max(1e-9),
        endings,
        eval_random: t.last[0].context("at least one evaluation")?,
        eval_greedy: t.last[1].context("at least one evaluation")?,
        eval_stockfish: t.last[2],
    };
    run.finish(&summary, [pgn, evals])?;
    say!("run directory   {}", dir.display());
    say!(
        "training        {} games in {:.1} s: {:.2} games/s, {:.0} positions/s, {} envs, {}",
        t.done,
        wall_seconds,
        summary.training.episodes_per_second,
        summary.positions_per_second,
        config.envs,
        summary.training.backend
    );
    print_scores(&t.last);
    Ok(())
}

/// `eval.svg`: the score against each fixed opponent over the training games.
fn write_eval_chart(path: &Path, curves: &[Vec<(f64, f64)>; 3]) -> Result<()> {
    let series: Vec<Series> = OPPONENTS
        .iter()
        .zip(curves)
        .filter(|(_, points)| !points.is_empty())
        .map(|(name, points)| Series {
            name: format!("vs {name}"),
            points: points.clone(),
        })
        .collect();
    let chart = line_chart(
        "afterstate-td: score against fixed opponents (wins + draws / 2)",
        "training games",
        "score (%)",
        &series,
    );
    write_atomic(path, chart.as_bytes())
}

/// A line a fixed opponent of the last evaluation: score, results, plies.
fn print_scores(last: &[Option<EvaluationScore>; 3]) {
    for (name, s) in OPPONENTS.iter().zip(last) {
        if let Some(s) = s {
            say!(
                "vs {name:<12} score {:.3}: {} won ({} by mate), {} drawn, {} lost of {}, {:.1} plies",
                s.score,
                s.wins,
                s.mates,
                s.draws,
                s.losses,
                s.games,
                s.mean_plies
            );
        }
    }
}
