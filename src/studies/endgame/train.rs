//! `burnmate train` and `burnmate eval` for an endgame config: one start position,
//! one run of matches.

use std::path::Path;

use anyhow::Result;
use burnmate_agents::endgame::{LeastBestQ, QEntry};
use burnmate_env::endgame::{Endgame, MatchEnd};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use crate::output::pgn::fen_of;
use crate::run::Run;
use crate::run::driver::{Schedule, Trainer, drive};
use crate::run::files::{config_stem, create_run_dir};
use crate::run::metrics::{EpisodeRow, TrainingStats};
use crate::run::overrides::Overrides;
use crate::run::progress::{Progress, episode_bar};
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::endgame::config::{EndgameConfig, Exploration, RewardKind};
use crate::studies::endgame::engine_audit::EngineAudit;
use crate::studies::endgame::game::{Arena, MatchResult};
use crate::studies::endgame::starts::start_position;
use crate::studies::endgame::table_file::{load_run, save_table};
use crate::studies::experiment::{Experiment, to_toml};

/// Seed offset of the evaluation games.
pub const EVAL_SEED_OFFSET: u64 = 0x5eed_e7a1;

/// Greedy play of the frozen table after training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndgameEval {
    /// Games played from the run's start.
    pub games: u64,
    /// Share of them mated.
    pub win_rate: f64,
    /// Mean white moves in the won games (0 if none).
    pub mean_moves_won: f64,
    /// Mean extra moves over the exact optimum in the won games; absent when no game
    /// was won (0 would read as optimal play).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_excess_moves: Option<f64>,
}

/// Everything an endgame run reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EndgameSummary {
    /// Always "endgame".
    pub study: String,
    /// kqk, krk or kbbk.
    pub endgame: Endgame,
    /// The start position.
    pub start_fen: String,
    /// Training statistics (reward: sum of a match's rewards).
    #[serde(flatten)]
    pub training: TrainingStats,
    /// Q-table entries after training.
    pub table_entries: usize,
    /// Frozen greedy play from the start.
    pub eval: EndgameEval,
    /// Exact optimum from the start: mate in this many white moves.
    pub optimal: Optimal,
    /// When Stockfish was used: the white moves it needs itself from the start
    /// against the run's defender (the study's yardstick).
    pub stockfish_moves_to_mate: Option<u32>,
    /// When Stockfish was used: its best moves in the positions the run consulted
    /// it on, against the tablebase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stockfish_dtm_optimal: Option<EngineAudit>,
    /// The study's Table 3.2 share (%) for this endgame and setting.
    pub study_reported_solved_percent: Option<f64>,
}

/// The exact optimum from the start.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Optimal {
    /// White moves to mate against perfect defence.
    pub moves_to_mate: Option<u32>,
}

/// A table in training: the table, the matches played and won.
pub struct TrainingTable {
    /// The table so far.
    pub q: LeastBestQ,
    /// Matches played.
    pub matches: u64,
    /// Of which won (the decaying exploration counts them).
    pub wins: u64,
}

impl TrainingTable {
    /// A fresh table for `arena`'s endgame and settings.
    pub fn fresh(arena: &Arena) -> TrainingTable {
        TrainingTable {
            q: LeastBestQ::new(arena.endgame, arena.config.alpha, arena.config.gamma),
            matches: 0,
            wins: 0,
        }
    }

    /// Plays one training match from `start`, updating the table; returns the
    /// match and the exploration rate it was played at.
    pub fn train_match(
        &mut self,
        arena: &Arena,
        start: &Chess,
        rng: &mut ChaCha8Rng,
    ) -> Result<(MatchResult, f64)> {
        let epsilon = arena.config.epsilon_after(self.wins);
        let result = arena.play(&mut self.q, start, epsilon, true, rng)?;
        self.matches += 1;
        self.wins += u64::from(result.end == MatchEnd::Checkmate);
        Ok((result, epsilon))
    }
}

/// Lets the frozen greedy table play `games` games from `start`.
pub fn evaluate(
    arena: &Arena,
    q: &mut LeastBestQ,
    start: &Chess,
    games: u64,
    seed: u64,
) -> Result<EndgameEval> {
    let optimal = arena.tablebase.mate_in(start).unwrap_or(0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut won, mut moves) = (0u64, 0u64);
    for _ in 0..games {
        let r = arena.play(q, start, 0.0, false, &mut rng)?;
        if r.end == MatchEnd::Checkmate {
            won += 1;
            moves += u64::from(r.white_moves);
        }
    }
    let mean_moves_won = if won > 0 {
        moves as f64 / won as f64
    } else {
        0.0
    };
    Ok(EndgameEval {
        games,
        win_rate: won as f64 / games.max(1) as f64,
        mean_moves_won,
        mean_excess_moves: (won > 0).then(|| mean_moves_won - f64::from(optimal)),
    })
}

