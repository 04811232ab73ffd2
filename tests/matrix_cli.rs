//! End-to-end test of `burnmate matrix`: a small matrix runs, reports every cell
//! beside the optimum, resumes, refuses other options, and repeats itself exactly.

mod common;

use std::fs;

use common::*;

fn matrix(dir: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "matrix",
        "--out",
        dir.to_str().unwrap(),
        "--games",
        "knight,krk",
        "--algorithms",
        "tabular,dqn",
        "--seeds",
        "2",
        "--budget",
        "0.002",
    ];
    args.extend_from_slice(extra);
    burnmate(&args)
}

/// The directory of a matrix run in `tmp`/`name` with `settings`, which succeeded.
fn successful_matrix(tmp: &TempDir, name: &str, settings: &[&str]) -> std::path::PathBuf {
    let dir = tmp.path().join(name);
    let mut args = vec!["matrix", "--out", dir.to_str().unwrap()];
    args.extend_from_slice(settings);
    let out = burnmate(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    dir
}

/// The results without their wall times, in cell order.
fn results_without_times(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let mut rows: Vec<serde_json::Value> = fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            let row = v.as_object_mut().unwrap();
            row.remove("train_seconds");
            for point in row
                .get_mut("curve")
                .and_then(|c| c.as_array_mut())
                .into_iter()
                .flatten()
            {
                point.as_object_mut().unwrap().remove("train_seconds");
            }
            v
        })
        .collect();
    rows.sort_by_key(|v| v.to_string());
    rows
}

