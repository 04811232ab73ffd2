//! `burnmate match`: a short match against a scripted UCI engine (a run served by
//! `burnmate uci`), one against Stockfish, the resume of a killed match, and bad
//! requests as one-line errors.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// A UCI engine that is `burnmate uci RUN`, started by a shell script.
fn scripted_engine(dir: &Path, run: &Path) -> PathBuf {
    let script = dir.join("engine.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nexec '{}' uci '{}'\n",
            env!("CARGO_BIN_EXE_burnmate"),
            run.display()
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    script
}

/// A selfplay run and a scripted engine serving it (as command-line arguments), and
/// the match directory to use.
fn match_setup(dir: &Path) -> (String, String, PathBuf) {
    let run = selfplay_run(dir);
    let engine = scripted_engine(dir, &run);
    let text = |path: PathBuf| path.to_str().unwrap().to_string();
    (text(run), text(engine), dir.join("match"))
}

fn match_args<'a>(run: &'a str, out: &'a str, engine: &'a str, games: &'a str) -> Vec<&'a str> {
    vec![
        "match",
        run,
        "--out",
        out,
        "--engine",
        engine,
        "--games",
        games,
        "--max-plies",
        "60",
        "--jobs",
        "1",
    ]
}

#[test]
fn a_two_game_match_against_a_scripted_engine_alternates_colours_and_reports_elo() {
    let tmp = TempDir::new();
    let (run, engine, out_dir) = match_setup(tmp.path());
    let (run_s, out_s, engine_s) = (run.as_str(), out_dir.to_str().unwrap(), engine.as_str());
    let out = burnmate(&match_args(run_s, out_s, engine_s, "2"));
    assert!(out.status.success(), "{}", stderr(&out));
    // The same greedy net on both sides repeats itself: two draws by repetition.
    let report = stdout(&out);
    assert!(
        report.contains("+0 =2 -0, score 0.500, Elo +0.0 [+0.0, +0.0]"),
        "{report}"
    );
    let pgn = fs::read_to_string(out_dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event \"burnmate match\"]").count(), 2);
    assert!(
        pgn.contains("[White \"burnmate run\"]\n[Black \"")
            && pgn.contains("[Black \"burnmate run\"]")
    );
    assert_eq!(
        pgn.matches("[Termination \"threefold repetition\"]")
            .count(),
        2
    );
    // Both games start from the first shipped opening.
    let first = fs::read_to_string("data/openings.epd").unwrap();
    let fen: Vec<&str> = first
        .lines()
        .next()
        .unwrap()
        .split_whitespace()
        .take(4)
        .collect();
    assert_eq!(
        pgn.matches(&format!("[FEN \"{} 0 1\"]", fen.join(" ")))
            .count(),
        2
    );
    let summary = summary(&out_dir);
    assert_eq!(summary["opponents"][0]["draws"], 2);
    // Rerunning a finished match plays nothing and reports the same.
    let again = burnmate(&match_args(run_s, out_s, engine_s, "2"));
    assert_eq!(stdout(&again), report);
    assert_eq!(stderr(&again), "");
}

