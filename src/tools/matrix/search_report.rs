//! The search learner's rows of the matrix report: mate rate and moves over the
//! optimum's (as a ratio) with its search and as a raw policy, the training time,
//! and when the training curve first reached 99 % mated; and the net as the
//! defender (the share of the optimal defence it survives, the drawn starts it holds).

use std::fmt::Write as _;

use serde::Serialize;

use crate::studies::scenario::Game;
use crate::studies::scenario::evaluation::Evaluation;
use crate::tools::matrix::cell::CellResult;
use crate::tools::matrix::spread::mean_sd;

/// Mate rate a milestone asks for.
pub const MILESTONE_MATE_RATE: f64 = 0.99;

/// One game's search-learner cells over their seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchRow {
    /// The game.
    pub game: Game,
    /// Seeds finished.
    pub seeds: usize,
    /// Self-play games per seed.
    pub games: u64,
    /// Mate rate with the search: mean and sd over seeds.
    pub mated: (f64, f64),
    /// Moves in won games over the optimum's from those starts: mean and sd.
    pub ratio: Option<(f64, f64)>,
    /// Mate rate of the raw policy (no search).
    pub raw_mated: Option<(f64, f64)>,
    /// The raw policy's moves over the optimum's.
    pub raw_ratio: Option<(f64, f64)>,
    /// As the defender with the search: share of the optimal defence survived.
    pub survival: Option<(f64, f64)>,
    /// As the defender with the search: share of drawn starts held.
    pub held: Option<(f64, f64)>,
    /// As the defender, the raw policy: share of the optimal defence survived.
    pub raw_survival: Option<(f64, f64)>,
    /// As the defender, the raw policy: share of drawn starts held.
    pub raw_held: Option<(f64, f64)>,
    /// Training seconds of the fastest and slowest seed.
    pub train_seconds: (f64, f64),
    /// Per seed: training seconds at the first curve point with at least
    /// [`MILESTONE_MATE_RATE`] mated (`None`: not reached).
    pub to_milestone: Vec<Option<f64>>,
}

fn ratio(eval: &Evaluation) -> Option<f64> {
    Some(eval.mean_moves? / eval.optimal_moves_of_won?)
}

/// The rows of the cells that have a raw-policy evaluation (the search learner's),
/// one per game in the order of `games`.
pub fn search_rows(games: &[Game], results: &[CellResult]) -> Vec<SearchRow> {
    games
        .iter()
        .filter_map(|&game| {
            let runs: Vec<&CellResult> = results
                .iter()
                .filter(|r| r.cell.game == game && r.raw_policy.is_some())
                .collect();
            let values = |f: &dyn Fn(&CellResult) -> Option<f64>| -> Vec<f64> {
                runs.iter().filter_map(|r| f(r)).collect()
            };
            let seconds = values(&|r| Some(r.train_seconds));
            Some(SearchRow {
                game,
                seeds: runs.len(),
                games: runs.first()?.episodes,
                mated: mean_sd(&values(&|r| Some(r.eval.win_rate)))?,
                ratio: mean_sd(&values(&|r| ratio(&r.eval))),
                raw_mated: mean_sd(&values(&|r| Some(r.raw_policy?.win_rate))),
                raw_ratio: mean_sd(&values(&|r| ratio(&r.raw_policy?))),
                survival: mean_sd(&values(&|r| Some(r.defence?.search.survival))),
                held: mean_sd(&values(&|r| Some(r.defence?.search.held))),
                raw_survival: mean_sd(&values(&|r| Some(r.defence?.raw_policy.survival))),
                raw_held: mean_sd(&values(&|r| Some(r.defence?.raw_policy.held))),
                train_seconds: (
                    seconds.iter().copied().fold(f64::INFINITY, f64::min),
                    seconds.iter().copied().fold(0.0, f64::max),
                ),
                to_milestone: runs
                    .iter()
                    .map(|r| {
                        r.curve
                            .iter()
                            .find(|p| p.eval.win_rate >= MILESTONE_MATE_RATE)
                            .map(|p| p.train_seconds)
                    })
                    .collect(),
            })
        })
        .collect()
}

/// The rows as a markdown table (empty without rows).
pub fn search_markdown(rows: &[SearchRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let pct = |v: Option<(f64, f64)>| {
        v.map_or("-".into(), |(m, s)| {
            format!("{:.1} ± {:.1} %", 100.0 * m, 100.0 * s)
        })
    };
    let times = |v: Option<(f64, f64)>| v.map_or("-".into(), |(m, s)| format!("{m:.3} ± {s:.3}x"));
    let mut md = String::from(
        "\nSearch learner, with its search (128 simulations a move) and as a raw policy \
         (its most probable move); ratio = moves in won games over the optimum's from \
         those starts; training seconds of the fastest and slowest seed; to 99 % = \
         training seconds at the first curve point (a quarter of the games apart) with \
         at least 99 % mated, per seed:\n\n\
         | game | seeds | games | mated | ratio | raw policy mated | raw ratio | train s | to 99 % mated |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        let milestones: Vec<String> = r
            .to_milestone
            .iter()
            .map(|t| t.map_or("not reached".into(), |s| format!("{s:.0} s")))
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {:.0}-{:.0} | {} |",
            r.game.name(),
            r.seeds,
            r.games,
            pct(Some(r.mated)),
            times(r.ratio),
            pct(r.raw_mated),
            times(r.raw_ratio),
            r.train_seconds.0,
            r.train_seconds.1,
            milestones.join(", ")
        );
    }
    if rows.iter().any(|r| r.survival.is_some()) {
        md.push_str(
            "\nThe same nets as the defender (black, against the perfect attacker's fastest \
             mate, from as many uniform lost black-to-move starts as won starts above and a \
             quarter as many drawn ones): survived = black moves before mate over the \
             optimal defence's, held = drawn starts not lost; the optimum is 100 % each:\n\n\
             | game | seeds | survived | held | raw policy survived | raw held |\n\
             |---|---:|---:|---:|---:|---:|\n",
        );
        for r in rows.iter().filter(|r| r.survival.is_some()) {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                r.game.name(),
                r.seeds,
                pct(r.survival),
                pct(r.held),
                pct(r.raw_survival),
                pct(r.raw_held)
            );
        }
    }
    md
}
