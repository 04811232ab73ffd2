//! `burnmate train` for the knight study.

use burnmate_env::environment::Outcome as _;
use std::path::Path;

use anyhow::Result;
use burnmate_agents::episode::{Mode, Play, play_episode};
use burnmate_encode::knight::KnightEncoding;
use burnmate_env::environment::Environment;
use burnmate_env::knight::{KnightGame, KnightOutcome, KnightState};
use burnmate_oracle::knight::{knight_optimum, random_baseline};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::run::Run;
use crate::run::driver::{Schedule, Trainer, drive};
use crate::run::files::{config_stem, create_run_dir};
use crate::run::metrics::EpisodeRow;
use crate::run::overrides::Overrides;
use crate::run::progress::{Progress, episode_bar};
use crate::studies::experiment::{Experiment, to_toml};
use crate::studies::knight::config::{KnightAgentKind, KnightConfig};
use crate::studies::knight::eval::{evaluate, print_table};
use crate::studies::knight::model_file::{self, KnightLearnerState, Learner};
use crate::studies::knight::summary::{KnightSummary, reported};
use crate::studies::knight::vector::train_vectorised;

/// Seed offset of the evaluation games.
const EVAL_SEED_OFFSET: u64 = 0x5eed_e7a1;
/// How often the progress bar's metrics are refreshed.
const PROGRESS_EVERY: u64 = 100;

/// `burnmate train CONFIG` for a knight config.
pub fn train_command(path: &Path, config: KnightConfig, overrides: &Overrides) -> Result<()> {
    let config = config.with_overrides(overrides);
    config.validate()?;
    let stem = config_stem(path);
    let device = config.backend.device()?.autodiff();
    let dir = create_run_dir(overrides.out.as_deref(), &stem)?;
    let bar = episode_bar(config.episodes, &stem);
    let summary = train_run(&config, device, &dir, &bar)?;
    bar.finish_and_clear();
    report(&dir, &summary);
    Ok(())
}

/// Prints a finished run's report.
fn report(dir: &Path, summary: &KnightSummary) {
    say!("run directory   {}", dir.display());
    say!(
        "training        {} episodes in {:.1} s ({:.0} episodes/s) on {}",
        summary.training.episodes,
        summary.training.wall_seconds,
        summary.training.episodes_per_second,
        summary.training.backend
    );
    print_table(&summary.eval, summary.study_reported.as_ref());
}

/// What to lower when training diverges.
fn learning_rate_hint(config: &KnightConfig) -> String {
    match config.agent {
        KnightAgentKind::ActorCritic => format!(
            "lower lr (now {}) or critic_lr (now {})",
            config.lr, config.critic_lr
        ),
        _ => format!("lower lr (now {})", config.lr),
    }
}

/// Format of a knight resume point.
const RESUME_FORMAT: &str = "burnmate-knight-resume-v2";

/// Trains one run into the empty directory `dir` and writes every output file.
pub fn train_run(
    config: &KnightConfig,
    device: burn::tensor::Device,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<KnightSummary> {
    let run = Run::start(
        dir,
        &to_toml(&Experiment::Knight(config.clone()))?,
        &COLUMNS,
    )?;
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    let learner = Learner::new(config, device, &mut rng)?;
    continue_run(config, run, learner, 0, 0.0, rng, progress)
}

/// `burnmate resume RUN` for a killed knight run.
pub fn resume_command(dir: &Path, config: &KnightConfig) -> Result<()> {
    config.validate()?;
    anyhow::ensure!(
        config.envs == 1,
        "{}: a vectorised run (envs = {}) keeps episodes in flight and leaves no resume point; train it again",
        dir.display(),
        config.envs
    );
    let (run, point) = Run::resume::<KnightLearnerState>(dir, RESUME_FORMAT, &COLUMNS)?;
    let device = config.backend.device()?.autodiff();
    let learner = Learner::restore(config, device, point.trainer)?;
    let bar = episode_bar(config.episodes, &config_stem(dir));
    bar.advance(point.episodes);
    let rng = point.rng.restore()?;
    let summary = continue_run(
        config,
        run,
        learner,
        point.episodes,
        point.wall_seconds,
        rng,
        &bar,
    )?;
    bar.finish_and_clear();
    report(dir, &summary);
    Ok(())
}

/// The knight study's extra metric columns.
const COLUMNS: [&str; 2] = ["legal_moves", "illegal_moves"];

/// The knight learner as the study driver trains it.
struct KnightTrainer<'a> {
    config: &'a KnightConfig,
    learner: Learner,
    progress: &'a dyn Progress,
}

