//! The endgame study's report: Table 3.2 next to the study's numbers, the win-% curves
//! over matches and the moves-to-mate histograms relative to the exact optimum.

use std::path::Path;

use anyhow::Result;
use burnmate_env::endgame::Endgame;
use serde::Serialize;

use crate::output::plot::{Series, line_chart};
use crate::run::files::write_atomic;
use crate::studies::endgame::config::{Exploration, RewardKind};
use crate::studies::endgame::engine_audit::EngineAudit;
use crate::studies::endgame::study_plan::{CURVE_BUCKET, STUDY_DECAY, StudyCellResult, StudyPlan};
use crate::studies::endgame::train::{exploration_name, reported, reward_name};

/// One setting of one endgame, over all its runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SettingRow {
    /// The endgame.
    pub endgame: Endgame,
    /// engine or heuristic.
    pub reward: String,
    /// static or decaying.
    pub exploration: String,
    /// Runs finished.
    pub runs: usize,
    /// Share of runs (%) whose frozen table mated from the start (Table 3.2).
    pub solved_percent: f64,
    /// The 95 % Wilson score interval of `solved_percent`, in %.
    pub solved_interval: [f64; 2],
    /// The study's share (%), when it reported this setting.
    pub study_percent: Option<f64>,
    /// Share of the solved runs (%) that mated in the optimal number of moves.
    pub optimal_percent: f64,
    /// Mean moves over the optimum of the solved runs (none solved: `None`).
    pub mean_excess_moves: Option<f64>,
    /// Share of training matches won (%).
    pub training_win_percent: f64,
    /// With Stockfish: share (%) of its best moves that were DTM-optimal in the
    /// white-to-move positions it was asked about (its own play as white).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stockfish_white_optimal_percent: Option<f64>,
    /// With Stockfish: the same as the defender, in black-to-move positions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stockfish_black_optimal_percent: Option<f64>,
}

const SETTINGS: [(RewardKind, Exploration); 4] = [
    (RewardKind::Engine, Exploration::Static),
    (RewardKind::Engine, Exploration::Decaying),
    (RewardKind::Heuristic, Exploration::Static),
    (RewardKind::Heuristic, Exploration::Decaying),
];

fn excess(r: &StudyCellResult) -> Option<u32> {
    Some(r.eval_moves?.saturating_sub(r.optimal_moves?))
}

/// Summarises the runs of one setting.
pub fn setting_row(
    endgame: Endgame,
    setting: (RewardKind, Exploration),
    runs: &[&StudyCellResult],
    matches: u64,
    decay: f64,
) -> SettingRow {
    let solved: Vec<&&StudyCellResult> = runs.iter().filter(|r| r.solved).collect();
    let excesses: Vec<u32> = solved.iter().filter_map(|r| excess(r)).collect();
    let percent = |part: usize, whole: usize| 100.0 * part as f64 / whole.max(1) as f64;
    let wins: u64 = runs.iter().map(|r| r.training_wins).sum();
    let study_setting = setting.1 == Exploration::Static || decay == STUDY_DECAY;
    let stockfish = runs
        .iter()
        .filter_map(|r| r.stockfish)
        .reduce(EngineAudit::plus);
    SettingRow {
        endgame,
        reward: reward_name(setting.0).into(),
        exploration: exploration_name(setting.1).into(),
        runs: runs.len(),
        solved_percent: percent(solved.len(), runs.len()),
        solved_interval: wilson_interval(solved.len(), runs.len()),
        study_percent: study_setting
            .then(|| reported(endgame, setting.0, setting.1))
            .flatten(),
        optimal_percent: percent(excesses.iter().filter(|&&e| e == 0).count(), excesses.len()),
        mean_excess_moves: (!excesses.is_empty())
            .then(|| excesses.iter().map(|&e| f64::from(e)).sum::<f64>() / excesses.len() as f64),
        training_win_percent: 100.0 * wins as f64 / (runs.len() as u64 * matches).max(1) as f64,
        stockfish_white_optimal_percent: stockfish.and_then(|a| a.white_percent()),
        stockfish_black_optimal_percent: stockfish.and_then(|a| a.black_percent()),
    }
}

/// The 95 % Wilson score interval (in %) of a share of `successes` in `trials`
/// (`[0, 100]` without trials).
pub fn wilson_interval(successes: usize, trials: usize) -> [f64; 2] {
    if trials == 0 {
        return [0.0, 100.0];
    }
    const Z: f64 = 1.959_963_984_540_054;
    let n = trials as f64;
    let p = successes as f64 / n;
    let scale = 1.0 + Z * Z / n;
    let centre = (p + Z * Z / (2.0 * n)) / scale;
    let half = Z / scale * (p * (1.0 - p) / n + Z * Z / (4.0 * n * n)).sqrt();
    [
        100.0 * (centre - half).max(0.0),
        100.0 * (centre + half).min(1.0),
    ]
}