#[test]
fn a_match_killed_after_a_game_resumes_to_the_uninterrupted_result() {
    let tmp = TempDir::new();
    let run = selfplay_run(tmp.path());
    let engine = scripted_engine(tmp.path(), &run);
    let (whole, killed) = (tmp.path().join("whole"), tmp.path().join("killed"));
    let run_s = run.to_str().unwrap();
    let engine_s = engine.to_str().unwrap();
    let out = burnmate(&match_args(run_s, whole.to_str().unwrap(), engine_s, "4"));
    assert!(out.status.success(), "{}", stderr(&out));
    let args = match_args(run_s, killed.to_str().unwrap(), engine_s, "4");
    let crashed = Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(&args)
        .env("BURNMATE_CRASH_AT", "match-game-recorded")
        .output()
        .unwrap();
    assert!(!crashed.status.success());
    let results = killed.join("results.tsv");
    assert_eq!(fs::read_to_string(&results).unwrap().lines().count(), 1);
    assert!(!killed.join("summary.json").exists());
    // A kill in the middle of the next line leaves part of it.
    let mut text = fs::read_to_string(&results).unwrap();
    text.push_str("1\t1/2-1/2\tthreefold rep");
    fs::write(&results, text).unwrap();
    let resumed = burnmate(&args);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(
        stderr(&resumed).lines().count(),
        3,
        "three games left to play"
    );
    for file in ["games.pgn", "summary.json"] {
        assert_eq!(
            fs::read_to_string(killed.join(file))
                .unwrap()
                .replace("killed", "whole"),
            fs::read_to_string(whole.join(file)).unwrap(),
            "{file}"
        );
    }
    // Damage that is not a cut line is refused.
    fs::write(&results, "0\t1-0\tcheckmate\te2e4 e2e4\n").unwrap();
    fs::remove_file(killed.join("summary.json")).unwrap();
    assert_one_line_error(&burnmate(&args), "results.tsv game 0 is damaged");
    // A result its own moves contradict is damage too.
    let first = fs::read_to_string(whole.join("results.tsv")).unwrap();
    let first = first.lines().next().unwrap();
    let fields: Vec<&str> = first.split('\t').collect();
    let wrong = if fields[1] == "1-0" { "0-1" } else { "1-0" };
    fs::write(
        &results,
        format!("{}\t{wrong}\t{}\t{}\n", fields[0], fields[2], fields[3]),
    )
    .unwrap();
    assert_one_line_error(
        &burnmate(&args),
        &format!(
            "its result {wrong} contradicts its moves, which give {}",
            fields[1]
        ),
    );
    // Another run put at the run's path does not resume this match.
    let other_dir = tmp.path().join("other");
    fs::create_dir(&other_dir).unwrap();
    let other = train(
        &other_dir.join("run"),
        other_dir.join("../selfplay.toml").to_str().unwrap(),
        &["--episodes", "2", "--seed", "9"],
    );
    assert!(other.status.success(), "{}", stderr(&other));
    fs::rename(&run, tmp.path().join("first-run")).unwrap();
    fs::rename(other_dir.join("run"), &run).unwrap();
    assert_one_line_error(&burnmate(&args), "holds a match of another run");
}

#[test]
fn a_match_against_stockfish_plays_legal_games_to_an_end() {
    let tmp = TempDir::new();
    let run = selfplay_run(tmp.path());
    let out_dir = tmp.path().join("match");
    let out = burnmate(&[
        "match",
        run.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
        "--skill",
        "0",
        "--go",
        "depth 1",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--jobs",
        "2",
    ]);
    if missing_optional_tool(
        &out,
        "BURNMATE_REQUIRE_STOCKFISH",
        "apt-get install stockfish",
    ) {
        return;
    }
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("vs stockfish (Skill Level 0): +"),
        "{}",
        stdout(&out)
    );
    let summary = summary(&out_dir);
    let o = &summary["opponents"][0];
    let games =
        o["wins"].as_u64().unwrap() + o["draws"].as_u64().unwrap() + o["losses"].as_u64().unwrap();
    assert_eq!(games, 2);
    let rows = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    for row in rows.lines() {
        let reason = row.split('\t').nth(2).unwrap();
        assert!(!reason.starts_with("illegal move"), "{row}");
    }
    // A UCI_Elo below the engine's declared minimum is refused before any game.
    let low = tmp.path().join("low");
    let out = burnmate(&[
        "match",
        run.to_str().unwrap(),
        "--out",
        low.to_str().unwrap(),
        "--uci-elo",
        "1000",
    ]);
    assert_one_line_error(&out, "option UCI_Elo accepts ");
    assert!(!low.exists(), "refused before the directory is made");
    // The engine-grade search on material values plays Stockfish too.
    let engine_match = tmp.path().join("engine");
    let out = burnmate(&[
        "match",
        "builtin:material",
        "--out",
        engine_match.to_str().unwrap(),
        "--nodes",
        "2000",
        "--skill",
        "0",
        "--go",
        "depth 1",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--with",
        "null-move",
        "--without",
        "futility",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "burnmate builtin:material (alpha-beta 2000 nodes) with null-move without futility"
        ),
        "{}",
        stdout(&out)
    );
    let unknown = tmp.path().join("unknown");
    let out = burnmate(&[
        "match",
        "builtin:material",
        "--out",
        unknown.to_str().unwrap(),
        "--without",
        "nul-move",
    ]);
    assert_one_line_error(&out, "nul-move");
    assert!(!unknown.exists(), "refused before the directory is made");
}

