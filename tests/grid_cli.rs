//! End-to-end tests of `burnmate grid` (queen4x4's beta x gamma grid): its report,
//! resuming after a kill, and three shards merged into exactly one unsharded grid.

mod common;

use std::fs;
use std::path::Path;

use common::*;

const CONFIG: &str = "configs/queen4x4-sarsa.toml";

fn grid(dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "grid",
        CONFIG,
        "--beta",
        "5e-5,7e-5",
        "--gamma",
        "0.85,0.99",
        "--episodes",
        "2000",
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    burnmate(&args)
}

/// The report files and each cell's training record, which no wall time enters.
const SAME_FILES: [&str; 6] = [
    "grid.md",
    "grid.csv",
    "grid_reward.svg",
    "grid_moves.svg",
    "beta-5e-5-gamma-0.85/metrics.csv",
    "beta-7e-5-gamma-0.99/checkpoint.json",
];

fn assert_same_files(a: &Path, b: &Path) {
    for file in SAME_FILES {
        assert_eq!(
            fs::read(a.join(file)).unwrap(),
            fs::read(b.join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_grid_reports_every_cell_and_three_merged_shards_equal_it() {
    let tmp = TempDir::new();
    let whole = tmp.path().join("whole");
    let out = grid(&whole, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("4 runs: 0 done, 4 to run"));
    let csv = fs::read_to_string(whole.join("grid.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(rows[1].starts_with("0.85,0.00005,"), "{csv}");
    assert!(rows[4].starts_with("0.99,0.00007,"), "{csv}");
    // Each row repeats its cell's own summary.
    let cell: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(whole.join("beta-7e-5-gamma-0.99/summary.json")).unwrap(),
    )
    .unwrap();
    let fields: Vec<f64> = rows[4].split(',').map(|v| v.parse().unwrap()).collect();
    assert_eq!(fields[2], cell["mean_reward"].as_f64().unwrap());
    assert_eq!(fields[4], cell["eval"]["win_rate"].as_f64().unwrap());

    let again = grid(&whole, &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("4 runs: 4 done, 0 to run"));
    assert_one_line_error(&grid(&whole, &["--seed", "1"]), "other settings");

    let shards: Vec<_> = (1..=3).map(|i| tmp.path().join(format!("s{i}"))).collect();
    for (i, dir) in shards.iter().enumerate() {
        let out = grid(dir, &["--shard", &format!("{}/3", i + 1)]);
        assert!(out.status.success(), "{}", stderr(&out));
        let runs = if i == 0 { 2 } else { 1 };
        assert!(
            stdout(&out).contains(&format!("{runs} runs: 0 done, {runs} to run")),
            "{}",
            stdout(&out)
        );
    }
    assert_one_line_error(
        &grid(&shards[0], &[]),
        "holds shard 1/3, not the whole grid",
    );
    let merged = tmp.path().join("merged");
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    let out = burnmate(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("merged          4 of 4 runs"));
    assert_same_files(&whole, &merged);

    // A merge killed after recording its first run: a grid rerun on its directory
    // runs the three runs it lacks (their directories were not all copied) and ends
    // with the whole grid's files.
    let killed = tmp.path().join("killed-merge");
    let mut args = vec!["merge", "--out", killed.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(&args)
        .env("BURNMATE_CRASH_AT", "merge-recorded")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the injected crash aborts the merge");
    let rerun = grid(&killed, &[]);
    assert!(rerun.status.success(), "{}", stderr(&rerun));
    assert!(
        stdout(&rerun).contains("4 runs: 1 done, 3 to run"),
        "{}",
        stdout(&rerun)
    );
    assert_same_files(&whole, &killed);
}

/// A two-cell grid into `dir`, long enough to be killed at a cell's resume point.
fn two_cell_grid(dir: &Path) -> Vec<&str> {
    let mut args = vec!["grid", CONFIG, "--out", dir.to_str().unwrap()];
    args.extend_from_slice(&[
        "--beta",
        "5e-5,7e-5",
        "--gamma",
        "0.85",
        "--episodes",
        "30000",
        "--set",
        "checkpoint_every=2000",
        "--jobs",
        "1",
    ]);
    args
}

#[test]
fn a_killed_grid_resumes_to_the_uninterrupted_result() {
    let tmp = TempDir::new();
    let (full, killed) = (tmp.path().join("full"), tmp.path().join("killed"));
    let out = burnmate(&two_cell_grid(&full));
    assert!(out.status.success(), "{}", stderr(&out));

    // Kill the grid once its first cell is recorded and its second has a resume point.
    let args = two_cell_grid(&killed);
    let second = killed.join("beta-7e-5-gamma-0.85");
    run_and_kill_when(
        &args,
        || {
            second.join("resume.json").exists()
                && fs::read_to_string(killed.join("results.jsonl"))
                    .is_ok_and(|t| t.lines().count() == 1)
        },
        "its second cell's first resume point",
    );
    assert!(!killed.join("grid.md").exists(), "killed before the end");

    let out = burnmate(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("2 runs: 1 done, 1 to run"),
        "{}",
        stdout(&out)
    );
    for file in [
        "grid.md",
        "grid.csv",
        "beta-7e-5-gamma-0.85/metrics.csv",
        "beta-7e-5-gamma-0.85/checkpoint.json",
    ] {
        assert_eq!(
            fs::read(full.join(file)).unwrap(),
            fs::read(killed.join(file)).unwrap(),
            "{file}"
        );
    }
    assert!(!second.join("resume.json").exists());
}