/// Writes `table-3-2.md`, `table-3-2.json`, `win-curves-<e>.svg` and
/// `excess-moves-<e>.svg`, and prints the table.
pub fn write_report(dir: &Path, plan: &StudyPlan, results: &[StudyCellResult]) -> Result<()> {
    let mut rows = Vec::new();
    for &endgame in &plan.endgames {
        let name = endgame.name();
        let mut curves = Vec::new();
        let mut histograms = Vec::new();
        for setting in SETTINGS {
            let runs: Vec<&StudyCellResult> = results
                .iter()
                .filter(|r| {
                    r.cell.endgame == endgame
                        && r.cell.reward == setting.0
                        && r.cell.exploration == setting.1
                })
                .collect();
            if runs.is_empty() {
                continue;
            }
            let label = format!("{} {}", reward_name(setting.0), exploration_name(setting.1));
            curves.push(Series {
                name: label.clone(),
                points: win_curve(&runs, plan.matches),
            });
            histograms.push(Series {
                name: label,
                points: excess_histogram(&runs),
            });
            rows.push(setting_row(
                endgame,
                setting,
                &runs,
                plan.matches,
                plan.decay,
            ));
        }
        write_atomic(
            &dir.join(format!("win-curves-{name}.svg")),
            line_chart(
                &format!("{}: matches won during training", name.to_uppercase()),
                "match",
                &format!("won (% of {CURVE_BUCKET}-match bucket)"),
                &curves,
            )
            .as_bytes(),
        )?;
        write_atomic(
            &dir.join(format!("excess-moves-{name}.svg")),
            line_chart(
                &format!(
                    "{}: frozen table's mate vs the optimum",
                    name.to_uppercase()
                ),
                "moves over the optimum",
                "solved runs (%)",
                &histograms,
            )
            .as_bytes(),
        )?;
    }
    let table = markdown_table(&rows, plan);
    write_atomic(&dir.join("table-3-2.md"), table.as_bytes())?;
    write_atomic(
        &dir.join("table-3-2.json"),
        serde_json::to_string_pretty(&rows)?.as_bytes(),
    )?;
    say_inline!("{table}");
    say!("report          {}", dir.display());
    Ok(())
}

/// Mean share (%) of matches won per bucket, over the runs.
fn win_curve(runs: &[&StudyCellResult], matches: u64) -> Vec<(f64, f64)> {
    let buckets = matches.div_ceil(CURVE_BUCKET);
    (0..buckets)
        .map(|b| {
            let size = CURVE_BUCKET.min(matches - b * CURVE_BUCKET) as f64;
            let won: u64 = runs
                .iter()
                .map(|r| u64::from(r.wins_per_bucket.get(b as usize).copied().unwrap_or(0)))
                .sum();
            (
                (b * CURVE_BUCKET) as f64 + size,
                100.0 * won as f64 / (size * runs.len() as f64),
            )
        })
        .collect()
}

/// Share (%) of the solved runs per number of moves over the optimum.
fn excess_histogram(runs: &[&StudyCellResult]) -> Vec<(f64, f64)> {
    let excesses: Vec<u32> = runs.iter().filter_map(|r| excess(r)).collect();
    let top = excesses.iter().copied().max().unwrap_or(0);
    (0..=top)
        .map(|e| {
            let count = excesses.iter().filter(|&&x| x == e).count();
            (
                f64::from(e),
                100.0 * count as f64 / excesses.len().max(1) as f64,
            )
        })
        .collect()
}

