//! `burnmate train` for the selfplay study: two sides learn by playing each other,
//! evaluated every `eval_every` games against a random and a material-greedy mover.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use burnmate_agents::selfplay::net::{SELECTORS, initial_weights};
use burnmate_agents::selfplay::net::{SelectorSet, SelectorSetState};
use burnmate_agents::selfplay::trainer::{GameRecord, Mover, SelfPlay};
use burnmate_models::conv_selector::SelectorWeights;
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
use crate::studies::selfplay::config::SelfplayConfig;
use crate::studies::selfplay::game_record::{count_ending, game_row, training_pgn};
use crate::studies::selfplay::model_file::{self, SelfplayState};
use crate::studies::selfplay::stockfish::StockfishMover;

/// Results of the learning sides against one fixed mover.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Training games played when measured.
    pub after_games: u64,
    /// Games played.
    pub games: u64,
    /// Share won by the learning side.
    pub win: f64,
    /// Share drawn.
    pub draw: f64,
    /// Share lost.
    pub loss: f64,
    /// Mean plies per game.
    pub mean_plies: f64,
}

/// Everything a selfplay run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SelfplaySummary {
    /// Always "selfplay".
    pub study: String,
    /// Training statistics (reward: white's summed reward; won: white mated).
    #[serde(flatten)]
    pub training: TrainingStats,
    /// Games played side by side.
    pub envs: usize,
    /// Plies (positions) per second of training.
    pub positions_per_second: f64,
    /// Training games before this run (a resumed run continues a checkpoint).
    pub games_before: u64,
    /// Shares of training games by ending.
    pub endings: Vec<(String, f64)>,
    /// The last evaluation against a uniformly random mover.
    pub eval: Evaluation,
    /// The last evaluation against a one-ply material-greedy mover.
    pub eval_greedy: Evaluation,
    /// The last evaluation against Stockfish at `stockfish_skill` (when enabled).
    pub eval_stockfish: Option<Evaluation>,
}

fn summarise(after_games: u64, results: &[(Color, GameRecord)]) -> Evaluation {
    let n = results.len().max(1) as f64;
    let won = results.iter().filter(|(c, r)| r.winner == Some(*c)).count() as f64;
    let lost = results
        .iter()
        .filter(|(c, r)| r.winner == Some(!*c))
        .count() as f64;
    Evaluation {
        after_games,
        games: results.len() as u64,
        win: won / n,
        draw: (n - won - lost) / n,
        loss: lost / n,
        mean_plies: results.iter().map(|(_, r)| f64::from(r.plies)).sum::<f64>() / n,
    }
}

/// The win curves of eval.svg: random, greedy and (when it played) Stockfish.
fn eval_series(curves: &[Vec<(f64, f64)>; 3], skill: u8) -> Vec<Series> {
    let names = [
        "vs random mover".to_string(),
        "vs greedy mover".to_string(),
        format!("vs Stockfish skill {skill}"),
    ];
    names
        .into_iter()
        .zip(curves)
        .filter(|(_, points)| !points.is_empty())
        .map(|(name, points)| Series {
            name,
            points: points.clone(),
        })
        .collect()
}

fn fresh_state(seed: u64, config: &SelfplayConfig) -> (SelfplayState, ChaCha8Rng) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut side = || -> Vec<_> {
        (0..SELECTORS)
            .map(|_| initial_weights(config.padding, &mut rng))
            .collect()
    };
    let (white, black) = (side(), side());
    let state = SelfplayState {
        games_played: 0,
        rng_seed: rng.get_seed(),
        rng_word_pos: rng.get_word_pos().to_string(),
        white,
        black,
    };
    (state, rng)
}