impl KnightTrainer<'_> {
    /// Whether the run trains all its episodes at once in vectorised DQN.
    fn vectorised(&self) -> bool {
        self.config.envs > 1 && matches!(self.learner, Learner::Dqn(_))
    }
}

impl Trainer for KnightTrainer<'_> {
    type Resume = KnightLearnerState;

    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()> {
        let (config, progress) = (self.config, self.progress);
        if let (true, Learner::Dqn(dqn)) = (self.vectorised(), &mut self.learner) {
            return train_vectorised(config, dqn, rng, &mut run.metrics, progress);
        }
        for n in from..to {
            let epsilon = config.epsilon.at(n);
            let start = KnightGame.reset(rng);
            let mut legal = 0u32;
            let play = Play {
                mode: Mode::Train { epsilon },
                max_steps: u32::MAX,
            };
            let episode = play_episode(
                &KnightGame,
                &KnightEncoding,
                self.learner.agent(),
                start,
                play,
                rng,
                |state: &KnightState, action, _| legal += u32::from(state.target(action).is_some()),
            );
            let (reward, outcome, illegal) =
                (episode.reward, episode.outcome, episode.steps - legal);
            run.metrics.record(
                EpisodeRow {
                    episode: n,
                    reward,
                    moves: legal + illegal,
                    outcome: outcome.name(),
                    epsilon,
                    won: outcome == KnightOutcome::Check,
                },
                &[f64::from(legal), f64::from(illegal)],
            )?;
            if (n + 1) % PROGRESS_EVERY == 0 || n + 1 == config.episodes {
                progress.advance((n % PROGRESS_EVERY) + 1);
                let (r, m) = run.metrics.latest_ema();
                progress.note(&format!("EMA reward {r:.2}, moves {m:.2}"));
            }
        }
        Ok(())
    }

    fn check_finite(&self, done: u64) -> Result<()> {
        let hint = learning_rate_hint(self.config);
        anyhow::ensure!(
            !self.learner.diverged(),
            if self.vectorised() {
                format!(
                    "training diverged: Q-values became NaN or infinite during the {done} episodes; {hint}"
                )
            } else {
                format!(
                    "training diverged in episode {}: the network's outputs became NaN or infinite; {hint}",
                    done - 1
                )
            }
        );
        Ok(())
    }

    fn resume_state(&self, _seconds: f64) -> Result<KnightLearnerState> {
        self.learner.snapshot()
    }
}

/// Trains from episode `first` to the configured episodes (with a resume point
/// every `checkpoint_every` episodes when not vectorised), then evaluates and
/// writes the outputs.
fn continue_run(
    config: &KnightConfig,
    mut run: Run,
    learner: Learner,
    first: u64,
    before: f64,
    mut rng: ChaCha8Rng,
    progress: &dyn Progress,
) -> Result<KnightSummary> {
    let mut trainer = KnightTrainer {
        config,
        learner,
        progress,
    };
    let vectorised = trainer.vectorised();
    let schedule = Schedule {
        done: first,
        total: config.episodes,
        block: if vectorised { config.episodes } else { 1 },
        resume_every: (!vectorised).then_some(config.checkpoint_every),
        seconds_before: before,
    };
    let wall_seconds = drive(&mut trainer, &mut run, RESUME_FORMAT, schedule, &mut rng)?;
    let mut learner = trainer.learner;

    model_file::save(run.dir(), config, &learner)?;
    let summary = KnightSummary {
        study: "knight".into(),
        agent: config.agent,
        training: run
            .metrics
            .stats(wall_seconds, config.backend.name(), config.seed),
        eval: evaluate(
            &mut learner,
            config.eval_games,
            config.seed.wrapping_add(EVAL_SEED_OFFSET),
        ),
        optimal: knight_optimum(),
        random_exact: random_baseline(),
        study_reported: reported(config.agent),
    };
    run.finish(&summary, [])?;
    Ok(summary)
}
