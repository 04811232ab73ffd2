//! The matrix report: one row per (game, algorithm) over its seeds, next to the
//! optimum, as `matrix.md`, `matrix.json` and a bar chart `matrix.svg`; where cells
//! recorded a training curve (the search learner), `curves.svg` (mate rate against
//! training time) and `curves-excess.svg` (extra moves over the optimum).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::output::plot::{Bars, Series, bar_chart, line_chart};
use crate::run::files::write_atomic;
use crate::studies::scenario::{Game, StartSource};
use crate::tools::matrix::MatrixPlan;
use crate::tools::matrix::algorithm::Algorithm;
use crate::tools::matrix::cell::CellResult;
use crate::tools::matrix::search_report::{search_markdown, search_rows};
use crate::tools::matrix::spread::mean_sd;

/// How close a row comes to optimal play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Closeness {
    /// Mean win rate within 1 point of the optimum's and at most 0.1 extra moves.
    Optimal,
    /// Within 5 points and 1 extra move.
    Near,
    /// Wins at least 5 % of the games, but further off.
    Far,
    /// Wins fewer than 5 % of the games.
    None,
}

/// One (game, algorithm) over its seeds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatrixRow {
    /// The game.
    pub game: Game,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Seeds finished.
    pub seeds: usize,
    /// Training episodes per seed.
    pub episodes: u64,
    /// Greedy win rate: mean and sd over seeds.
    pub win_rate: (f64, f64),
    /// Mean moves of won games: mean and sd over the seeds that won.
    pub moves: Option<(f64, f64)>,
    /// Extra moves over the optimum in won games: mean and sd over the seeds that won.
    pub excess_moves: Option<(f64, f64)>,
    /// The optimum's win rate from the same starts.
    pub optimal_win_rate: f64,
    /// The optimum's mean moves from the starts it wins.
    pub optimal_moves: f64,
    /// Training seconds per seed (mean).
    pub train_seconds: f64,
    /// Seeds whose network diverged.
    pub diverged: usize,
    /// How close the row comes to the optimum.
    pub verdict: Closeness,
}

/// Summarises the seeds of one cell.
pub fn row(game: Game, algorithm: Algorithm, runs: &[&CellResult]) -> Option<MatrixRow> {
    let first = runs.first()?;
    let collect = |f: &dyn Fn(&CellResult) -> Option<f64>| -> Vec<f64> {
        runs.iter().filter_map(|r| f(r)).collect()
    };
    let win_rate = mean_sd(&collect(&|r| Some(r.eval.win_rate)))?;
    let excess_moves = mean_sd(&collect(&|r| r.eval.excess_moves()));
    let optimal_win_rate = first.eval.optimal_win_rate;
    let verdict = match excess_moves {
        _ if win_rate.0 < 0.05 => Closeness::None,
        None => Closeness::None,
        Some((e, _)) if win_rate.0 >= optimal_win_rate - 0.01 && e <= 0.1 => Closeness::Optimal,
        Some((e, _)) if win_rate.0 >= optimal_win_rate - 0.05 && e <= 1.0 => Closeness::Near,
        Some(_) => Closeness::Far,
    };
    Some(MatrixRow {
        game,
        algorithm,
        seeds: runs.len(),
        episodes: first.episodes,
        win_rate,
        moves: mean_sd(&collect(&|r| r.eval.mean_moves)),
        excess_moves,
        optimal_win_rate,
        optimal_moves: first.eval.optimal_moves,
        train_seconds: collect(&|r| Some(r.train_seconds)).iter().sum::<f64>() / runs.len() as f64,
        diverged: runs.iter().filter(|r| r.diverged).count(),
        verdict,
    })
}

/// Every row of `plan` with results, in table order.
pub fn rows(plan: &MatrixPlan, results: &[CellResult]) -> Vec<MatrixRow> {
    let mut rows = Vec::new();
    for &game in &plan.games {
        for &algorithm in &plan.algorithms {
            let runs: Vec<&CellResult> = results
                .iter()
                .filter(|r| r.cell.game == game && r.cell.algorithm == algorithm)
                .collect();
            rows.extend(row(game, algorithm, &runs));
        }
    }
    rows
}

fn pm(value: Option<(f64, f64)>, digits: usize) -> String {
    value.map_or("-".into(), |(m, s)| format!("{m:.digits$} ± {s:.digits$}"))
}

/// How many seeds the rows hold: the plan's count, or (a partial merge) the counts
/// the rows have of the plan's.
fn seeds_text(planned: u64, rows: &[MatrixRow]) -> String {
    let fewest = rows.iter().map(|r| r.seeds).min().unwrap_or(0);
    let most = rows.iter().map(|r| r.seeds).max().unwrap_or(0);
    match (fewest, most) {
        (f, m) if f == m && m == planned as usize => format!("{planned} seed(s)"),
        (f, m) if f == m => format!("{m} of the plan's {planned} seed(s) (a partial merge)"),
        (f, m) => format!("{f}-{m} of the plan's {planned} seed(s) (a partial merge)"),
    }
}