fn resumed_state(run: &Path) -> Result<(SelfplayState, ChaCha8Rng)> {
    let state = model_file::load(run)?;
    let mut rng = ChaCha8Rng::from_seed(state.rng_seed);
    let pos: u128 = state
        .rng_word_pos
        .parse()
        .map_err(|_| anyhow!("checkpoint in {}: bad rng_word_pos", run.display()))?;
    rng.set_word_pos(pos);
    Ok((state, rng))
}

/// `burnmate train CONFIG` for the study's learner (`--continue-from RUN` continues RUN
/// in a new directory).
pub fn train_command(path: &Path, config: SelfplayConfig, overrides: &Overrides) -> Result<()> {
    let config = config.with_overrides(overrides);
    config.validate()?;
    let (state, rng) = match &overrides.continue_from {
        Some(run) => resumed_state(run)?,
        None => fresh_state(config.seed, &config),
    };
    if let Some(run) = &overrides.continue_from {
        let held = state.white.iter().chain(&state.black).map(|w| w.padding);
        if let Some(padding) = held.into_iter().find(|&p| p != config.padding) {
            anyhow::bail!(
                "--continue-from {}: its selectors use padding {padding:?}, the config says {:?}; resume with the run's own config ({})",
                run.display(),
                config.padding,
                run.join("config.toml").display()
            );
        }
    }
    let play = model_file::sides(&config, &state)?;
    let games_before = state.games_played;
    drop(state);
    let stockfish = start_stockfish(&config)?;
    let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
    let run = Run::start(
        &dir,
        &to_toml(&Experiment::Selfplay(config.clone()))?,
        &COLUMNS,
    )?;
    let pgn = StreamedFile::create(&dir.join("games.pgn"))?;
    let mut evals = StreamedFile::create(&dir.join("eval.csv"))?;
    evals.line("after_games,opponent,games,win,draw,loss,mean_plies")?;
    let tally = Tally {
        games_before,
        ..Tally::default()
    };
    let files = Files { run, pgn, evals };
    continue_run(&config, play, files, tally, rng, stockfish)?;
    Ok(())
}

/// `burnmate resume RUN` for a killed run of the study's learner: continues from its last
/// evaluation.
pub fn resume_command(dir: &Path, config: &SelfplayConfig) -> Result<()> {
    config.validate()?;
    let stockfish = start_stockfish(config)?;
    let (run, point) = Run::resume::<SelfplayResume>(dir, RESUME_FORMAT, &COLUMNS)?;
    let SelfplayResume {
        tally,
        white,
        black,
    } = point.trainer;
    let pgn = StreamedFile::reopen(&dir.join("games.pgn"), tally.pgn_lines)?.0;
    let evals = StreamedFile::reopen(&dir.join("eval.csv"), tally.eval_lines)?.0;
    let device = config.backend.device()?.autodiff();
    let side = |state| {
        SelectorSet::restore(config.net(), device.clone(), state)
            .map_err(|e| anyhow!("resume point of {}: {e}", dir.display()))
    };
    let play = SelfPlay::new(config.play(), side(&white)?, side(&black)?)?;
    let files = Files { run, pgn, evals };
    continue_run(config, play, files, tally, point.rng.restore()?, stockfish)?;
    Ok(())
}

/// Format of a selfplay resume point.
const RESUME_FORMAT: &str = "burnmate-selfplay-resume-v1";

/// The selfplay study's extra metric column.
const COLUMNS: [&str; 1] = ["black_reward"];

/// Stockfish, when the config evaluates against it.
fn start_stockfish(config: &SelfplayConfig) -> Result<Option<StockfishMover>> {
    Ok(if config.eval_stockfish {
        Some(StockfishMover::start(config)?)
    } else {
        None
    })
}

/// The files a selfplay run streams.
struct Files {
    run: Run,
    pgn: StreamedFile,
    evals: StreamedFile,
}

