//! The report of a queen4x4 grid: `grid.md`, `grid.csv` and two plots over beta,
//! one line per gamma. It depends only on the cells' results (no wall times), so a
//! merged grid reports byte for byte what one unsharded run does.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use crate::output::plot::{Series, line_chart};
use crate::run::files::write_atomic;
use crate::studies::queen4x4::config::Queen4x4Config;
use crate::studies::queen4x4::grid_cell::GridCellResult;
use crate::studies::queen4x4::summary::Summary;

/// Writes the report of `results` into `root` and returns its markdown table.
pub fn write_report(
    root: &Path,
    plan: &Queen4x4Config,
    results: &[GridCellResult],
) -> Result<String> {
    let mut sorted: Vec<&GridCellResult> = results.iter().collect();
    sorted.sort_by(|a, b| {
        (a.cell.gamma, a.cell.beta)
            .partial_cmp(&(b.cell.gamma, b.cell.beta))
            .expect("finite grid values")
    });
    let md = markdown(&sorted);
    write_atomic(&root.join("grid.md"), md.as_bytes())?;
    write_atomic(&root.join("grid.csv"), csv(&sorted).as_bytes())?;
    write_plots(root, plan, &sorted)?;
    Ok(md)
}

fn markdown(results: &[&GridCellResult]) -> String {
    let mut md = String::from(
        "| gamma | beta | mean reward | mean moves | greedy win rate | greedy moves | optimal moves |\n|---|---|---|---|---|---|---|\n",
    );
    for r in results {
        let s = &r.summary;
        let _ = writeln!(
            md,
            "| {} | {:e} | {:.5} | {:.5} | {:.4} | {:.3} | {:.3} |",
            r.cell.gamma,
            r.cell.beta,
            s.training.mean_reward,
            s.training.mean_moves,
            s.eval.win_rate,
            s.eval.mean_moves,
            s.optimal.mean_moves
        );
    }
    md
}

fn csv(results: &[&GridCellResult]) -> String {
    let mut csv = String::from("gamma,beta,mean_reward,mean_moves,eval_win_rate,eval_mean_moves\n");
    for r in results {
        let s = &r.summary;
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{}",
            r.cell.gamma,
            r.cell.beta,
            s.training.mean_reward,
            s.training.mean_moves,
            s.eval.win_rate,
            s.eval.mean_moves
        );
    }
    csv
}

fn write_plots(root: &Path, plan: &Queen4x4Config, results: &[&GridCellResult]) -> Result<()> {
    for (file, title, pick) in [
        (
            "grid_reward.svg",
            "Mean reward after training",
            (|s: &Summary| s.training.mean_reward) as fn(&Summary) -> f64,
        ),
        ("grid_moves.svg", "Mean moves per game", |s: &Summary| {
            s.training.mean_moves
        }),
    ] {
        let series: Vec<Series> = plan
            .grid
            .gamma
            .iter()
            .map(|&g| Series {
                name: format!("gamma {g}"),
                points: results
                    .iter()
                    .filter(|r| r.cell.gamma == g)
                    .map(|r| (r.cell.beta, pick(&r.summary)))
                    .collect(),
            })
            .collect();
        write_atomic(
            &root.join(file),
            line_chart(title, "beta", title, &series).as_bytes(),
        )?;
    }
    Ok(())
}
