//! `burnmate train` for queen4x4: config -> agent on a device -> run directory.

use burnmate_env::environment::Outcome as _;
use std::path::Path;

use anyhow::Result;
use burnmate_agents::luo::LuoAgent;
use burnmate_env::queen4x4::random_start;
use burnmate_models::MlpWeights;
use burnmate_oracle::queen4x4::Queen4x4Solution;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::run::Run;
use crate::run::driver::{Schedule, Trainer, drive};
use crate::run::files::{config_stem, create_run_dir};
use crate::run::metrics::EpisodeRow;
use crate::run::overrides::Overrides;
use crate::run::progress::{Progress, episode_bar};
use crate::studies::experiment::{Experiment, to_toml};
use crate::studies::queen4x4::config::Queen4x4Config;
use crate::studies::queen4x4::eval::evaluate;
use crate::studies::queen4x4::model_file;
use crate::studies::queen4x4::summary::{Summary, optimal_reward_and_moves, reported};

/// Seed offset of the evaluation games, so they never replay training's draws.
const EVAL_SEED_OFFSET: u64 = 0x5eed_e7a1;
/// How often the progress bar's metrics are refreshed.
const PROGRESS_EVERY: u64 = 1000;

/// `burnmate train CONFIG`.
pub fn train_command(path: &Path, config: Queen4x4Config, overrides: &Overrides) -> Result<()> {
    let config = config.with_overrides(overrides);
    config.validate()?;
    let stem = config_stem(path);
    let device = config.backend.device()?;
    let dir = create_run_dir(overrides.out.as_deref(), &stem)?;
    let bar = episode_bar(config.episodes, &stem);
    let summary = train_run(&config, device, &dir, &bar, true)?;
    bar.finish_and_clear();
    print_summary(&dir, &summary);
    Ok(())
}

/// `burnmate resume RUN` for a queen4x4 run.
pub fn resume_command(dir: &Path, config: &Queen4x4Config) -> Result<()> {
    let bar = episode_bar(config.episodes, &config_stem(dir));
    let summary = resume_run(config, dir, &bar)?;
    bar.finish_and_clear();
    print_summary(dir, &summary);
    Ok(())
}

fn print_summary(dir: &Path, s: &Summary) {
    say!("run directory   {}", dir.display());
    say!(
        "training        {} episodes in {:.1} s ({:.0} episodes/s) on {}",
        s.training.episodes,
        s.training.wall_seconds,
        s.training.episodes_per_second,
        s.training.backend
    );
    say!(
        "                {:>12} {:>12} {:>12}",
        "ours",
        "study",
        "optimal"
    );
    let study = s.study_reported;
    let (best_reward, best_moves) = optimal_reward_and_moves(s.algorithm, &s.optimal);
    let fmt = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.5}"));
    say!(
        "mean reward     {:>12.5} {:>12} {:>12.5}",
        s.training.mean_reward,
        fmt(study.map(|r| r.mean_reward)),
        best_reward
    );
    say!(
        "mean moves      {:>12.5} {:>12} {:>12.5}",
        s.training.mean_moves,
        fmt(study.and_then(|r| r.mean_moves)),
        best_moves
    );
    say!(
        "greedy eval     win {:.4}, draw {:.4}, {:.3} moves over {} games",
        s.eval.win_rate,
        s.eval.draw_rate,
        s.eval.mean_moves,
        s.eval.games
    );
}

/// Format of a queen4x4 resume point.
const RESUME_FORMAT: &str = "burnmate-queen4x4-resume-v1";

/// Trains one run into `dir` (which must exist and be empty) and writes every
/// output file. `bar` is advanced per episode; with `show_metrics` it also shows the
/// running EMA reward and moves.
pub fn train_run(
    config: &Queen4x4Config,
    device: burn::tensor::Device,
    dir: &Path,
    progress: &dyn Progress,
    show_metrics: bool,
) -> Result<Summary> {
    let run = Run::start(dir, &to_toml(&Experiment::Queen4x4(config.clone()))?, &[])?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let agent = LuoAgent::new(config.agent(), device, &mut rng)?;
    let start = Start {
        episodes: 0,
        wall_seconds: 0.0,
        rng,
    };
    continue_run(config, run, agent, start, progress, show_metrics)
}