/// `burnmate eval RUN` for an endgame run: the frozen table from the run's start.
pub fn eval_command(run: &Path, games: u64, seed: u64) -> Result<()> {
    anyhow::ensure!(games > 0, "--games must be positive");
    let (config, endgame, mut q) = load_run(run)?;
    let start = start_position(endgame, &config)?;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let arena = Arena::new(endgame, &tablebase, &config)?;
    let eval = evaluate(&arena, &mut q, &start, games, seed)?;
    say!("run             {}", run.display());
    say!(
        "frozen table    mates in {:.1} % of {} games, {:.2} moves (optimal {})",
        100.0 * eval.win_rate,
        eval.games,
        eval.mean_moves_won,
        tablebase
            .mate_in(&start)
            .map_or("-".into(), |m| m.to_string())
    );
    Ok(())
}

/// The study's Table 3.2 share (%) for a config's endgame, reward and exploration.
pub fn reported(endgame: Endgame, reward: RewardKind, exploration: Exploration) -> Option<f64> {
    let table: serde_json::Value =
        serde_json::from_str(include_str!("../../../assets/endgame-reported.json")).ok()?;
    table
        .get(format!(
            "{}-{}",
            reward_name(reward),
            exploration_name(exploration)
        ))?
        .get(endgame.name())?
        .as_f64()
}

/// The config name of a reward kind.
pub fn reward_name(reward: RewardKind) -> &'static str {
    match reward {
        RewardKind::Engine => "engine",
        RewardKind::Heuristic => "heuristic",
    }
}

/// The config name of an exploration schedule.
pub fn exploration_name(exploration: Exploration) -> &'static str {
    match exploration {
        Exploration::Static => "static",
        Exploration::Decaying => "decaying",
    }
}

/// Format of an endgame resume point.
const RESUME_FORMAT: &str = "burnmate-endgame-resume-v2";

/// An endgame run's state at a resume point: the table, and the engine audit so far
/// (so a resumed run's audit counts every answer, not those after the resume).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EndgameResume {
    table: Vec<QEntry>,
    audit: EngineAudit,
}

/// `burnmate train CONFIG` for an endgame config.
pub fn train_command(path: &Path, config: EndgameConfig, overrides: &Overrides) -> Result<()> {
    let config = config.with_overrides(overrides);
    config.validate()?;
    let endgame = config.endgame;
    let start = start_position(endgame, &config)?;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let arena = Arena::new(endgame, &tablebase, &config)?;
    let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
    let run = Run::start(
        &dir,
        &to_toml(&Experiment::Endgame(config.clone()))?,
        &["excess_moves"],
    )?;
    let table = TrainingTable::fresh(&arena);
    let rng = ChaCha8Rng::seed_from_u64(config.seed);
    continue_run(&arena, &start, run, table, rng, 0.0)
}

/// `burnmate resume RUN` for a killed endgame run.
pub fn resume_command(dir: &Path, config: &EndgameConfig) -> Result<()> {
    config.validate()?;
    let endgame = config.endgame;
    let start = start_position(endgame, config)?;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let arena = Arena::new(endgame, &tablebase, config)?;
    let (run, point) = Run::resume::<EndgameResume>(dir, RESUME_FORMAT, &["excess_moves"])?;
    let q = LeastBestQ::from_entries(endgame, config.alpha, config.gamma, &point.trainer.table);
    *arena.audit.borrow_mut() = point.trainer.audit;
    let table = TrainingTable {
        q,
        matches: point.episodes,
        wins: point.wins,
    };
    continue_run(
        &arena,
        &start,
        run,
        table,
        point.rng.restore()?,
        point.wall_seconds,
    )
}

/// An endgame table as the study driver trains it.
struct EndgameTrainer<'a> {
    arena: &'a Arena<'a>,
    start: &'a Chess,
    table: TrainingTable,
    optimal: Optimal,
    progress: &'a dyn Progress,
}

