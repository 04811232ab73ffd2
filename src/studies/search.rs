//! The search learner (ours; `configs/search-*.toml`, and the matrix's `mcts`
//! cells): AlphaZero's PUCT search over a policy-value net, trained by self-play on
//! a lone-king endgame from starts grown backwards from mate (rules only; the
//! tablebase only evaluates). [`training`] is the resumable loop, [`evaluation`]
//! plays a net against the perfect defender, [`net_file`] is the net a run serves.
//!
//! A run directory holds `config.toml`, `metrics.csv` (a row a block of games: the
//! block's mate rate and the mean policy, value and moves-left losses), `losses.svg`,
//! `net.json` (what `eval`, `play`, `uci` and `match` serve) and `evaluation.json`
//! (the net and its training snapshots against the perfect defender); `resume.json`
//! while it trains.

pub mod compact;
pub mod config;
pub mod defence;
pub mod evaluation;
pub mod net_data;
pub mod net_file;
pub mod play;
pub mod settings;
pub mod training;

use std::path::Path;

use anyhow::{Result, bail};

use crate::output::plot::{Series, line_chart};
use crate::run::files::{claim_new_run, config_stem, create_run_dir, lock_dir, write_atomic};
use crate::run::overrides::Overrides;
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::experiment::{Experiment, to_toml};
use crate::studies::scenario;
use crate::studies::study::{
    EvalRequest, PlayRequest, Study, refuse_overrides, refuse_stockfish_skills,
};
use config::SearchStudyConfig;
use evaluation::SearchEvaluation;

/// The net a finished search run serves.
pub const NET_FILE: &str = "net.json";

/// The training's resume point in a search run (gone once the run is evaluated).
pub const RESUME_FILE: &str = "resume.json";

/// The evaluation a finished search run records.
pub const EVALUATION_FILE: &str = "evaluation.json";

impl Study for SearchStudyConfig {
    /// A new run: `--episodes` sets its self-play games.
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        refuse_overrides(overrides, false, false)?;
        let mut config = self.clone();
        config.games = overrides.episodes.or(config.games);
        config.seed = overrides.seed.unwrap_or(config.seed);
        config.backend = overrides.backend.unwrap_or(config.backend);
        config.check()?;
        config.backend.device()?;
        let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
        let _lock = claim_new_run(&dir, &to_toml(&Experiment::Search(config.clone()))?)?;
        finish(&dir, &config)
    }

    /// Goes on from the run's resume point (or evaluates a trained net again).
    fn resume(&self, run: &Path) -> Result<()> {
        self.check()?;
        let _lock = lock_dir(run)?;
        if run.join(EVALUATION_FILE).exists() {
            bail!(
                "run {} is finished: `burnmate eval` replays its net",
                run.display()
            );
        }
        finish(run, self)
    }

    /// The net against the perfect defender from the matrix's won starts, with its
    /// search and as a raw policy.
    fn eval(&self, request: &EvalRequest) -> Result<()> {
        refuse_stockfish_skills(request)?;
        evaluation::eval_command(
            &request.run.join(NET_FILE),
            request.games,
            &request.search,
            request.backend,
        )
    }

    /// One game of the net's search against the perfect defender from `--fen`.
    fn play(&self, request: &PlayRequest) -> Result<()> {
        play::play_search_net(request, &request.run.join(NET_FILE))
    }
}

/// Trains (or goes on training) the run in `dir`, then saves its net and evaluates
/// it and its snapshots as a matrix cell is evaluated.
fn finish(dir: &Path, config: &SearchStudyConfig) -> Result<()> {
    let device = config.backend.device()?;
    let resume = dir.join(RESUME_FILE);
    let run = config.training();
    let trained = training::train_search(&run, &device, &resume, Some(&dir.join("metrics.csv")))?;
    plot_losses(dir)?;
    let tablebase = load_or_build(config.endgame, &tablebase_dir())?;
    let mut scenario = scenario::endgame(config.endgame, &tablebase, config.starts())?;
    scenario.eval.truncate(config.eval_starts);
    let result = evaluation::evaluate_trained(
        &scenario,
        config.seed,
        &trained,
        &device,
        &dir.join(NET_FILE),
    )?;
    write_atomic(
        &dir.join(EVALUATION_FILE),
        serde_json::to_string_pretty(&result)?.as_bytes(),
    )?;
    if resume.exists() {
        std::fs::remove_file(&resume)?;
    }
    report(dir, &result);
    Ok(())
}

/// Prints a finished run's evaluation beside the optimum.
fn report(dir: &Path, result: &SearchEvaluation) {
    let ratio = |eval: &scenario::evaluation::Evaluation| {
        eval.mean_moves
            .zip(eval.optimal_moves_of_won)
            .map_or("-".to_string(), |(m, o)| format!("{:.3}x", m / o))
    };
    crate::say!("run             {}", dir.display());
    crate::say!(
        "trained         {} self-play games in {:.0} s ({:.1} % mated)",
        result.games,
        result.train_seconds,
        100.0 * result.mate_rate
    );
    crate::say!(
        "search          mated {:.1} % of {} won starts in {} the optimum's moves (optimum: {:.1} %)",
        100.0 * result.eval.win_rate,
        result.eval.games,
        ratio(&result.eval),
        100.0 * result.eval.optimal_win_rate
    );
    crate::say!(
        "raw policy      mated {:.1} % in {} the optimum's moves",
        100.0 * result.raw_policy.win_rate,
        ratio(&result.raw_policy)
    );
    crate::say!(
        "play it         burnmate play {} --fen FEN, or burnmate uci {}",
        dir.display(),
        dir.display()
    );
}

/// `losses.svg`: the policy, value and moves-left losses of `metrics.csv` against
/// self-play games.
fn plot_losses(dir: &Path) -> Result<()> {
    let text = std::fs::read_to_string(dir.join("metrics.csv"))?;
    let names = ["policy", "value", "moves left"];
    let mut series: Vec<Series> = names
        .iter()
        .map(|name| Series {
            name: (*name).to_string(),
            points: Vec::new(),
        })
        .collect();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let Ok(games) = fields[0].parse::<f64>() else {
            continue;
        };
        for (k, s) in series.iter_mut().enumerate() {
            if let Some(Ok(loss)) = fields.get(2 + k).map(|f| f.parse::<f64>()) {
                s.points.push((games, loss));
            }
        }
    }
    let svg = line_chart(
        "search learner losses",
        "self-play games",
        "mean loss",
        &series,
    );
    write_atomic(&dir.join("losses.svg"), svg.as_bytes())
}