/// The markdown table, then the cells that do not apply and why.
pub fn markdown(plan: &MatrixPlan, rows: &[MatrixRow]) -> String {
    let mut md = String::new();
    let starts = match plan.starts {
        StartSource::Won => "1000 won positions drawn uniformly (fixed seed)",
        StartSource::Shipped => "the 10 shipped study starts, 100 games each",
        StartSource::Retro => {
            "1000 won positions drawn uniformly (fixed seed), after training from starts \
             grown backwards from mate (rules only)"
        }
        StartSource::Frontier => {
            "1000 won positions drawn uniformly (fixed seed), after training from starts \
             walked back from the learner's own mates (rules only)"
        }
        StartSource::Uniform => {
            "1000 won positions drawn uniformly (fixed seed), after training from every \
             legal position of the material, won or not (rules only)"
        }
    };
    let _ = writeln!(
        md,
        "Greedy play after training, mean ± sd over {}, budget {}, backend {}. Evaluation: \
         queen4x4 and knight 1000 starts from the study's distribution; endgames {starts}, against \
         the tablebase's perfect defender. Moves are the learner's moves in won games; excess = \
         those moves minus the optimum's from the same starts.\n",
        seeds_text(plan.seeds, rows),
        plan.budget,
        plan.backend.name()
    );
    md.push_str("| game | algorithm | episodes | win rate | optimum | moves | optimum | excess moves | train s | verdict |\n");
    md.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in rows {
        let diverged = if r.diverged > 0 {
            format!(" ({} diverged)", r.diverged)
        } else {
            String::new()
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {:.3} | {} | {:.2} | {} | {:.0} | {:?}{diverged} |",
            r.game.name(),
            r.algorithm.name(),
            r.episodes,
            pm(Some(r.win_rate), 3),
            r.optimal_win_rate,
            pm(r.moves, 2),
            r.optimal_moves,
            pm(r.excess_moves, 2),
            r.train_seconds,
            r.verdict
        );
    }
    let mut skipped = String::new();
    for &game in &plan.games {
        for &algorithm in &plan.algorithms {
            if let Some(reason) = algorithm.not_applicable(game) {
                let _ = writeln!(
                    skipped,
                    "- {} on {}: {reason}.",
                    algorithm.name(),
                    game.name()
                );
            }
        }
    }
    if !skipped.is_empty() {
        md.push_str("\nNot applicable:\n");
        md.push_str(&skipped);
    }
    md.push_str(
        "\nVerdict: optimal = win rate within 1 point of the optimum's and at most 0.1 extra moves; \
         near = within 5 points and 1 move; far = wins at least 5 % of the games, but further off; none = wins fewer than 5 %.\n",
    );
    md
}

/// The bar chart: greedy win rate per game and algorithm, the optimum as a mark.
pub fn chart(plan: &MatrixPlan, rows: &[MatrixRow]) -> String {
    let groups: Vec<String> = plan.games.iter().map(|g| g.name().to_string()).collect();
    let series: Vec<Bars> = plan
        .algorithms
        .iter()
        .map(|&a| Bars {
            name: a.name().into(),
            values: plan
                .games
                .iter()
                .map(|&g| {
                    rows.iter()
                        .find(|r| r.game == g && r.algorithm == a)
                        .map(|r| r.win_rate)
                })
                .collect(),
        })
        .collect();
    let marks: Vec<Option<f64>> = plan
        .games
        .iter()
        .map(|&g| {
            rows.iter()
                .find(|r| r.game == g)
                .map(|r| r.optimal_win_rate)
        })
        .collect();
    bar_chart(
        "Greedy win rate after training (black mark: optimal play)",
        "win rate",
        &groups,
        &series,
        &marks,
    )
}

/// Writes `matrix.md`, `matrix.json` and `matrix.svg` into `dir` and prints the table.
pub fn write_report(dir: &Path, plan: &MatrixPlan, results: &[CellResult]) -> Result<()> {
    let rows = rows(plan, results);
    let search_rows = search_rows(&plan.games, results);
    let md = markdown(plan, &rows) + &search_markdown(&search_rows);
    write_atomic(&dir.join("matrix.md"), md.as_bytes())?;
    let json = serde_json::json!({
        "plan": plan,
        "rows": rows,
        "search_rows": search_rows,
        "runs": results
    });
    write_atomic(
        &dir.join("matrix.json"),
        serde_json::to_string_pretty(&json)?.as_bytes(),
    )?;
    write_atomic(&dir.join("matrix.svg"), chart(plan, &rows).as_bytes())?;
    let curves =
        |value: fn(&crate::studies::scenario::evaluation::Evaluation) -> Option<f64>| -> Vec<Series> {
            results
                .iter()
                .filter(|r| !r.curve.is_empty())
                .map(|r| Series {
                    name: format!("{} seed {}", r.cell.game.name(), r.cell.seed),
                    points: r
                        .curve
                        .iter()
                        .filter_map(|p| Some((p.train_seconds, value(&p.eval)?)))
                        .collect(),
                })
                .filter(|s| !s.points.is_empty())
                .collect()
        };
    let rates = curves(|e| Some(e.win_rate));
    if !rates.is_empty() {
        let title = "Search learner: mate rate against the perfect defender (with search)";
        let svg = line_chart(title, "training time (s)", "mate rate", &rates);
        write_atomic(&dir.join("curves.svg"), svg.as_bytes())?;
    }
    let excess = curves(crate::studies::scenario::evaluation::Evaluation::excess_moves);
    if !excess.is_empty() {
        let title = "Search learner: extra moves over the optimum in won games";
        let svg = line_chart(title, "training time (s)", "extra moves", &excess);
        write_atomic(&dir.join("curves-excess.svg"), svg.as_bytes())?;
    }
    say!("{md}");
    say!("report          {}", dir.join("matrix.md").display());
    Ok(())
}