#[test]
fn a_small_matrix_reports_every_cell_beside_the_optimum_and_resumes() {
    let tmp = TempDir::new();
    let dir = tmp.path().join("m");
    let out = matrix(&dir, &["--jobs", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("6 runs: 0 done, 6 to run"),
        "{}",
        stdout(&out)
    );
    let md = fs::read_to_string(dir.join("matrix.md")).unwrap();
    // knight's optimum over the 1000 evaluation starts; KRK's from 1000 won starts.
    assert!(md.contains("| knight | dqn | 40 |"), "{md}");
    assert!(md.contains("| krk | tabular | 400 |"), "{md}");
    assert!(md.contains("| krk | dqn | 10 |"), "{md}");
    assert!(md.contains("- tabular on knight: "), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("matrix.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 3);
    assert_eq!(json["runs"].as_array().unwrap().len(), 6);
    let knight = &json["rows"][0];
    assert_eq!(knight["optimal_win_rate"], 0.998);
    assert!(
        fs::read_to_string(dir.join("matrix.svg"))
            .unwrap()
            .starts_with("<svg")
    );

    let again = matrix(&dir, &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stdout(&again).contains("6 runs: 6 done, 0 to run"));

    let other = matrix(&dir, &["--starts", "shipped"]);
    assert_one_line_error(&other, "other settings");

    // A line of a run outside the plan never counts into its table.
    let stranger = tmp.path().join("stranger");
    fs::create_dir(&stranger).unwrap();
    for file in ["matrix.toml", "results.jsonl"] {
        fs::copy(dir.join(file), stranger.join(file)).unwrap();
    }
    let results = fs::read_to_string(dir.join("results.jsonl")).unwrap();
    let line = results.lines().next().unwrap();
    let at = line.find("\"seed\":").unwrap() + "\"seed\":".len();
    let first = format!("{}7{}", &line[..at], &line[at + 1..]);
    fs::write(
        stranger.join("results.jsonl"),
        format!("{results}{first}\n"),
    )
    .unwrap();
    assert_one_line_error(
        &matrix(&stranger, &[]),
        "results.jsonl holds a run outside this plan",
    );

    let twin = tmp.path().join("twin");
    assert!(matrix(&twin, &["--jobs", "1"]).status.success());
    assert_eq!(
        results_without_times(&dir),
        results_without_times(&twin),
        "the same seeds give the same cells, whatever the thread count"
    );

    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    assert!(matrix(&a, &["--shard", "1/2"]).status.success());
    let out = matrix(&b, &["--shard", "2/2"]);
    assert!(
        stdout(&out).contains("3 runs: 0 done, 3 to run"),
        "{}",
        stdout(&out)
    );
    let merged = tmp.path().join("merged");
    let out = burnmate(&[
        "merge",
        "--out",
        merged.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(results_without_times(&merged), results_without_times(&dir));
}

/// KQKR, KRKB and KRKN (black keeps a piece) run beside their optimum: 1000 won
/// starts (the matrix's seed), white mates in 13.158, 12.566 and 14.245 moves on
/// average under perfect play, against the general tables' defender; they have no
/// shipped starts.
#[test]
fn endgames_with_a_defender_piece_run_beside_their_optimum() {
    let tmp = TempDir::new();
    let settings = [
        "--games",
        "kqkr,krkb,krkn",
        "--algorithms",
        "tabular",
        "--seeds",
        "1",
        "--budget",
        "0.001",
    ];
    let dir = successful_matrix(&tmp, "m", &settings);
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("matrix.json")).unwrap()).unwrap();
    let optimum: Vec<(String, f64, f64)> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["game"].as_str().unwrap().to_string(),
                r["optimal_win_rate"].as_f64().unwrap(),
                r["optimal_moves"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        optimum,
        [
            ("kqkr".to_string(), 1.0, 13.158),
            ("krkb".to_string(), 1.0, 12.566),
            ("krkn".to_string(), 1.0, 14.245)
        ]
    );
    let shipped = burnmate(&[
        "matrix",
        "--out",
        tmp.path().join("s").to_str().unwrap(),
        "--games",
        "kqkr",
        "--starts",
        "shipped",
    ]);
    assert_one_line_error(&shipped, "kqkr has no shipped starts");
    assert!(!tmp.path().join("s").exists());
}

#[test]
fn unknown_games_and_algorithms_are_one_line_errors() {
    let tmp = TempDir::new();
    let out = burnmate(&[
        "matrix",
        "--out",
        tmp.path().join("m").to_str().unwrap(),
        "--games",
        "kbk",
    ]);
    assert_one_line_error(&out, "invalid value 'kbk' for '--games");
    assert!(stderr(&out).contains("possible values: queen4x4, knight, kqk"));
    let out = burnmate(&[
        "matrix",
        "--out",
        tmp.path().join("m").to_str().unwrap(),
        "--algorithms",
        "ppo",
    ]);
    assert_one_line_error(&out, "invalid value 'ppo' for '--algorithms");
}

#[test]
fn the_search_learner_runs_on_an_endgame_and_repeats_itself() {
    let tmp = TempDir::new();
    let settings = [
        "--games",
        "queen4x4,kqk",
        "--algorithms",
        "mcts",
        "--seeds",
        "1",
        "--budget",
        "0.000667",
    ];
    let (a, b) = (
        successful_matrix(&tmp, "a", &settings),
        successful_matrix(&tmp, "b", &settings),
    );
    let rows = results_without_times(&a);
    // queen4x4 is no chess position: the search learner does not apply there.
    assert_eq!(rows.len(), 1, "{rows:?}");
    let row = &rows[0];
    assert_eq!(row["game"], "kqk");
    assert_eq!(row["episodes"], 30);
    assert_eq!(row["eval"]["games"], 1000);
    assert_eq!(row["raw_policy"]["games"], 1000);
    assert!(row["curriculum_level"].as_u64().is_some(), "{row}");
    // The curve ends at the trained network: the same evaluation as the cell's.
    let curve = row["curve"].as_array().unwrap();
    assert_eq!(curve.last().unwrap()["games"], 30);
    assert_eq!(curve.last().unwrap()["eval"], row["eval"]);
    assert!(a.join("curves.svg").exists());
    assert_eq!(rows, results_without_times(&b));
    let net = a.join("nets").join("kqk-mcts-0.json");
    assert_eq!(
        fs::read(&net).unwrap(),
        fs::read(b.join("nets/kqk-mcts-0.json")).unwrap()
    );
    // The cell keeps its losses a block of games, as a search run does.
    let metrics = fs::read_to_string(a.join("nets/kqk-mcts-0.metrics.csv")).unwrap();
    let lines: Vec<&str> = metrics.lines().collect();
    assert_eq!(
        lines[0],
        "games,mated,policy_loss,value_loss,moves_left_loss"
    );
    assert!(lines.len() >= 2, "{metrics}");
    assert!(lines.last().unwrap().starts_with("30,"), "{metrics}");
    assert_eq!(
        metrics,
        fs::read_to_string(b.join("nets/kqk-mcts-0.metrics.csv")).unwrap()
    );
    the_saved_net_plays_and_serves_uci(&net);
}

/// `play NET --fen` plays one KQK game against the perfect defender to its end;
/// `uci NET` answers a position with a legal move; bad requests are one line.
fn the_saved_net_plays_and_serves_uci(net: &std::path::Path) {
    let net = net.to_str().unwrap();
    let out = burnmate(&["play", net, "--fen", "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("optimal mate in 1"), "{text}");
    assert!(
        text.contains("1. Qg7#"),
        "the search finds the mate in one: {text}"
    );
    assert!(text.lines().any(|l| l.starts_with("result  ")), "{text}");

    let mut uci = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["uci", net])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::{BufRead as _, Write as _};
    // Black's queen and king against the white king (no mate in one, so no search
    // ends early by a proof): the net plays either colour. `quit` is sent only
    // after the four answers, since it stops a running search.
    const FEN: &str = "8/8/8/3k4/8/8/6q1/K7 b - - 0 1";
    let mut stdin = uci.stdin.take().unwrap();
    write!(
        stdin,
        "uci\nposition fen {FEN}\ngo\ngo nodes 16\ngo movetime 50\ngo nodes 0\n"
    )
    .unwrap();
    let mut lines = Vec::new();
    for line in std::io::BufReader::new(uci.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let done = line.starts_with("bestmove ");
        lines.push(line);
        if done && lines.iter().filter(|l| l.starts_with("bestmove ")).count() == 4 {
            break;
        }
    }
    writeln!(stdin, "quit").unwrap();
    assert!(uci.wait().unwrap().success());
    let text = lines.join("\n");
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("{text}"));
    let position: shakmaty::Chess = FEN
        .parse::<shakmaty::fen::Fen>()
        .unwrap()
        .into_position(shakmaty::CastlingMode::Standard)
        .unwrap();
    let mv = best.parse::<shakmaty::uci::UciMove>().unwrap();
    assert!(mv.to_move(&position).is_ok(), "{best} is not legal");
    let nodes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split(" nodes ").nth(1)?.split(' ').next())
        .collect();
    // `go` and `go nodes 0` (ignored) run the default 128 simulations, `go nodes
    // 16` sixteen, `go movetime 50` as many as 50 ms allow.
    assert_eq!(
        [nodes[0], nodes[1], nodes[3]],
        ["128", "16", "128"],
        "{text}"
    );
    assert_eq!(
        nodes.len(),
        4,
        "go, go nodes, go movetime and go nodes 0 each answered: {text}"
    );

    let out = burnmate(&["eval", net, "--games", "20", "--simulations", "8"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("20 won starts against the perfect defender"),
        "{text}"
    );
    assert!(text.contains("search (8 simulations)"), "{text}");
    assert!(text.contains("raw policy"), "{text}");

    assert_one_line_error(
        &burnmate(&["eval", net, "--games", "0"]),
        "--games must be positive",
    );
    assert_one_line_error(
        &burnmate(&["play", net]),
        "a search net plays from --fen FEN",
    );
    // A PGN path in a missing directory is refused before the game, by its own name.
    let out = burnmate(&[
        "play",
        net,
        "--fen",
        "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
        "--pgn",
        "/nonexistent-burnmate/game.pgn",
    ]);
    assert_one_line_error(
        &out,
        "--pgn /nonexistent-burnmate/game.pgn: directory /nonexistent-burnmate does not exist",
    );
    assert_eq!(stdout(&out), "", "no game was played");
    assert_one_line_error(
        &burnmate(&["uci", net, "--plies", "2"]),
        "a search net searches by simulations",
    );
    let dir = std::path::Path::new(net).parent().unwrap();
    let broken = dir.join("broken.json");
    fs::write(&broken, &fs::read(net).unwrap()[..100]).unwrap();
    assert_one_line_error(
        &burnmate(&[
            "play",
            broken.to_str().unwrap(),
            "--fen",
            "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
        ]),
        "is malformed or truncated",
    );
}

#[test]
fn retro_starts_train_every_algorithm_by_a_curriculum_and_repeat_themselves() {
    let tmp = TempDir::new();
    let settings = [
        "--games",
        "krk",
        "--algorithms",
        "tabular,td,dqn",
        "--seeds",
        "1",
        "--budget",
        "0.002",
        "--starts",
        "retro",
    ];
    let (a, b) = (
        successful_matrix(&tmp, "a", &settings),
        successful_matrix(&tmp, "b", &settings),
    );
    let rows = results_without_times(&a);
    assert_eq!(rows.len(), 3, "{rows:?}");
    for row in &rows {
        // Evaluated from the won starts; trained on a curriculum whose level is kept.
        assert_eq!(row["eval"]["games"], 1000, "{row}");
        assert!(row["curriculum_level"].as_u64().is_some(), "{row}");
    }
    // Tabular's 400 matches start one un-move from mate at level 0: some are won.
    let tabular = rows.iter().find(|r| r["algorithm"] == "tabular").unwrap();
    assert!(
        tabular["training_win_rate"].as_f64().unwrap() > 0.0,
        "{tabular}"
    );
    assert!(
        fs::read_to_string(a.join("matrix.md"))
            .unwrap()
            .contains("grown backwards from mate")
    );
    assert_eq!(rows, results_without_times(&b));
}

#[test]
fn a_search_cell_killed_in_training_goes_on_to_the_bytes_of_an_uninterrupted_one() {
    let tmp = TempDir::new();
    // 120 games: two blocks of self-play, a resume point after the first.
    let settings = [
        "--games",
        "kqk",
        "--algorithms",
        "mcts",
        "--seeds",
        "1",
        "--budget",
        "0.002667",
    ];
    let killed = tmp.path().join("killed");
    let tables = tmp.path().join("tables");
    let run = |crash: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"));
        command
            .args(["matrix", "--out", killed.to_str().unwrap()])
            .args(settings)
            .env("BURNMATE_TABLEBASES", &tables);
        if let Some(point) = crash {
            command.env("BURNMATE_CRASH_AT", point);
        }
        command.output().unwrap()
    };
    let out = run(Some("search-training-saved"));
    assert!(!out.status.success(), "the injected crash aborts the run");
    let resume = killed.join("nets/kqk-mcts-0.resume.json");
    assert!(resume.exists());
    assert_eq!(
        fs::read_to_string(killed.join("results.jsonl")).unwrap(),
        ""
    );
    // Trained on the rules alone: no tablebase was built or read for training.
    assert!(fs::read_dir(&tables).map_or(true, |mut d| d.next().is_none()));

    let out = run(None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(tables.join("kqk.bmtb").exists(), "built for the evaluation");
    let resumed = killed;
    let whole = successful_matrix(&tmp, "whole", &settings);
    assert_eq!(
        results_without_times(&resumed),
        results_without_times(&whole)
    );
    assert_eq!(
        fs::read(resumed.join("nets/kqk-mcts-0.json")).unwrap(),
        fs::read(whole.join("nets/kqk-mcts-0.json")).unwrap()
    );
    assert_eq!(
        fs::read(resumed.join("nets/kqk-mcts-0.metrics.csv")).unwrap(),
        fs::read(whole.join("nets/kqk-mcts-0.metrics.csv")).unwrap()
    );
    assert!(
        !resume.exists(),
        "a recorded cell's resume point is removed"
    );
}