/// What a selfplay run has gathered besides its metrics rows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Tally {
    /// Training games before this run (a run with `--continue-from` continues a checkpoint).
    games_before: u64,
    /// Training games of this run so far.
    done: u64,
    /// Their plies.
    plies: u64,
    /// Games by ending.
    endings: Vec<(String, f64)>,
    /// Win % after each evaluation, per opponent.
    curves: [Vec<(f64, f64)>; 3],
    /// The latest evaluation per opponent.
    last: [Option<Evaluation>; 3],
    /// Seconds spent training and evaluating before this process.
    seconds_before: f64,
    /// Of which evaluating.
    eval_seconds: f64,
    /// Lines of games.pgn and eval.csv written.
    pgn_lines: usize,
    eval_lines: usize,
}

/// A selfplay resume point's trainer state.
#[derive(Serialize, Deserialize)]
struct SelfplayResume {
    tally: Tally,
    white: SelectorSetState,
    black: SelectorSetState,
}

/// The two learning sides as the study driver trains them.
struct SelfplayTrainer<'a> {
    config: &'a SelfplayConfig,
    play: SelfPlay,
    pgn: StreamedFile,
    evals: StreamedFile,
    tally: Tally,
    stockfish: Option<StockfishMover>,
    progress: &'a dyn Progress,
}

impl Trainer for SelfplayTrainer<'_> {
    type Resume = SelfplayResume;

    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()> {
        let (config, t, pgn, progress) =
            (self.config, &mut self.tally, &mut self.pgn, self.progress);
        let mut failure = None;
        self.play.train(to - from, rng, |record| {
            let n = t.games_before + t.done;
            t.done += 1;
            t.plies += u64::from(record.plies);
            let row = game_row(n, &record, config.epsilon);
            count_ending(&mut t.endings, row.outcome);
            let mut write = || -> Result<()> {
                run.metrics.record(row, &[f64::from(record.rewards[1])])?;
                if (n + 1).is_multiple_of(config.pgn_every) {
                    pgn.line(&training_pgn(
                        n,
                        &record,
                        ["white selectors", "black selectors"],
                    ))?;
                }
                Ok(())
            };
            if let Err(e) = write() {
                failure.get_or_insert(e);
            }
            progress.advance(1);
        });
        failure.map_or(Ok(()), Err)
    }

    /// Evaluates against the random and greedy movers (and Stockfish when set).
    fn end_block(&mut self, _done: u64, rng: &mut ChaCha8Rng) -> Result<()> {
        let (config, t) = (self.config, &mut self.tally);
        let started = Instant::now();
        for k in 0..3 {
            let results = match k {
                0 => self.play.evaluate(Mover::Random, config.eval_games, rng),
                1 => self.play.evaluate(Mover::Greedy, config.eval_games, rng),
                _ => match self.stockfish.as_mut() {
                    Some(engine) => self
                        .play
                        .evaluate_against(config.eval_games, |p| engine.choose(p))?,
                    None => continue,
                },
            };
            let e = summarise(t.games_before + t.done, &results);
            let name = ["random", "greedy", "stockfish"][k];
            self.evals.line(&format!(
                "{},{name},{},{},{},{},{}",
                e.after_games, e.games, e.win, e.draw, e.loss, e.mean_plies
            ))?;
            t.curves[k].push((e.after_games as f64, 100.0 * e.win));
            t.last[k] = Some(e);
        }
        t.eval_seconds += started.elapsed().as_secs_f64();
        self.pgn.flush()?;
        self.evals.flush()
    }

    fn check_finite(&self, _done: u64) -> Result<()> {
        let finite = [Color::White, Color::Black].iter().all(|&c| {
            self.play
                .side(c)
                .weights()
                .iter()
                .all(SelectorWeights::is_finite)
        });
        anyhow::ensure!(
            finite,
            "training diverged by game {}: the selectors' weights became NaN or infinite; lower lr (now {})",
            self.tally.games_before + self.tally.done,
            self.config.lr
        );
        Ok(())
    }

    fn resume_state(&self, seconds: f64) -> Result<SelfplayResume> {
        Ok(SelfplayResume {
            tally: Tally {
                seconds_before: seconds,
                pgn_lines: self.pgn.lines(),
                eval_lines: self.evals.lines(),
                ..self.tally.clone()
            },
            white: self
                .play
                .side(Color::White)
                .snapshot()
                .map_err(|e| anyhow!(e))?,
            black: self
                .play
                .side(Color::Black)
                .snapshot()
                .map_err(|e| anyhow!(e))?,
        })
    }
}

