//! `burnmate grid`: the study's beta x gamma grid (Figure 3), runs in parallel.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Result, ensure};

use crate::files::{config_stem, create_run_dir, write_atomic};
use crate::plot::{Series, line_chart};
use crate::progress::episode_bar;
use crate::queen4x4::config::Queen4x4Config;
use crate::queen4x4::summary::Summary;
use crate::queen4x4::train::{grid_cell_dir, train_run};
use crate::run::Overrides;

/// `burnmate grid CONFIG [--beta ..] [--gamma ..]`.
pub fn grid_command(
    path: &Path,
    config: Queen4x4Config,
    betas: Vec<f64>,
    gammas: Vec<f64>,
    overrides: &Overrides,
) -> Result<()> {
    let mut config = config.with_overrides(overrides);
    if !betas.is_empty() {
        config.grid.beta = betas;
    }
    if !gammas.is_empty() {
        config.grid.gamma = gammas;
    }
    config.validate()?;
    ensure!(
        !config.grid.beta.is_empty() && !config.grid.gamma.is_empty(),
        "the grid needs at least one beta and one gamma"
    );
    let device = config.backend.device()?;
    let root = create_run_dir(
        overrides.out.as_deref(),
        &format!("{}-grid", config_stem(path)),
    )?;
    let cells: Vec<(f64, f64)> = config
        .grid
        .gamma
        .iter()
        .flat_map(|&g| config.grid.beta.iter().map(move |&b| (b, g)))
        .collect();
    let bar = episode_bar(config.episodes * cells.len() as u64, "grid");
    let results = Mutex::new(Vec::new());
    let next = Mutex::new(cells.iter());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(cells.len());
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    loop {
                        let Some(&(beta, gamma)) = next.lock().expect("queue lock").next() else {
                            return Ok(());
                        };
                        let mut cell = config.clone();
                        cell.beta = beta;
                        cell.gamma = gamma as f32;
                        let dir = grid_cell_dir(&root, beta, gamma);
                        std::fs::create_dir(&dir)?;
                        let summary = train_run(&cell, device.clone(), &dir, &bar, false)?;
                        results
                            .lock()
                            .expect("results lock")
                            .push((beta, gamma, summary));
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("grid worker panicked")?;
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    let mut results = results.into_inner().expect("results lock");
    results.sort_by(|a, b| {
        (a.1, a.0)
            .partial_cmp(&(b.1, b.0))
            .expect("finite grid values")
    });
    write_tables(&root, &results)?;
    write_plots(&root, &config, &results)?;
    say!("grid directory  {}", root.display());
    say_inline!("{}", markdown(&results));
    Ok(())
}

type Cell = (f64, f64, Summary);

fn markdown(results: &[Cell]) -> String {
    let mut md = String::from(
        "| gamma | beta | mean reward | mean moves | greedy win rate | greedy moves | optimal moves |\n|---|---|---|---|---|---|---|\n",
    );
    for (beta, gamma, s) in results {
        let _ = writeln!(
            md,
            "| {gamma} | {beta:e} | {:.5} | {:.5} | {:.4} | {:.3} | {:.3} |",
            s.training.mean_reward,
            s.training.mean_moves,
            s.eval.win_rate,
            s.eval.mean_moves,
            s.optimal.mean_moves
        );
    }
    md
}

fn write_tables(root: &Path, results: &[Cell]) -> Result<()> {
    let mut csv = String::from(
        "gamma,beta,mean_reward,mean_moves,eval_win_rate,eval_mean_moves,episodes_per_second\n",
    );
    for (beta, gamma, s) in results {
        let _ = writeln!(
            csv,
            "{gamma},{beta},{},{},{},{},{}",
            s.training.mean_reward,
            s.training.mean_moves,
            s.eval.win_rate,
            s.eval.mean_moves,
            s.training.episodes_per_second
        );
    }
    write_atomic(&root.join("grid.csv"), csv.as_bytes())?;
    write_atomic(&root.join("grid.md"), markdown(results).as_bytes())
}

fn write_plots(root: &Path, config: &Queen4x4Config, results: &[Cell]) -> Result<()> {
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
        let series: Vec<Series> = config
            .grid
            .gamma
            .iter()
            .map(|&g| Series {
                name: format!("gamma {g}"),
                points: results
                    .iter()
                    .filter(|(_, gamma, _)| *gamma == g)
                    .map(|(beta, _, s)| (*beta, pick(s)))
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
