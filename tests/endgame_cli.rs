//! End-to-end tests of the endgame study: the resumable grid, play with PGN export,
//! and the Stockfish opponent.

mod common;

use std::fs;

use common::*;

fn study(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "study",
        "endgame",
        "--out",
        dir.to_str().unwrap(),
        "--endgames",
        "kqk,krk",
        "--starts",
        "2",
        "--runs",
        "2",
        "--matches",
        "1000",
    ];
    args.extend_from_slice(extra);
    burnmate(&args)
}

#[test]
fn the_study_grid_writes_table_3_2_and_resumes_after_a_kill() {
    let tmp = TempDir::new();
    let dir = tmp.path().join("study");
    let out = study(&dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("32 runs: 0 done, 32 to run"));
    let table = fs::read_to_string(dir.join("table-3-2.md")).unwrap();
    assert!(table.contains("| KRK | engine | static | 4 |"), "{table}");
    assert!(
        table.contains("(93)"),
        "the study's KRK engine static share: {table}"
    );
    // With the exact engine reward, 1000 matches solve KQK (150 did not, in any run):
    // the cell's solved share is not 0.
    let kqk_engine = table
        .lines()
        .find(|l| l.starts_with("| KQK | engine | static |"))
        .expect("a KQK engine static row");
    let solved: f64 = kqk_engine
        .split('|')
        .nth(5)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(solved > 0.0, "{kqk_engine}");
    for file in [
        "win-curves-kqk.svg",
        "excess-moves-krk.svg",
        "table-3-2.json",
    ] {
        assert!(dir.join(file).is_file(), "{file}");
    }
    let results = dir.join("results.jsonl");
    let text = fs::read_to_string(&results).unwrap();
    assert_eq!(text.lines().count(), 32);

    // A kill while writing leaves a cut line: it is dropped and its run repeated.
    let cut = &text[..text.len() - 20];
    fs::write(&results, cut).unwrap();
    let out = study(&dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("31 done, 1 to run"),
        "{}",
        stdout(&out)
    );
    assert_eq!(fs::read_to_string(dir.join("table-3-2.md")).unwrap(), table);
    let mut before: Vec<&str> = text.lines().collect();
    let after_text = fs::read_to_string(&results).unwrap();
    let mut after: Vec<&str> = after_text.lines().collect();
    before.sort();
    after.sort();
    assert_eq!(before, after, "the repeated run gives the same result");

    // Runs recorded twice (two processes, before the directory lock) count once,
    // and the file is repaired.
    fs::write(&results, format!("{after_text}{after_text}")).unwrap();
    let out = study(&dir, &[]);
    assert!(
        stdout(&out).contains("32 done, 0 to run"),
        "{}",
        stdout(&out)
    );
    assert_eq!(fs::read_to_string(dir.join("table-3-2.md")).unwrap(), table);
    assert_eq!(fs::read_to_string(&results).unwrap().lines().count(), 32);

    // Other settings in the same directory are refused.
    assert_one_line_error(&study(&dir, &["--decay", "1.01"]), "other settings");
}

#[test]
fn play_shows_the_game_with_verdicts_and_exports_pgn_once() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    let out = train(
        &run,
        "configs/endgame-kqk-engine.toml",
        &["--episodes", "1000"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let pgn = tmp.path().join("game.pgn");
    let play = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(play.status.success(), "{}", stderr(&play));
    let text = stdout(&play);
    assert!(
        text.contains("optimal mate in 7") && text.contains("  1. "),
        "{text}"
    );
    // 1000 matches with the exact engine reward are enough for the frozen table to
    // mate (300 were not: the table shuffled the queen for 50 moves).
    assert!(text.contains("result  checkmate after"), "{text}");
    let pgn_text = fs::read_to_string(&pgn).unwrap();
    assert!(
        pgn_text.contains("[FEN \"7K/8/8/8/8/6k1/8/Q7 w - - 0 1\"]"),
        "{pgn_text}"
    );
    assert!(pgn_text.contains("\n1. Q"), "{pgn_text}");
    // The PGN is never overwritten.
    let again = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert_one_line_error(&again, "already exists");
    assert_eq!(stdout(&again), "", "refused before the game is played");
    assert_eq!(fs::read_to_string(&pgn).unwrap(), pgn_text);
    // Another start position, and a FEN of the wrong material.
    let other = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--fen",
        "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1",
    ]);
    assert!(other.status.success(), "{}", stderr(&other));
    let wrong = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--fen",
        "8/8/1K6/8/3k4/7R/8/8 w - - 0 1",
    ]);
    assert_one_line_error(&wrong, "not KQK");
    // Flags of the other study are refused, not ignored.
    let start = burnmate(&["play", run.to_str().unwrap(), "--start", "Qa1 Ka2 / Kc2"]);
    assert_one_line_error(&start, "--start and --max-moves apply to queen4x4 runs");
}

