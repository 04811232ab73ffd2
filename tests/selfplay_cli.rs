//! End-to-end tests of the selfplay study: outputs, exact resume, batched games.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// A short selfplay config in `dir`.
fn short_config(dir: &Path, extra: &str) -> PathBuf {
    let text = fs::read_to_string("configs/selfplay.toml")
        .unwrap()
        .replace("max_plies = 100", "max_plies = 16")
        .replace("eval_every = 50", "eval_every = 2")
        .replace("eval_games = 20", "eval_games = 2")
        .replace("pgn_every = 50", "pgn_every = 2");
    let path = dir.join("selfplay.toml");
    fs::write(&path, format!("{text}{extra}")).unwrap();
    path
}

fn rows(run: &Path) -> Vec<String> {
    fs::read_to_string(run.join("metrics.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(String::from)
        .collect()
}

#[test]
fn selfplay_writes_its_outputs_and_resumes_exactly() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path(), "");
    let config = config.to_str().unwrap();
    let whole = tmp.path().join("whole");
    let out = train(&whole, config, &["--episodes", "4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("vs greedy"));
    for file in [
        "config.toml",
        "checkpoint.json",
        "eval.csv",
        "eval.svg",
        "games.pgn",
    ] {
        assert!(whole.join(file).is_file(), "{file}");
    }
    assert_eq!(rows(&whole).len(), 4);
    let evals = fs::read_to_string(whole.join("eval.csv")).unwrap();
    assert_eq!(
        evals.lines().count(),
        5,
        "two evaluations of two opponents: {evals}"
    );
    let pgn = fs::read_to_string(whole.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    let s = summary(&whole);
    assert_eq!(s["study"], "selfplay");
    assert_eq!(s["eval"]["games"], 2);
    assert_eq!(s["episodes"], 4);

    let first = tmp.path().join("first");
    let second = tmp.path().join("second");
    assert!(train(&first, config, &["--episodes", "2"]).status.success());
    let out = train(
        &second,
        config,
        &[
            "--episodes",
            "2",
            "--continue-from",
            first.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(summary(&second)["games_before"], 2);
    let mut joined = rows(&first);
    joined.extend(rows(&second));
    assert_eq!(joined, rows(&whole), "2 + 2 resumed games are the 4 games");
    let weights = |run: &Path| {
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(run.join("checkpoint.json")).unwrap())
                .unwrap();
        v["payload"]["white"].clone()
    };
    assert_eq!(weights(&second), weights(&whole));
    // Resuming with another network shape is refused, not run with the old one.
    let changed = train(
        &tmp.path().join("changed"),
        config,
        &[
            "--episodes",
            "2",
            "--continue-from",
            first.to_str().unwrap(),
            "--set",
            "padding=same",
        ],
    );
    assert_one_line_error(&changed, "padding");
    assert!(!tmp.path().join("changed").exists());
}

#[test]
fn batched_games_are_all_recorded_and_bad_settings_are_one_line_errors() {
    let tmp = TempDir::new();
    let greedy = short_config(tmp.path(), "");
    // Greedy batched games would all be copies of one game: refused.
    assert_one_line_error(
        &train(
            &tmp.path().join("copies"),
            greedy.to_str().unwrap(),
            &["--envs", "4"],
        ),
        "identical",
    );
    let config = tmp.path().join("explore.toml");
    fs::write(
        &config,
        fs::read_to_string(&greedy)
            .unwrap()
            .replace("epsilon = 0.0 ", "epsilon = 0.1 "),
    )
    .unwrap();
    let run = tmp.path().join("run");
    let out = train(
        &run,
        config.to_str().unwrap(),
        &["--episodes", "6", "--envs", "4"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let episodes: Vec<u64> = rows(&run)
        .iter()
        .map(|r| r.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(episodes, (0..6).collect::<Vec<_>>());
    assert_eq!(summary(&run)["envs"], 4);

    let bad = short_config(tmp.path(), "").with_file_name("bad.toml");
    fs::write(
        &bad,
        fs::read_to_string(&config)
            .unwrap()
            .replace("envs = 1 ", "envs = 0 "),
    )
    .unwrap();
    assert_one_line_error(
        &train(&tmp.path().join("bad-run"), bad.to_str().unwrap(), &[]),
        "envs must lie in",
    );
    let corrupt = tmp.path().join("corrupt");
    fs::create_dir(&corrupt).unwrap();
    fs::write(corrupt.join("checkpoint.json"), "{\"format\":").unwrap();
    assert_one_line_error(
        &train(
            &tmp.path().join("r2"),
            config.to_str().unwrap(),
            &["--continue-from", corrupt.to_str().unwrap()],
        ),
        "truncated",
    );
    assert_one_line_error(
        &train(
            &tmp.path().join("r3"),
            "configs/queen4x4-sarsa.toml",
            &["--envs", "4"],
        ),
        "--envs applies to knight and selfplay",
    );
}

/// Needs Stockfish (CI installs it and sets BURNMATE_REQUIRE_STOCKFISH); without it
/// the run must stop with the install hint before writing anything.
#[test]
fn selfplay_is_evaluated_against_weakened_stockfish_when_installed() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path(), "");
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("eval_stockfish = false", "eval_stockfish = true")
        .replace("stockfish_depth = 5", "stockfish_depth = 1");
    fs::write(&config, text).unwrap();
    let run = tmp.path().join("run");
    let out = train(&run, config.to_str().unwrap(), &["--episodes", "2"]);
    if missing_optional_tool(
        &out,
        "BURNMATE_REQUIRE_STOCKFISH",
        "apt-get install stockfish",
    ) {
        assert!(!run.exists(), "no output before the engine started");
        return;
    }
    let evals = fs::read_to_string(run.join("eval.csv")).unwrap();
    let stockfish: Vec<&str> = evals
        .lines()
        .filter(|l| l.contains(",stockfish,"))
        .collect();
    assert_eq!(stockfish.len(), 1, "{evals}");
    let games: u64 = stockfish[0].split(',').nth(2).unwrap().parse().unwrap();
    assert_eq!(games, 2, "{evals}");
    let s = summary(&run);
    let e = &s["eval_stockfish"];
    let shares = ["win", "draw", "loss"].map(|k| e[k].as_f64().unwrap());
    assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{e}");
    assert!(stdout(&out).contains("vs Stockfish"));
    assert!(
        fs::read_to_string(run.join("eval.svg"))
            .unwrap()
            .contains("vs Stockfish skill 0")
    );
}

#[test]
fn a_missing_stockfish_is_named_before_any_output() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path(), "");
    let text = fs::read_to_string(&config)
        .unwrap()
        .replace("eval_stockfish = false", "eval_stockfish = true")
        .replace(
            "stockfish = \"stockfish\"",
            "stockfish = \"no-such-engine\"",
        );
    fs::write(&config, text).unwrap();
    let run = tmp.path().join("run");
    let out = train(&run, config.to_str().unwrap(), &["--episodes", "2"]);
    assert_one_line_error(&out, "no-such-engine");
    assert!(!run.exists());
}
