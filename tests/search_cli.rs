//! End-to-end test of a search run (`study = "search"`): it trains from the
//! frontier's starts (and retries its failures), records its losses, resumes a kill to the bytes of an
//! uninterrupted run, and serves its net to `eval` and `play`.

mod common;

use std::fs;
use std::path::Path;

use common::*;

/// 120 games (two blocks of 64 and 56), half the starts retried from the first
/// block's failures, evaluated on 20 starts.
const SETTINGS: [&str; 8] = [
    "--episodes",
    "120",
    "--set",
    "starts=frontier",
    "--set",
    "retry_share=0.5",
    "--set",
    "eval_starts=20",
];

fn train_search(dir: &Path, tables: &Path, crash: Option<&str>) -> std::process::Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"));
    command
        .args([
            "train",
            "configs/search-kqk.toml",
            "--out",
            dir.to_str().unwrap(),
        ])
        .args(SETTINGS)
        .env("BURNMATE_TABLEBASES", tables);
    if let Some(point) = crash {
        command.env("BURNMATE_CRASH_AT", point);
    }
    command.output().unwrap()
}

/// `evaluation.json` without its wall times.
fn evaluation_without_times(dir: &Path) -> serde_json::Value {
    let mut value: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("evaluation.json")).unwrap()).unwrap();
    value["train_seconds"] = 0.into();
    for point in value["curve"].as_array_mut().unwrap() {
        point["train_seconds"] = 0.into();
    }
    value
}

#[test]
fn a_killed_search_run_resumes_to_the_bytes_of_an_uninterrupted_one_and_serves_its_net() {
    let tmp = TempDir::new();
    let tables = tmp.path().join("tables");
    let (killed, whole) = (tmp.path().join("killed"), tmp.path().join("whole"));
    let out = train_search(&killed, &tables, Some("search-training-saved"));
    assert!(!out.status.success(), "the injected crash aborts the run");
    assert!(killed.join("resume.json").exists());
    assert!(!killed.join("net.json").exists());
    // Trained on the rules alone: no tablebase was built or read for training.
    assert!(fs::read_dir(&tables).map_or(true, |mut d| d.next().is_none()));
    let out = burnmate(&["resume", killed.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = train_search(&whole, &tables, None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("of 20 won starts"),
        "{}",
        stdout(&out)
    );

    for file in ["net.json", "metrics.csv", "config.toml"] {
        assert_eq!(
            fs::read(killed.join(file)).unwrap(),
            fs::read(whole.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(
        evaluation_without_times(&killed),
        evaluation_without_times(&whole)
    );
    assert!(!killed.join("resume.json").exists(), "gone once evaluated");
    assert!(whole.join("losses.svg").exists());

    // A row a block; the second block's updates recorded finite, positive losses.
    let metrics = fs::read_to_string(whole.join("metrics.csv")).unwrap();
    let rows: Vec<&str> = metrics.lines().collect();
    assert_eq!(
        rows[0],
        "games,mated,policy_loss,value_loss,moves_left_loss"
    );
    assert_eq!(rows.len(), 3, "{metrics}");
    assert!(
        rows[1].starts_with("64,") && rows[2].starts_with("120,"),
        "{metrics}"
    );
    let losses: Vec<f64> = rows[2]
        .split(',')
        .skip(2)
        .map(|x| x.parse().unwrap())
        .collect();
    assert!(
        losses.iter().all(|&l| l.is_finite() && l > 0.0),
        "{metrics}"
    );

    let evaluation = evaluation_without_times(&whole);
    assert_eq!(evaluation["eval"]["games"], 20);
    assert_eq!(evaluation["games"], 120);
    // As the defender: as many lost starts as won ones, a quarter as many drawn.
    let defence = &evaluation["defence"]["search"];
    assert_eq!(
        (
            defence["lost_games"].as_u64(),
            defence["drawn_games"].as_u64()
        ),
        (Some(20), Some(5))
    );
    let survival = defence["survival"].as_f64().unwrap();
    assert!(survival > 0.0 && survival <= 1.0, "{evaluation}");
    assert!(
        evaluation["frontier_plies"].as_f64().unwrap() >= 1.0,
        "{evaluation}"
    );

    let run = whole.to_str().unwrap();
    let out = burnmate(&["play", run, "--fen", "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("1. Qg7#"), "{}", stdout(&out));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["eval", run, "--games", "5", "--simulations", "8"])
        .env("BURNMATE_TABLEBASES", &tables)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("search (8 simulations)")
            && stdout(&out).contains("as the defender: 5 lost and 2 drawn"),
        "{}",
        stdout(&out)
    );
    let out = burnmate(&["resume", run]);
    assert_one_line_error(&out, "is finished");
}

#[test]
fn a_search_config_with_starts_that_read_the_tablebase_is_one_line() {
    let tmp = TempDir::new();
    let out = train(
        &tmp.path().join("run"),
        "configs/search-kqk.toml",
        &["--set", "starts=won"],
    );
    assert_one_line_error(
        &out,
        "starts must be \"retro\", \"frontier\" or \"uniform\"",
    );
    assert!(!tmp.path().join("run").exists());
    let out = train(
        &tmp.path().join("run"),
        "configs/search-kpk.toml",
        &["--set", "starts=retro"],
    );
    assert_one_line_error(
        &out,
        "kpk trains from uniform starts alone (white mates after a promotion)",
    );
    assert!(!tmp.path().join("run").exists());
}

/// A pawn ending trains from uniform starts (no tablebase read) and is evaluated
/// on won KPK starts against the perfect defender, which reads the pawn table and,
/// after a promotion, the pawnless one it converts to.
#[test]
fn a_pawn_ending_trains_on_the_rules_and_is_evaluated_on_won_starts() {
    let tmp = TempDir::new();
    let (run, tables) = (tmp.path().join("kpk"), tmp.path().join("tables"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["train", "configs/search-kpk.toml", "--out"])
        .arg(&run)
        .args(["--set", "games=64", "--set", "eval_starts=10"])
        .env("BURNMATE_TABLEBASES", &tables)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("of 10 won starts"),
        "{}",
        stdout(&out)
    );
    let evaluation = evaluation_without_times(&run);
    assert_eq!(evaluation["games"], 64);
    assert_eq!(evaluation["eval"]["games"], 10);
    assert!(
        evaluation.get("curriculum_level").is_none(),
        "no curriculum: {evaluation}"
    );
    for table in ["kpk", "kqk", "krk"] {
        assert!(tables.join(format!("{table}.bmtb")).exists(), "{table}");
    }
    let out = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--fen",
        "8/8/8/3k4/8/8/2KP4/8 w - - 0 1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--fen",
        "8/8/8/3k4/8/8/2K4Q/8 w - - 0 1",
    ]);
    assert_one_line_error(&out, "is not KPK");
    // As a UCI engine: after the promotion the position is KQK, which its self-play
    // reached, so no note says it plays outside what it learned; KRPK gets one.
    let mut uci = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["uci", run.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    uci.stdin
        .take()
        .unwrap()
        .write_all(
            b"position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1 moves e7e8q a2a3\ngo nodes 16\nposition fen 8/8/8/3k4/8/8/2K1P2R/8 w - - 0 1\ngo nodes 16\nquit\n",
        )
        .unwrap();
    let out = uci.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("bestmove").count(), 2, "{text}");
    assert_eq!(
        text.matches("the net plays outside what it learned")
            .count(),
        1,
        "only KRPK: {text}"
    );
}