#[test]
fn bad_match_requests_are_one_line_errors_and_keep_earlier_games() {
    let tmp = TempDir::new();
    let (run, engine, out_dir) = match_setup(tmp.path());
    let (run_s, out_s, engine_s) = (run.as_str(), out_dir.to_str().unwrap(), engine.as_str());
    assert_one_line_error(
        &burnmate(&match_args(run_s, out_s, engine_s, "0")),
        "--games must be at least 1",
    );
    let mut args = match_args(run_s, out_s, engine_s, "2");
    args.extend(["--sprt", "5"]);
    assert_one_line_error(&burnmate(&args), "--sprt takes two numbers");
    let mut args = match_args(run_s, out_s, engine_s, "2");
    args.extend(["--sprt", "5,0"]);
    assert_one_line_error(&burnmate(&args), "--sprt needs elo0 < elo1");
    // A selfplay run has one search thread: no `Threads` to set.
    let mut args = match_args(run_s, out_s, engine_s, "2");
    args.extend(["--threads", "2"]);
    assert_one_line_error(&burnmate(&args), "--threads 2: no option named 'Threads'");
    assert_one_line_error(
        &burnmate(&[
            "match",
            run_s,
            "--out",
            out_s,
            "--uci-elo",
            "1350,1500",
            "--sprt",
            "0,10",
        ]),
        "--sprt needs one opponent",
    );
    for go in ["infinite", "", "garbage words"] {
        let mut args = match_args(run_s, out_s, engine_s, "2");
        args.extend(["--go", go]);
        assert_one_line_error(&burnmate(&args), "--go '");
    }
    let mut args = match_args(run_s, out_s, engine_s, "2");
    args.extend(["--plies", "2"]);
    assert_one_line_error(&burnmate(&args), "only afterstate-td runs search");
    assert_one_line_error(
        &burnmate(&match_args(run_s, out_s, "no-such-engine-burnmate", "2")),
        "engine 'no-such-engine-burnmate' not found",
    );
    assert!(!out_dir.exists(), "refused requests leave no directory");
    let openings = tmp.path().join("bad.epd");
    fs::write(&openings, "8/8/8/8/8/8/8/8 w - -\n").unwrap();
    let mut args = match_args(run_s, out_s, engine_s, "2");
    args.extend(["--openings", openings.to_str().unwrap()]);
    assert_one_line_error(
        &burnmate(&args),
        "bad.epd line 1: not a legal, playable position",
    );
    assert!(
        burnmate(&match_args(run_s, out_s, engine_s, "2"))
            .status
            .success()
    );
    let before = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    assert_one_line_error(
        &burnmate(&match_args(run_s, out_s, engine_s, "4")),
        "holds a match with other settings",
    );
    assert_eq!(
        fs::read_to_string(out_dir.join("results.tsv")).unwrap(),
        before
    );
    let elsewhere = tmp.path().join("other");
    fs::create_dir(&elsewhere).unwrap();
    fs::write(elsewhere.join("notes.txt"), "mine").unwrap();
    assert_one_line_error(
        &burnmate(&match_args(
            run_s,
            elsewhere.to_str().unwrap(),
            engine_s,
            "2",
        )),
        "is not empty and holds no match",
    );
}

