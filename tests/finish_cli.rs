//! A run killed at any point of its finish resumes to the files of an uninterrupted
//! run: for every study, a crash injected (`BURNMATE_CRASH_AT`, an abort as from
//! `kill -9`) at each point of the finish, then `burnmate resume`; and a queen4x4 grid
//! crashed in a cell's finish completes on its rerun.

mod common;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use burnmate::run::fault::FINISH_POINTS;
use common::*;

/// Runs the binary with `args`, crashing at `point`.
fn crashing_at(point: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(args)
        .env("BURNMATE_CRASH_AT", point)
        .output()
        .expect("the binary runs")
}

/// The names of the files in `dir` (its lock aside), sorted.
fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != ".burnmate.lock")
        .collect();
    names.sort();
    names
}

/// Every file of the finished run `a` is in `b` with the same bytes (the summary
/// without its timings); `b` holds no resume point, partial or temporary file.
fn assert_same_run(a: &Path, b: &Path, context: &str) {
    let names = file_names(b);
    assert_eq!(names, file_names(a), "{context}: the run's files");
    for name in &names {
        if name == "summary.json" {
            assert_eq!(
                summary_without_timings(a),
                summary_without_timings(b),
                "{context}: summary.json"
            );
        } else {
            assert!(
                fs::read(a.join(name)).unwrap() == fs::read(b.join(name)).unwrap(),
                "{context}: {name} differs"
            );
        }
    }
}

/// Trains `config` once uninterrupted, then once crashing at each finish point and
/// resumed; every resumed run must equal the uninterrupted one.
fn every_finish_crash_resumes(config: &str, extra: &[&str]) {
    let tmp = TempDir::new();
    let config = format!("configs/{config}.toml");
    let whole = tmp.path().join("whole");
    let out = train(&whole, &config, extra);
    assert!(out.status.success(), "{config}: {}", stderr(&out));
    for point in FINISH_POINTS {
        let dir = tmp.path().join(point);
        let mut args = vec!["train", &config, "--out", dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        let crashed = crashing_at(point, &args);
        assert!(
            !crashed.status.success(),
            "{config} did not crash at {point}"
        );
        assert!(dir.join("resume.json").exists(), "{config} at {point}");
        let resumed = burnmate(&["resume", dir.to_str().unwrap()]);
        assert!(
            resumed.status.success(),
            "{config} crashed at {point}, resume: {}",
            stderr(&resumed)
        );
        assert_same_run(&whole, &dir, &format!("{config} crashed at {point}"));
        let again = burnmate(&["resume", dir.to_str().unwrap()]);
        assert_one_line_error(&again, "nothing to resume");
    }
}

#[test]
fn queen4x4_resumes_from_every_point_of_its_finish() {
    every_finish_crash_resumes("queen4x4-sarsa", &["--episodes", "300"]);
}

#[test]
fn knight_resumes_from_every_point_of_its_finish() {
    every_finish_crash_resumes("knight-dqn", &["--episodes", "100"]);
}

#[test]
fn endgame_resumes_from_every_point_of_its_finish() {
    every_finish_crash_resumes("endgame-kqk-engine", &["--episodes", "50"]);
}

#[test]
fn selfplay_resumes_from_every_point_of_its_finish() {
    every_finish_crash_resumes("selfplay", &["--episodes", "2", "--set", "eval_games=2"]);
}

#[test]
fn afterstate_selfplay_resumes_from_every_point_of_its_finish() {
    every_finish_crash_resumes(
        "selfplay-afterstate",
        &["--episodes", "4", "--envs", "2", "--set", "eval_games=2"],
    );
}

#[test]
fn a_grid_crashed_in_a_cells_finish_completes_on_its_rerun() {
    let tmp = TempDir::new();
    let grid = |dir: &Path| {
        vec![
            "grid".to_string(),
            "configs/queen4x4-sarsa.toml".into(),
            "--beta".into(),
            "5e-5".into(),
            "--gamma".into(),
            "0.85,0.99".into(),
            "--episodes".into(),
            "300".into(),
            "--jobs".into(),
            "1".into(),
            "--out".into(),
            dir.to_str().unwrap().into(),
        ]
    };
    let whole = tmp.path().join("whole");
    let whole_args = grid(&whole);
    let out = burnmate(&whole_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(out.status.success(), "{}", stderr(&out));
    for point in FINISH_POINTS {
        let dir = tmp.path().join(point);
        let dir_args = grid(&dir);
        let dir_args: Vec<&str> = dir_args.iter().map(String::as_str).collect();
        assert!(!crashing_at(point, &dir_args).status.success(), "{point}");
        let rerun = burnmate(&dir_args);
        assert!(rerun.status.success(), "{point}: {}", stderr(&rerun));
        for file in ["grid.csv", "grid.md", "beta-5e-5-gamma-0.85/metrics.csv"] {
            assert_eq!(
                fs::read(whole.join(file)).unwrap(),
                fs::read(dir.join(file)).unwrap(),
                "grid crashed at {point}: {file}"
            );
        }
        for cell in ["beta-5e-5-gamma-0.85", "beta-5e-5-gamma-0.99"] {
            assert_same_run(
                &whole.join(cell),
                &dir.join(cell),
                &format!("{point}: {cell}"),
            );
        }
    }
}