#[test]
fn flags_and_keys_that_do_not_apply_are_refused() {
    let tmp = TempDir::new();
    let queen = tmp.path().join("queen");
    assert!(
        train(&queen, "configs/queen4x4-sarsa.toml", &["--episodes", "20"])
            .status
            .success()
    );
    for flag in [
        ["--fen", "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1"],
        ["--pgn", "game.pgn"],
    ] {
        let mut args = vec!["play", queen.to_str().unwrap()];
        args.extend(flag);
        assert_one_line_error(&burnmate(&args), "apply to endgame runs");
    }
    // A config naming both a shipped start and a FEN is ambiguous.
    let both = train(
        &tmp.path().join("both"),
        "configs/endgame-kqk-engine.toml",
        &["--set", "fen=8/8/1K6/8/3k4/7Q/8/8 w - - 0 1"],
    );
    assert_one_line_error(&both, "set start or fen, not both");
}

/// Needs Stockfish (CI installs Debian's `stockfish` and sets
/// `BURNMATE_REQUIRE_STOCKFISH`); without it, checks the one-line error that says
/// how to install it.
#[test]
fn stockfish_defends_and_evaluates_when_installed() {
    let tmp = TempDir::new();
    let config = fs::read_to_string("configs/endgame-kqk-stockfish.toml")
        .unwrap()
        .replace("stockfish_depth = 15", "stockfish_depth = 6");
    let path = tmp.path().join("sf.toml");
    fs::write(&path, config).unwrap();
    let run = tmp.path().join("run");
    let out = train(&run, path.to_str().unwrap(), &["--episodes", "20"]);
    if missing_optional_tool(
        &out,
        "BURNMATE_REQUIRE_STOCKFISH",
        "apt-get install stockfish",
    ) {
        assert!(!run.exists(), "no run directory without an engine");
        return;
    }
    let s = summary(&run);
    assert_eq!(s["episodes"], 20);
    let stockfish_moves = s["stockfish_moves_to_mate"]
        .as_u64()
        .expect("Stockfish mates");
    assert!(
        stockfish_moves >= 7,
        "never faster than the optimum 7: {stockfish_moves}"
    );
    assert!(stdout(&out).contains("Stockfish"));
    // Its moves, checked against the tablebase wherever it was asked (as defender
    // and as evaluator): counted, and never more optimal ones than asked.
    let audit = &s["stockfish_dtm_optimal"];
    for side in ["white", "black"] {
        let asked = audit[format!("{side}_asked")].as_u64().unwrap();
        let optimal = audit[format!("{side}_optimal")].as_u64().unwrap();
        assert!(asked > 0 && optimal <= asked, "{audit}");
    }
    // The same run again: every position's answer comes from stockfish-cache/.
    let again = train(
        &tmp.path().join("again"),
        path.to_str().unwrap(),
        &["--episodes", "20"],
    );
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("stockfish       0 positions searched"),
        "{}",
        stdout(&again)
    );
    assert_eq!(summary(&tmp.path().join("again"))["reward"], s["reward"]);
}

