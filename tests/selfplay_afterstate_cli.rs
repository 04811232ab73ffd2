//! End-to-end tests of the afterstate self-play learner: outputs, evaluation
//! against fixed opponents and Stockfish, and config errors.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// A short afterstate config in `dir`: 24 games of at most 40 plies, 4 at a time,
/// evaluated after 0, 12 and 24 games over 4 games per opponent.
fn short_config(dir: &Path) -> PathBuf {
    let text = fs::read_to_string("configs/selfplay-afterstate.toml")
        .unwrap()
        .replace("eval_max_plies = 200", "eval_max_plies = 30")
        .replace("games = 3000", "games = 24")
        .replace("envs = 32", "envs = 4")
        .replace("max_plies = 200", "max_plies = 40")
        .replace("eval_every = 500", "eval_every = 12")
        .replace("eval_games = 400", "eval_games = 4")
        .replace("pgn_every = 500", "pgn_every = 12")
        .replace("batch_size = 256", "batch_size = 16");
    for setting in [
        "eval_max_plies = 30",
        "\nmax_plies = 40",
        "games = 24",
        "batch_size = 16",
    ] {
        assert!(text.contains(setting), "{setting}");
    }
    let path = dir.join("afterstate.toml");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_afterstate_run_writes_its_curve_sample_games_and_network() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path());
    let run = tmp.path().join("run");
    let out = train(&run, config.to_str().unwrap(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("vs greedy"), "{}", stdout(&out));
    let evals = fs::read_to_string(run.join("eval.csv")).unwrap();
    let lines: Vec<&str> = evals.lines().collect();
    assert_eq!(lines.len(), 7, "0, 12 and 24 games x 2 opponents: {evals}");
    assert!(lines[1].starts_with("0,random,4,") && lines[6].starts_with("24,greedy,4,"));
    let metrics = fs::read_to_string(run.join("metrics.csv")).unwrap();
    assert_eq!(metrics.lines().count(), 25);
    let samples = fs::read_to_string(run.join("eval-games.pgn")).unwrap();
    assert_eq!(samples.matches("[Event ").count(), 4, "{samples}");
    assert!(samples.contains("[White \"afterstate-td\"]") && samples.contains("vs greedy"));
    let pgn = fs::read_to_string(run.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 2);
    assert!(run.join("eval.svg").is_file() && run.join("checkpoint.json").is_file());
    let s = summary(&run);
    assert_eq!(s["algorithm"], "afterstate-td");
    assert_eq!(s["episodes"], 24);
    let greedy = &s["eval_greedy"];
    assert_eq!(greedy["games"], 4);
    let counted = ["wins", "draws", "losses"].map(|k| greedy[k].as_u64().unwrap());
    assert_eq!(counted.iter().sum::<u64>(), 4);
    let score = greedy["score"].as_f64().unwrap();
    assert_eq!(score, (counted[0] as f64 + counted[1] as f64 / 2.0) / 4.0);
    // compare shows the run's evaluations, not just its name.
    let compared = burnmate(&["compare", run.to_str().unwrap()]);
    assert!(compared.status.success(), "{}", stderr(&compared));
    let text = stdout(&compared);
    assert!(
        text.contains("eval_greedy.score") && text.contains("eval_random.wins"),
        "{text}"
    );
}

#[test]
fn eval_plays_the_trained_network_against_each_opponent() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path());
    let run = tmp.path().join("run");
    let out = train(&run, config.to_str().unwrap(), &["--episodes", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let run = run.to_str().unwrap();
    let out = burnmate(&["eval", run, "--games", "4", "--stockfish-skills", "0"]);
    let text = stdout(&out);
    if missing_optional_tool(&out, "BURNMATE_REQUIRE_STOCKFISH", "stockfish") {
        eprintln!("skipped the Stockfish row: {}", stderr(&out));
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    for row in [
        "| random mover | 4 |",
        "| greedy mover | 4 |",
        "| Stockfish skill 0, depth 5 | 4 |",
    ] {
        assert!(text.contains(row), "{row}: {text}");
    }
    // Stockfish's weakened play is random; the fixed movers' games repeat exactly.
    let again = stdout(&burnmate(&["eval", run, "--games", "4"]));
    assert!(
        text.starts_with(&again),
        "the same seed plays the same games: {again}"
    );
}

#[test]
fn settings_of_the_other_algorithm_are_one_line_errors() {
    let tmp = TempDir::new();
    let config = short_config(tmp.path());
    let config = config.to_str().unwrap();
    let run = tmp.path().join("run");
    let out = train(&run, config, &["--set", "combine=\"product\""]);
    assert_one_line_error(&out, "combine applies to algorithm = \"reference\" only");
    let out = train(&run, config, &["--set", "algorithm=\"reference\""]);
    assert_one_line_error(
        &out,
        "[afterstate] settings apply to algorithm = \"afterstate-td\"",
    );
    let out = train(&run, config, &["--set", "afterstate.batch_size=0"]);
    assert_one_line_error(&out, "afterstate.batch_size must be positive");
    let out = train(&run, config, &["--set", "afterstate.depth=2"]);
    assert_one_line_error(&out, "unknown field `depth`");
    let out = train(&run, config, &["--continue-from", "elsewhere"]);
    assert_one_line_error(&out, "continues with `burnmate resume RUN`");
    assert!(!run.exists(), "no run directory for a rejected config");
}