#[test]
fn an_engine_that_stops_answering_go_ends_the_match_in_one_line_and_keeps_its_games() {
    let tmp = TempDir::new();
    let run = selfplay_run(tmp.path());
    // Answers the handshake, gives up each of its first three games with the null
    // move, then sleeps on its fourth `go`, deaf to `stop`.
    let engine = tmp.path().join("silent.sh");
    fs::write(
        &engine,
        "#!/bin/sh\nn=0\nwhile read cmd rest; do case \"$cmd\" in\n\
         uci) printf 'id name Silent\\nuciok\\n';;\n\
         isready) echo readyok;;\n\
         go) n=$((n+1)); [ $n -ge 4 ] && exec sleep 600; echo 'bestmove 0000';;\n\
         quit) exit 0;;\n\
         esac; done\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&engine)
        .status()
        .unwrap();
    let out_dir = tmp.path().join("match");
    let mut args = match_args(
        run.to_str().unwrap(),
        out_dir.to_str().unwrap(),
        engine.to_str().unwrap(),
        "6",
    );
    args.extend(["--move-timeout", "1"]);
    let started = std::time::Instant::now();
    let out = burnmate(&args);
    assert!(started.elapsed().as_secs() < 120, "the match hung");
    // Progress lines for the three finished games, then one error line.
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    let last = text.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("error: game 4 vs ")
            && last.contains("ply 1 (white to move)")
            && last.contains("no move within 1 s of `go nodes 50000`"),
        "{text}"
    );
    let results = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    assert_eq!(results.lines().count(), 3, "{results}");
}

/// Two games of `builtin:material` against itself at 2,000 nodes into `out`, with
/// `extra` arguments.
fn material_against_itself(out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "match",
        "builtin:material",
        "--opponent-run",
        "builtin:material",
        "--nodes",
        "2000",
        "--out",
        out.to_str().unwrap(),
        "--games",
        "2",
        "--max-plies",
        "40",
        "--jobs",
        "1",
    ];
    args.extend_from_slice(extra);
    burnmate(&args)
}