fn markdown_table(rows: &[SettingRow], plan: &StudyPlan) -> String {
    let mut text = format!(
        "Table 3.2: runs (%) whose frozen table mates from its start after {} matches \
         (ours, study in brackets); {} start(s) x {} run(s) per cell, defender {:?}, decay {}.\n\n",
        plan.matches, plan.starts, plan.runs, plan.opponent, plan.decay
    );
    let audited = rows.iter().any(|r| {
        r.stockfish_white_optimal_percent.is_some() || r.stockfish_black_optimal_percent.is_some()
    });
    text.push_str("| endgame | reward | exploration | runs | solved % [95 % interval] (study) | optimal mates % | moves over optimum | training won % |");
    text.push_str(if audited {
        " Stockfish's move DTM-optimal % (as white / as defender) |\n|---|---|---|---|---|---|---|---|---|\n"
    } else {
        "\n|---|---|---|---|---|---|---|---|\n"
    });
    for r in rows {
        let study = r.study_percent.map_or("-".into(), |p| format!("{p}"));
        let share = |p: Option<f64>| p.map_or("-".into(), |p| format!("{p:.1}"));
        let stockfish = if audited {
            format!(
                " {} / {} |",
                share(r.stockfish_white_optimal_percent),
                share(r.stockfish_black_optimal_percent)
            )
        } else {
            String::new()
        };
        text.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} [{:.1}, {:.1}] ({study}) | {:.1} | {} | {:.1} |{stockfish}\n",
            r.endgame.name().to_uppercase(),
            r.reward,
            r.exploration,
            r.runs,
            r.solved_percent,
            r.solved_interval[0],
            r.solved_interval[1],
            r.optimal_percent,
            r.mean_excess_moves
                .map_or("-".into(), |m| format!("{m:.2}")),
            r.training_win_percent
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::studies::endgame::study_plan::StudyCell;

    fn plan() -> StudyPlan {
        StudyPlan {
            endgames: vec![Endgame::Krk],
            starts: 1,
            runs: 2,
            matches: 200,
            decay: STUDY_DECAY,
            opponent: crate::studies::endgame::config::DefenderKind::Stockfish,
            evaluator: crate::studies::endgame::config::RewardSource::Stockfish,
        }
    }

    fn result(solved: bool, eval_moves: Option<u32>, wins: Vec<u32>) -> StudyCellResult {
        StudyCellResult {
            cell: StudyCell {
                endgame: Endgame::Krk,
                reward: RewardKind::Engine,
                exploration: Exploration::Static,
                start: 0,
                run: 0,
            },
            solved,
            eval_moves,
            optimal_moves: Some(7),
            training_wins: wins.iter().map(|&w| u64::from(w)).sum(),
            wins_per_bucket: wins,
            stockfish: None,
        }
    }

    #[test]
    fn a_setting_row_counts_solved_runs_and_moves_over_the_optimum() {
        let a = result(true, Some(7), vec![10, 100]);
        let b = result(true, Some(10), vec![0, 50]);
        let c = result(false, None, vec![0, 0]);
        let d = result(false, None, vec![0, 0]);
        let row = setting_row(
            Endgame::Krk,
            (RewardKind::Engine, Exploration::Static),
            &[&a, &b, &c, &d],
            200,
            1.1,
        );
        assert_eq!(row.runs, 4);
        assert_eq!(row.solved_percent, 50.0);
        assert_eq!(row.solved_interval, wilson_interval(2, 4));
        assert_eq!(row.optimal_percent, 50.0);
        assert_eq!(row.mean_excess_moves, Some(1.5));
        assert_eq!(row.training_win_percent, 100.0 * 160.0 / 800.0);
        assert_eq!(row.study_percent, Some(93.0));
        assert_eq!(row.stockfish_white_optimal_percent, None);
        let audited = |white_optimal, black_optimal| {
            let mut r = result(true, Some(7), vec![0, 0]);
            r.stockfish = Some(EngineAudit {
                white_asked: 10,
                white_optimal,
                black_asked: 20,
                black_optimal,
            });
            r
        };
        let (e, f) = (audited(9, 20), audited(6, 10));
        let row = setting_row(
            Endgame::Krk,
            (RewardKind::Engine, Exploration::Static),
            &[&e, &f],
            200,
            1.1,
        );
        assert_eq!(row.stockfish_white_optimal_percent, Some(75.0));
        assert_eq!(row.stockfish_black_optimal_percent, Some(75.0));
        assert!(markdown_table(&[row], &plan()).contains("| 75.0 / 75.0 |"));
    }

    #[test]
    fn the_wilson_interval_matches_its_formula() {
        let close =
            |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9;
        assert!(close(
            wilson_interval(50, 100),
            [40.383_153_036_599_56, 59.616_846_963_400_44]
        ));
        assert!(close(wilson_interval(0, 10), [0.0, 27.753_279_986_288_92]));
        assert!(close(
            wilson_interval(10, 10),
            [72.246_720_013_711_07, 100.0]
        ));
        assert!(close(
            wilson_interval(2, 4),
            [15.003_898_915_214_952, 84.996_101_084_785_05]
        ));
    }

    #[test]
    fn the_win_curve_averages_buckets_over_runs_and_handles_a_short_last_bucket() {
        let a = result(true, Some(7), vec![100, 20]);
        let b = result(true, Some(7), vec![50, 0]);
        let curve = win_curve(&[&a, &b], 150);
        assert_eq!(curve, vec![(100.0, 75.0), (150.0, 20.0)]);
    }

    #[test]
    fn the_histogram_is_over_solved_runs_only() {
        let a = result(true, Some(7), vec![]);
        let b = result(true, Some(9), vec![]);
        let c = result(false, None, vec![]);
        assert_eq!(
            excess_histogram(&[&a, &b, &c]),
            vec![(0.0, 50.0), (1.0, 0.0), (2.0, 50.0)]
        );
    }
}