/// The study's own setting (Stockfish defends and evaluates) as a grid; needs
/// Stockfish (skipped, with the reason, where it is missing).
#[test]
fn the_study_grid_runs_in_its_own_stockfish_setting() {
    let tmp = TempDir::new();
    let dir = tmp.path().join("sf-study");
    let run = |evaluator: &str| {
        burnmate(&[
            "study",
            "endgame",
            "--out",
            dir.to_str().unwrap(),
            "--endgames",
            "kqk",
            "--starts",
            "1",
            "--runs",
            "1",
            "--matches",
            "20",
            "--opponent",
            "stockfish",
            "--evaluator",
            evaluator,
        ])
    };
    let out = run("stockfish");
    if missing_optional_tool(
        &out,
        "BURNMATE_REQUIRE_STOCKFISH",
        "apt-get install stockfish",
    ) {
        return;
    }
    assert!(
        stdout(&out).contains("4 runs: 0 done, 4 to run"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("stockfish       "),
        "{}",
        stdout(&out)
    );
    let plan = fs::read_to_string(dir.join("study.toml")).unwrap();
    assert!(plan.contains("evaluator = \"stockfish\""), "{plan}");
    let table = fs::read_to_string(dir.join("table-3-2.md")).unwrap();
    assert!(
        table.contains("Stockfish's move DTM-optimal % (as white / as defender)"),
        "{table}"
    );
    assert_one_line_error(&run("tablebase"), "other settings");
}

#[test]
fn a_missing_engine_is_a_one_line_error() {
    let tmp = TempDir::new();
    let config = fs::read_to_string("configs/endgame-kqk-stockfish.toml")
        .unwrap()
        .replace(
            "stockfish = \"stockfish\"",
            "stockfish = \"no-such-engine\"",
        );
    let path = tmp.path().join("sf.toml");
    fs::write(&path, config).unwrap();
    let run = tmp.path().join("run");
    let out = train(&run, path.to_str().unwrap(), &["--episodes", "5"]);
    assert_one_line_error(&out, "engine 'no-such-engine' not found");
    assert!(!run.exists());
}

#[test]
fn three_shards_merged_report_exactly_what_one_unsharded_study_does() {
    let tmp = TempDir::new();
    let whole = tmp.path().join("whole");
    assert!(study(&whole, &[]).status.success());
    let shards: Vec<_> = (1..=3)
        .map(|i| tmp.path().join(format!("shard-{i}")))
        .collect();
    for (i, dir) in shards.iter().enumerate() {
        let spec = format!("{}/3", i + 1);
        let out = study(dir, &["--shard", &spec]);
        assert!(out.status.success(), "{}", stderr(&out));
        // 16 pairs of a static and a decaying run (one seed each) in turn: 6, 5, 5.
        let runs = if i == 0 { 12 } else { 10 };
        assert!(
            stdout(&out).contains(&format!("{runs} runs: 0 done, {runs} to run")),
            "{}",
            stdout(&out)
        );
    }
    // A shard directory resumes only as the same shard.
    assert_one_line_error(
        &study(&shards[0], &["--shard", "2/3"]),
        "holds shard 1/3, not shard 2/3",
    );
    assert_one_line_error(
        &study(&shards[0], &[]),
        "holds shard 1/3, not the whole grid",
    );
    assert_one_line_error(
        &study(&shards[0], &["--shard", "4/3"]),
        "--shard must be i/N",
    );
    let merged = tmp.path().join("merged");
    let dirs: Vec<&str> = shards.iter().map(|d| d.to_str().unwrap()).collect();
    let mut args = vec!["merge", "--out", merged.to_str().unwrap()];
    args.extend(&dirs);
    let out = burnmate(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("merged          32 of 32 runs"));
    for file in [
        "table-3-2.md",
        "table-3-2.json",
        "win-curves-kqk.svg",
        "excess-moves-krk.svg",
    ] {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(merged.join(file)).unwrap(),
            "{file}"
        );
    }
    // One shard twice (another missing) is refused, unless --partial.
    let twice = tmp.path().join("twice");
    let out = burnmate(&[
        "merge",
        "--out",
        twice.to_str().unwrap(),
        dirs[0],
        dirs[0],
        dirs[1],
    ]);
    assert_one_line_error(&out, "a shard missing or given twice");
    assert!(!twice.exists(), "nothing written");
    let out = burnmate(&[
        "merge",
        "--partial",
        "--out",
        twice.to_str().unwrap(),
        dirs[0],
        dirs[1],
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(" of 32 runs"), "{}", stdout(&out));
    // Shards of another grid do not merge.
    let other = tmp.path().join("other");
    assert!(
        study(&other, &["--decay", "1.01", "--shard", "1/3"])
            .status
            .success()
    );
    let out = burnmate(&[
        "merge",
        "--out",
        tmp.path().join("bad").to_str().unwrap(),
        dirs[0],
        other.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, "other settings");
}