/// `burnmate resume RUN` for a killed queen4x4 run: continues from its resume point.
pub fn resume_run(config: &Queen4x4Config, dir: &Path, progress: &dyn Progress) -> Result<Summary> {
    let (run, point) = Run::resume::<MlpWeights>(dir, RESUME_FORMAT, &[])?;
    let agent = LuoAgent::from_weights(config.agent(), &point.trainer, config.backend.device()?)?;
    progress.advance(point.episodes);
    let start = Start {
        episodes: point.episodes,
        wall_seconds: point.wall_seconds,
        rng: point.rng.restore()?,
    };
    continue_run(config, run, agent, start, progress, true)
}

/// Where training (re)starts.
struct Start {
    episodes: u64,
    wall_seconds: f64,
    rng: ChaCha8Rng,
}

/// The queen4x4 learner as the study driver trains it.
struct Queen4x4Trainer<'a> {
    config: &'a Queen4x4Config,
    agent: LuoAgent,
    progress: &'a dyn Progress,
    show_metrics: bool,
}

impl Trainer for Queen4x4Trainer<'_> {
    type Resume = MlpWeights;

    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()> {
        let (config, cap) = (self.config, self.config.move_cap());
        for n in from..to {
            let epsilon = config.epsilon(n);
            let start = random_start(rng);
            let episode = self.agent.train_episode(start, epsilon, cap, rng);
            run.metrics.record(
                EpisodeRow {
                    episode: n,
                    reward: episode.reward,
                    moves: episode.steps,
                    outcome: if episode.steps == cap && !episode.outcome.is_terminal() {
                        "capped"
                    } else {
                        episode.outcome.name()
                    },
                    epsilon,
                    won: episode.outcome == burnmate_env::queen4x4::Queen4x4Outcome::Checkmate,
                },
                &[],
            )?;
            if (n + 1) % PROGRESS_EVERY == 0 || n + 1 == config.episodes {
                self.progress.advance((n % PROGRESS_EVERY) + 1);
                if self.show_metrics {
                    let (reward, moves) = run.metrics.latest_ema();
                    self.progress
                        .note(&format!("EMA reward {reward:.3}, moves {moves:.2}"));
                }
            }
        }
        Ok(())
    }

    fn check_finite(&self, done: u64) -> Result<()> {
        anyhow::ensure!(
            !self.agent.diverged(),
            "training diverged in episode {}: the network's outputs became NaN or infinite; lower eta (now {})",
            done - 1,
            self.config.eta
        );
        Ok(())
    }

    fn resume_state(&self, _seconds: f64) -> Result<MlpWeights> {
        Ok(self.agent.weights())
    }
}

/// Trains from `start` to the configured episodes, leaving a resume point every
/// `checkpoint_every` episodes, then evaluates and writes the outputs.
fn continue_run(
    config: &Queen4x4Config,
    mut run: Run,
    agent: LuoAgent,
    start: Start,
    progress: &dyn Progress,
    show_metrics: bool,
) -> Result<Summary> {
    let Start {
        episodes,
        wall_seconds,
        mut rng,
    } = start;
    let mut trainer = Queen4x4Trainer {
        config,
        agent,
        progress,
        show_metrics,
    };
    let schedule = Schedule {
        done: episodes,
        total: config.episodes,
        block: 1,
        resume_every: Some(config.checkpoint_every),
        seconds_before: wall_seconds,
    };
    let wall_seconds = drive(&mut trainer, &mut run, RESUME_FORMAT, schedule, &mut rng)?;
    let mut agent = trainer.agent;

    model_file::save(run.dir(), &agent)?;
    let eval = evaluate(
        &mut agent,
        config.eval_games,
        config.eval_max_moves,
        config.seed.wrapping_add(EVAL_SEED_OFFSET),
    );
    let summary = Summary {
        study: "queen4x4".into(),
        algorithm: config.algorithm,
        update: config.update,
        training: run
            .metrics
            .stats(wall_seconds, config.backend.name(), config.seed),
        eval,
        optimal: Queen4x4Solution::solve().optimum(),
        study_reported: reported(config.algorithm),
    };
    run.finish(&summary, [])?;
    Ok(summary)
}