/// Trains to the configured games (a resume point after every evaluation), then
/// writes the outputs and reports.
fn continue_run(
    config: &SelfplayConfig,
    play: SelfPlay,
    files: Files,
    tally: Tally,
    mut rng: ChaCha8Rng,
    stockfish: Option<StockfishMover>,
) -> Result<()> {
    let Files {
        mut run,
        pgn,
        evals,
    } = files;
    let dir = run.dir().to_path_buf();
    let bar = episode_bar(config.games, &config_stem(&dir));
    bar.advance(tally.done);
    let schedule = Schedule {
        done: tally.done,
        total: config.games,
        block: config.eval_every,
        resume_every: Some(config.eval_every),
        seconds_before: tally.seconds_before,
    };
    let mut trainer = SelfplayTrainer {
        config,
        play,
        pgn,
        evals,
        tally,
        stockfish,
        progress: &bar,
    };
    let seconds = drive(&mut trainer, &mut run, RESUME_FORMAT, schedule, &mut rng)?;
    let SelfplayTrainer {
        play,
        pgn,
        evals,
        tally: t,
        ..
    } = trainer;
    let games_before = t.games_before;
    let Tally {
        done,
        plies,
        mut endings,
        curves,
        last,
        ..
    } = t.clone();
    let wall_seconds = seconds - t.eval_seconds;
    bar.finish_and_clear();
    model_file::save(
        &dir,
        SelfplayState {
            games_played: games_before + done,
            rng_seed: rng.get_seed(),
            rng_word_pos: rng.get_word_pos().to_string(),
            white: play.side(Color::White).weights(),
            black: play.side(Color::Black).weights(),
        },
    )?;
    write_atomic(
        &dir.join("eval.svg"),
        line_chart(
            "selfplay: the learning sides against fixed movers",
            "training games",
            "games won (%)",
            &eval_series(&curves, config.stockfish_skill),
        )
        .as_bytes(),
    )?;
    for (_, count) in &mut endings {
        *count /= done.max(1) as f64;
    }
    let summary = SelfplaySummary {
        study: "selfplay".into(),
        training: run
            .metrics
            .stats(wall_seconds, config.backend.name(), config.seed),
        envs: config.envs,
        positions_per_second: plies as f64 / wall_seconds.max(1e-9),
        games_before,
        endings,
        eval: last[0].context("at least one evaluation")?,
        eval_greedy: last[1].context("at least one evaluation")?,
        eval_stockfish: last[2],
    };
    run.finish(&summary, [pgn, evals])?;
    say!("run directory   {}", dir.display());
    say!(
        "training        {} games ({} before) in {:.1} s: {:.2} games/s, {:.0} positions/s, {} envs, {}",
        done,
        games_before,
        wall_seconds,
        summary.training.episodes_per_second,
        summary.positions_per_second,
        config.envs,
        summary.training.backend
    );
    let opponents = [
        ("vs random", Some(&summary.eval)),
        ("vs greedy", Some(&summary.eval_greedy)),
        ("vs Stockfish", summary.eval_stockfish.as_ref()),
    ];
    for (name, e) in opponents.into_iter().filter_map(|(n, e)| Some((n, e?))) {
        say!(
            "{name:<15} win {:.2}, draw {:.2}, loss {:.2}, {:.1} plies over {} games",
            e.win,
            e.draw,
            e.loss,
            e.mean_plies,
            e.games
        );
    }
    Ok(())
}