impl Trainer for EndgameTrainer<'_> {
    type Resume = EndgameResume;

    fn train(&mut self, from: u64, to: u64, run: &mut Run, rng: &mut ChaCha8Rng) -> Result<()> {
        for n in from..to {
            let (result, epsilon) = self.table.train_match(self.arena, self.start, rng)?;
            let won = result.end == MatchEnd::Checkmate;
            let excess = match (won, self.optimal.moves_to_mate) {
                (true, Some(best)) => f64::from(result.white_moves) - f64::from(best),
                _ => f64::NAN,
            };
            run.metrics.record(
                EpisodeRow {
                    episode: n,
                    reward: result.reward,
                    moves: result.white_moves,
                    outcome: result.end.name(),
                    epsilon,
                    won,
                },
                &[excess],
            )?;
            if (n + 1) % 100 == 0 || n + 1 == self.arena.config.episodes {
                self.progress.advance((n % 100) + 1);
                self.progress.note(&format!("won {}", self.table.wins));
            }
        }
        Ok(())
    }

    /// A table's values stay between its bounded rewards: nothing to check.
    fn check_finite(&self, _done: u64) -> Result<()> {
        Ok(())
    }

    fn resume_state(&self, _seconds: f64) -> Result<EndgameResume> {
        Ok(EndgameResume {
            table: self.table.q.entries(),
            audit: *self.arena.audit.borrow(),
        })
    }
}

/// Trains `table` to the configured matches with a resume point every
/// `checkpoint_every` matches, then evaluates, writes the outputs and reports.
fn continue_run(
    arena: &Arena,
    start: &Chess,
    mut run: Run,
    table: TrainingTable,
    mut rng: ChaCha8Rng,
    before: f64,
) -> Result<()> {
    let config = arena.config;
    let dir = run.dir().to_path_buf();
    let optimal = Optimal {
        moves_to_mate: arena.tablebase.mate_in(start),
    };
    let bar = episode_bar(config.episodes, &config_stem(&dir));
    bar.advance(table.matches);
    let schedule = Schedule {
        done: table.matches,
        total: config.episodes,
        block: 1,
        resume_every: Some(config.checkpoint_every),
        seconds_before: before,
    };
    let mut trainer = EndgameTrainer {
        arena,
        start,
        table,
        optimal,
        progress: &bar,
    };
    let wall_seconds = drive(&mut trainer, &mut run, RESUME_FORMAT, schedule, &mut rng)?;
    bar.finish_and_clear();
    let mut q = trainer.table.q;
    save_table(&dir, arena.endgame, &q)?;

    let eval = evaluate(
        arena,
        &mut q,
        start,
        config.eval_games,
        config.seed.wrapping_add(EVAL_SEED_OFFSET),
    )?;
    let stockfish_moves_to_mate = match &arena.engine {
        Some(_) => arena.engine_mate_moves(start, &mut rng)?,
        None => None,
    };
    let summary = EndgameSummary {
        study: "endgame".into(),
        endgame: config.endgame,
        start_fen: fen_of(start),
        training: run
            .metrics
            .stats(wall_seconds, "none (tabular)", config.seed),
        table_entries: q.len(),
        eval,
        optimal,
        stockfish_moves_to_mate,
        stockfish_dtm_optimal: arena.engine.as_ref().map(|_| *arena.audit.borrow()),
        study_reported_solved_percent: reported(config.endgame, config.reward, config.exploration),
    };
    run.finish(&summary, [])?;
    say!("run directory   {}", dir.display());
    say!("start           {}", summary.start_fen);
    say!(
        "training        {} matches in {:.1} s ({:.0}/s), {:.1} % won",
        summary.training.episodes,
        wall_seconds,
        summary.training.episodes_per_second,
        100.0 * summary.training.win_rate
    );
    say!(
        "frozen table    mates in {:.0} % of {} games, {:.2} moves (optimal {}{})",
        100.0 * eval.win_rate,
        eval.games,
        eval.mean_moves_won,
        optimal.moves_to_mate.map_or("-".into(), |m| m.to_string()),
        stockfish_moves_to_mate.map_or(String::new(), |m| format!(", Stockfish {m}"))
    );
    if let Some(audit) = summary.stockfish_dtm_optimal {
        let share = |p: Option<f64>| p.map_or("-".into(), |p| format!("{p:.1} %"));
        say!(
            "Stockfish moves DTM-optimal in {} of {} white and {} of {} black positions asked",
            share(audit.white_percent()),
            audit.white_asked,
            share(audit.black_percent()),
            audit.black_asked
        );
    }
    if let Some(engine) = &arena.engine {
        say_cache_stats(engine.borrow().cache_stats());
    }
    Ok(())
}

/// Prints how many positions the engine searched and how many it was spared.
pub fn say_cache_stats(stats: burnmate_oracle::uci::CacheStats) {
    let lookups = (stats.hits + stats.misses).max(1);
    say!(
        "stockfish       {} positions searched, {} answers ({:.1} %) from {}/ ({} positions held)",
        stats.misses,
        stats.hits,
        100.0 * stats.hits as f64 / lookups as f64,
        crate::run::engine_cache::CACHE_DIR,
        stats.positions
    );
    if stats.damaged > 0 {
        say!(
            "stockfish       {} damaged lines in {}/ skipped (their positions searched again)",
            stats.damaged,
            crate::run::engine_cache::CACHE_DIR
        );
    }
}
