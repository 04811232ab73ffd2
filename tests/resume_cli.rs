//! Resume after `kill -9`: for every study, a run killed after its first resume
//! point and continued with `burnmate resume` ends with the files of an
//! uninterrupted run of the same seed (metrics, checkpoint, and selfplay's games and
//! evaluations; the summary up to its timings).

mod common;

use std::fs;
use std::path::Path;

use common::*;

/// Starts `burnmate train` and kills it (SIGKILL) once its first resume point exists.
fn train_and_kill(dir: &Path, config: &str, extra: &[&str]) {
    let mut args = vec!["train", config, "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_and_kill_when(
        &args,
        || dir.join("resume.json").exists(),
        "its first resume point",
    );
    assert!(!dir.join("summary.json").exists(), "killed before the end");
}

fn killed_and_resumed_equals_uninterrupted(config: &str, extra: &[&str]) {
    let tmp = TempDir::new();
    let (full, killed) = (tmp.path().join("full"), tmp.path().join("killed"));
    let out = train(&full, config, extra);
    assert!(out.status.success(), "{}", stderr(&out));
    train_and_kill(&killed, config, extra);
    let out = burnmate(&["resume", killed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    for file in [
        "metrics.csv",
        "checkpoint.json",
        "games.pgn",
        "eval.csv",
        "eval-games.pgn",
    ] {
        if !full.join(file).exists() {
            continue;
        }
        assert_eq!(
            fs::read(full.join(file)).unwrap(),
            fs::read(killed.join(file)).unwrap(),
            "{config}: {file}"
        );
    }
    assert_eq!(
        summary_without_timings(&full),
        summary_without_timings(&killed)
    );
    assert!(
        !killed.join("resume.json").exists(),
        "a finished run drops its resume point"
    );
    assert_one_line_error(
        &burnmate(&["resume", killed.to_str().unwrap()]),
        "finished; there is nothing to resume",
    );
}

#[test]
fn queen4x4_resumes_exactly() {
    killed_and_resumed_equals_uninterrupted(
        "configs/queen4x4-sarsa.toml",
        &["--episodes", "40000", "--set", "checkpoint_every=2000"],
    );
}

#[test]
fn knight_dqn_resumes_exactly_with_its_replay_buffer_and_adam_state() {
    killed_and_resumed_equals_uninterrupted(
        "configs/knight-dqn.toml",
        &["--episodes", "3000", "--set", "checkpoint_every=200"],
    );
}

#[test]
fn knight_actor_critic_resumes_exactly_with_both_adam_states() {
    killed_and_resumed_equals_uninterrupted(
        "configs/knight-actor-critic.toml",
        &["--episodes", "3000", "--set", "checkpoint_every=200"],
    );
}

#[test]
fn endgame_resumes_exactly() {
    killed_and_resumed_equals_uninterrupted(
        "configs/endgame-kqk-engine.toml",
        &["--episodes", "30000", "--set", "checkpoint_every=1000"],
    );
}

/// Needs Stockfish (skipped, with its reason, where it is missing; required in CI).
#[test]
fn a_resumed_stockfish_run_audits_every_answer_not_only_those_after_the_resume() {
    let tmp = TempDir::new();
    let config = fs::read_to_string("configs/endgame-kqk-stockfish.toml")
        .unwrap()
        .replace("stockfish_depth = 15", "stockfish_depth = 4");
    let path = tmp.path().join("sf.toml");
    fs::write(&path, config).unwrap();
    let path = path.to_str().unwrap();
    let extra = ["--episodes", "200", "--set", "checkpoint_every=20"];
    let full = tmp.path().join("full");
    let out = train(&full, path, &extra);
    if missing_optional_tool(
        &out,
        "BURNMATE_REQUIRE_STOCKFISH",
        "apt-get install stockfish",
    ) {
        return;
    }
    let killed = tmp.path().join("killed");
    train_and_kill(&killed, path, &extra);
    let out = burnmate(&["resume", killed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let audit = |dir: &Path| summary(dir)["stockfish_dtm_optimal"].clone();
    assert!(audit(&full)["white_asked"].as_u64().unwrap() > 0);
    assert_eq!(audit(&full), audit(&killed));
}

#[test]
fn metrics_rows_changed_before_the_resume_point_are_refused() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    train_and_kill(
        &run,
        "configs/queen4x4-sarsa.toml",
        &["--episodes", "40000", "--set", "checkpoint_every=2000"],
    );
    // One digit of the first row changes, the file keeps its length and lines.
    let partial = run.join("metrics.csv.partial");
    let mut bytes = fs::read(&partial).unwrap();
    let row = bytes.iter().position(|&b| b == b'\n').unwrap() + 1;
    let digit = row + bytes[row..].iter().position(u8::is_ascii_digit).unwrap();
    bytes[digit] = if bytes[digit] == b'7' { b'8' } else { b'7' };
    fs::write(&partial, &bytes).unwrap();
    assert_one_line_error(
        &burnmate(&["resume", run.to_str().unwrap()]),
        "rows changed since the resume point was saved",
    );
}

#[test]
fn runs_without_a_resume_point_or_with_a_damaged_one_are_one_line_errors() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    train_and_kill(
        &run,
        "configs/endgame-kqk-engine.toml",
        &["--episodes", "30000", "--set", "checkpoint_every=1000"],
    );
    let point = run.join("resume.json");
    let text = fs::read_to_string(&point).unwrap();
    fs::write(&point, &text[..text.len() / 2]).unwrap();
    assert_one_line_error(
        &burnmate(&["resume", run.to_str().unwrap()]),
        "malformed or truncated",
    );
    fs::remove_file(&point).unwrap();
    assert_one_line_error(
        &burnmate(&["resume", run.to_str().unwrap()]),
        "no resume point",
    );
    assert_one_line_error(
        &burnmate(&["resume", tmp.path().join("none").to_str().unwrap()]),
        "none",
    );
}

#[test]
fn selfplay_resumes_exactly_with_persistent_adam_and_its_pgn_and_evaluations() {
    let tmp = TempDir::new();
    let config = tmp.path().join("selfplay.toml");
    let text = fs::read_to_string("configs/selfplay.toml")
        .unwrap()
        .replace("max_plies = 100", "max_plies = 16")
        .replace("eval_every = 50", "eval_every = 3")
        .replace("eval_games = 20", "eval_games = 2")
        .replace("pgn_every = 50", "pgn_every = 2")
        .replace("adam = \"reference\"", "adam = \"persistent\"");
    fs::write(&config, text).unwrap();
    let config = config.to_str().unwrap().to_string();
    killed_and_resumed_equals_uninterrupted(&config, &["--episodes", "15"]);
}

#[test]
fn afterstate_selfplay_resumes_exactly_with_its_replay_buffer_and_adam_state() {
    let tmp = TempDir::new();
    let config = tmp.path().join("afterstate.toml");
    let text = fs::read_to_string("configs/selfplay-afterstate.toml")
        .unwrap()
        .replace("eval_max_plies = 200", "eval_max_plies = 20")
        .replace("envs = 32", "envs = 4")
        .replace("\nmax_plies = 200", "\nmax_plies = 30")
        .replace("eval_every = 500", "eval_every = 10")
        .replace("eval_games = 400", "eval_games = 2")
        .replace("pgn_every = 500", "pgn_every = 5")
        .replace("batch_size = 256", "batch_size = 16");
    assert!(text.contains("eval_every = 10") && text.contains("\nmax_plies = 30"));
    fs::write(&config, text).unwrap();
    let config = config.to_str().unwrap().to_string();
    killed_and_resumed_equals_uninterrupted(&config, &["--episodes", "30"]);
}