#[test]
fn a_run_against_itself_searches_alike_on_both_sides() {
    // The opponent run searches with the match's --nodes, as the run does: the same
    // engine on both sides plays one game twice, colours swapped.
    let tmp = TempDir::new();
    let out_dir = tmp.path().join("match");
    let out = material_against_itself(&out_dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    let games: Vec<Vec<&str>> = rows.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(games.len(), 2, "{rows}");
    assert_eq!(games[0][3], games[1][3], "the two games' moves differ");
    let mirrored = match games[0][1] {
        "1-0" => "0-1",
        "0-1" => "1-0",
        draw => draw,
    };
    assert_eq!(games[1][1], mirrored);
    assert!(stdout(&out).contains("score 0.500"), "{}", stdout(&out));
    // Two threads on the run's side (Lazy SMP): the match records them.
    let threaded = tmp.path().join("threaded");
    let out = material_against_itself(&threaded, &["--threads", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let recorded = fs::read_to_string(threaded.join("match.json")).unwrap();
    assert!(recorded.contains("\"threads\": 2"), "{recorded}");
}

#[test]
fn a_match_resumed_against_a_replaced_opponent_is_refused() {
    let tmp = TempDir::new();
    let (run, engine, out_dir) = match_setup(tmp.path());
    let (run_s, engine_s) = (run.as_str(), engine.as_str());
    // An engine that declares no UCI_Elo cannot be rated on that scale.
    assert_one_line_error(
        &burnmate(&[
            "match",
            run_s,
            "--out",
            out_dir.to_str().unwrap(),
            "--engine",
            engine_s,
            "--uci-elo",
            "1500",
        ]),
        "--uci-elo 1500 needs an engine with a UCI_Elo option",
    );
    assert!(!out_dir.exists(), "a refused request leaves no directory");
    // A replaced engine binary (another script at the same path).
    let args = match_args(run_s, out_dir.to_str().unwrap(), engine_s, "2");
    let first = burnmate(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let script = fs::read_to_string(&engine).unwrap();
    fs::write(&engine, format!("{script}# another build\n")).unwrap();
    assert_one_line_error(&burnmate(&args), "holds a match against another");
    fs::write(&engine, script).unwrap();
    assert!(burnmate(&args).status.success(), "the same engine resumes");
    // A replaced opponent run.
    let vs_run = tmp.path().join("vs-run");
    let opponent_args = [
        "match",
        "builtin:material",
        "--opponent-run",
        run_s,
        "--out",
        vs_run.to_str().unwrap(),
        "--games",
        "2",
        "--max-plies",
        "20",
        "--jobs",
        "1",
    ];
    let first = burnmate(&opponent_args);
    assert!(first.status.success(), "{}", stderr(&first));
    let other_dir = tmp.path().join("other");
    fs::create_dir(&other_dir).unwrap();
    let other = train(
        &other_dir.join("run"),
        tmp.path().join("selfplay.toml").to_str().unwrap(),
        &["--episodes", "2", "--seed", "9"],
    );
    assert!(other.status.success(), "{}", stderr(&other));
    fs::rename(&run, tmp.path().join("first-run")).unwrap();
    fs::rename(other_dir.join("run"), &run).unwrap();
    assert_one_line_error(&burnmate(&opponent_args), "holds a match against another");
}

#[test]
fn a_gauntlet_on_a_clock_rates_the_run_on_the_gauntlets_scale() {
    let tmp = TempDir::new();
    let (run, engine, out_dir) = match_setup(tmp.path());
    let gauntlet = tmp.path().join("gauntlet.toml");
    fs::write(
        &gauntlet,
        format!(
            "scale = \"a test scale\"\n[[engine]]\nname = \"Scripted 1500\"\ncommand = \"{engine}\"\nrating = 1500\n"
        ),
    )
    .unwrap();
    let args = [
        "match",
        run.as_str(),
        "--out",
        out_dir.to_str().unwrap(),
        "--gauntlet",
        gauntlet.to_str().unwrap(),
        "--tc",
        "5+0.05",
        "--games",
        "2",
        "--max-plies",
        "40",
        "--jobs",
        "1",
    ];
    let out = burnmate(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("  vs Scripted 1500: "), "{report}");
    assert!(report.contains("  rating on a test scale: "), "{report}");
    let settings = fs::read_to_string(out_dir.join("match.json")).unwrap();
    assert!(settings.contains("\"base_ms\": 5000") && settings.contains("\"increment_ms\": 50"));
    let results = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    assert!(!results.contains("on time"), "{results}");
    // A time control that is no time control, and a gauntlet with an option its
    // engine does not declare, are one-line errors.
    let (other, third) = (tmp.path().join("other"), tmp.path().join("third"));
    let mut bad = args.to_vec();
    bad[7] = "fast";
    bad[3] = other.to_str().unwrap();
    assert_one_line_error(&burnmate(&bad), "--tc 'fast' is not BASE+INC in seconds");
    fs::write(
        &gauntlet,
        format!(
            "scale = \"s\"\n[[engine]]\nname = \"S\"\ncommand = \"{engine}\"\nrating = 1500\noptions = {{ OwnBook = \"false\" }}\n"
        ),
    )
    .unwrap();
    let mut bad = args.to_vec();
    bad[3] = third.to_str().unwrap();
    assert_one_line_error(&burnmate(&bad), "declares no option 'OwnBook'");
}

#[test]
fn an_xboard_engine_plays_a_match_on_a_clock() {
    let tmp = TempDir::new();
    // A scripted xboard engine: after `setboard` it counts the moves it is sent and
    // answers knight moves that are legal in the first plies from the start.
    let script = tmp.path().join("xboard.sh");
    fs::write(
        &script,
        "#!/bin/sh\nn=0\nwhile read cmd rest; do case \"$cmd\" in\n\
         protover) echo 'feature myname=\"Scripted XB\" usermove=1 setboard=1 done=1';;\n\
         setboard) n=0;;\n\
         usermove) n=$((n+1));;\n\
         go) case $n in 0) echo 'move b1c3';; 1) echo 'move g8f6';; 2) echo 'move c3b1';; *) echo 'move f6g8';; esac;;\n\
         quit) exit 0;;\n\
         esac; done\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let gauntlet = tmp.path().join("gauntlet.toml");
    fs::write(
        &gauntlet,
        format!(
            "scale = \"s\"\n[[engine]]\nname = \"XB\"\ncommand = \"{}\"\nprotocol = \"xboard\"\nrating = 1500\n",
            script.display()
        ),
    )
    .unwrap();
    let openings = tmp.path().join("start.epd");
    fs::write(
        &openings,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n",
    )
    .unwrap();
    let out_dir = tmp.path().join("match");
    let out = burnmate(&[
        "match",
        "builtin:material",
        "--nodes",
        "300",
        "--out",
        out_dir.to_str().unwrap(),
        "--gauntlet",
        gauntlet.to_str().unwrap(),
        "--tc",
        "5+0.05",
        "--openings",
        openings.to_str().unwrap(),
        "--games",
        "2",
        "--max-plies",
        "4",
        "--jobs",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = fs::read_to_string(out_dir.join("results.tsv")).unwrap();
    let games: Vec<Vec<&str>> = rows.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(games.len(), 2, "{rows}");
    for game in &games {
        assert_eq!(game[1..3], ["1/2-1/2", "ply cap"], "{rows}");
    }
    // Its moves are there: as black it answered g8f6 and f6g8, as white b1c3, c3b1.
    assert!(rows.contains("g8f6") && rows.contains("c3b1"), "{rows}");
}

#[test]
fn an_engine_under_test_plays_and_fit_rates_it_at_the_ratings_given() {
    let tmp = TempDir::new();
    let (_, engine, out_dir) = match_setup(tmp.path());
    let tested = format!("uci:{engine}");
    let out_s = out_dir.to_str().unwrap();
    let out = burnmate(&match_args(&tested, out_s, &engine, "2"));
    assert!(out.status.success(), "{}", stderr(&out));
    // The same greedy net on both sides: two draws by repetition, as a run plays it.
    assert!(
        stdout(&out).contains(&format!("{engine} after 2 games\n  vs {engine}: +0 =2 -0")),
        "{}",
        stdout(&out)
    );
    // An engine has no rating of its own: the fit asks for one, then rates the
    // tested side at it (two draws: level with the opponent).
    let fit = burnmate(&["fit", out_s]);
    assert_one_line_error(&fit, "has no rating in");
    let given = format!("{engine}=1500");
    let fit = burnmate(&["fit", out_s, "--rating", &given]);
    assert!(fit.status.success(), "{}", stderr(&fit));
    assert!(
        stdout(&fit).contains(&format!("  vs {engine} rated 1500: +0 =2 -0")),
        "{}",
        stdout(&fit)
    );
    assert!(
        stdout(&fit).contains("rating on the ratings given with --rating: 1500 ["),
        "{}",
        stdout(&fit)
    );
    let typo = burnmate(&["fit", out_s, "--rating", &given, "--rating", "2100=2327"]);
    assert_one_line_error(
        &typo,
        "--rating 2100=2327 names no opponent of these matches",
    );
    // Options of a run's search are refused for an engine, before any game.
    let threads = tmp.path().join("threads");
    let mut args = match_args(&tested, threads.to_str().unwrap(), &engine, "2");
    args.extend(["--threads", "2"]);
    assert_one_line_error(&burnmate(&args), "an engine under test searches by --go");
    assert!(!threads.exists(), "refused before the directory is made");
}
