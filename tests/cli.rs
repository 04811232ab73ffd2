//! End-to-end tests through the `burnmate` binary.

mod common;

use std::fs;

use common::*;

#[test]
fn train_writes_the_output_contract_and_repeats_exactly_with_the_same_seed() {
    let tmp = TempDir::new();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = train(
            dir,
            "configs/queen4x4-sarsa.toml",
            &["--episodes", "300", "--seed", "4"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains("mean reward"));
    }
    for file in [
        "config.toml",
        "metrics.csv",
        "summary.json",
        "ema_reward.svg",
        "ema_moves.svg",
        "checkpoint.json",
    ] {
        assert!(a.join(file).is_file(), "{file} missing");
    }
    let metrics = fs::read_to_string(a.join("metrics.csv")).unwrap();
    assert_eq!(metrics, fs::read_to_string(b.join("metrics.csv")).unwrap());
    assert_eq!(
        metrics.lines().next(),
        Some("episode,reward,moves,outcome,epsilon")
    );
    assert_eq!(metrics.lines().count(), 301);
    // The study's exploration: epsilon_n = 0.2 / (1 + 5e-5 n), n counted from 0.
    for (n, line) in metrics.lines().skip(1).enumerate() {
        let epsilon: f64 = line.rsplit(',').next().unwrap().parse().unwrap();
        let want = 0.2 / (1.0 + 5e-5 * n as f64);
        assert!(
            (epsilon - want).abs() < 1e-12,
            "episode {n}: {epsilon}, want {want}"
        );
    }
    let s = summary(&a);
    assert_eq!(s["episodes"], 300);
    assert_eq!(s["seed"], 4);
    assert_eq!(s["backend"], "flex");
    for key in [
        "mean_reward",
        "mean_moves",
        "wall_seconds",
        "episodes_per_second",
    ] {
        assert!(s[key].as_f64().unwrap() > 0.0, "{key}");
    }
    assert_eq!(s["eval"]["games"], 1000);
    assert!((s["optimal"]["win_rate"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    // The resolved config reproduces the run.
    let resolved = fs::read_to_string(a.join("config.toml")).unwrap();
    assert!(
        resolved.contains("episodes = 300") && resolved.contains("seed = 4"),
        "{resolved}"
    );
    let c = tmp.path().join("c");
    let again = train(&c, a.join("config.toml").to_str().unwrap(), &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(metrics, fs::read_to_string(c.join("metrics.csv")).unwrap());
}

#[test]
fn every_study_config_trains_briefly() {
    for config in [
        "configs/queen4x4-qlearning.toml",
        "configs/queen4x4-impatient.toml",
    ] {
        for update in ["semi-gradient", "reference"] {
            let tmp = TempDir::new();
            let text = fs::read_to_string(config).unwrap().replace(
                "update = \"semi-gradient\"",
                &format!("update = \"{update}\""),
            );
            let path = tmp.path().join("c.toml");
            fs::write(&path, text).unwrap();
            let out = train(
                &tmp.path().join("run"),
                path.to_str().unwrap(),
                &["--episodes", "100"],
            );
            assert!(out.status.success(), "{config} {update}: {}", stderr(&out));
            assert_eq!(summary(&tmp.path().join("run"))["update"], update);
        }
    }
}

#[test]
fn unknown_config_keys_are_named_in_a_one_line_error() {
    let tmp = TempDir::new();
    let path = tmp.path().join("bad.toml");
    fs::write(&path, "study = \"queen4x4\"\nepisodez = 5\n").unwrap();
    let out = train(&tmp.path().join("run"), path.to_str().unwrap(), &[]);
    assert_one_line_error(&out, "episodez");
    assert!(
        !tmp.path().join("run").exists(),
        "no run directory for a bad config"
    );
}

#[test]
fn set_overrides_any_config_key_and_names_unknown_ones() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    let sets = [
        "--set",
        "lr=0.0005",
        "--set",
        "epsilon.min=0.2",
        "--set",
        "backend=flex",
    ];
    let mut args = vec!["--episodes", "5"];
    args.extend_from_slice(&sets);
    let out = train(&run, "configs/knight-dqn.toml", &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let resolved = fs::read_to_string(run.join("config.toml")).unwrap();
    assert!(
        resolved.contains("lr = 0.0005") && resolved.contains("min = 0.2"),
        "{resolved}"
    );
    let unknown = train(
        &tmp.path().join("a"),
        "configs/knight-dqn.toml",
        &["--set", "nosuch=1"],
    );
    assert_one_line_error(&unknown, "nosuch");
    let malformed = train(
        &tmp.path().join("b"),
        "configs/knight-dqn.toml",
        &["--set", "lr"],
    );
    assert_one_line_error(&malformed, "KEY=VALUE");
    let wrong_type = train(
        &tmp.path().join("c"),
        "configs/knight-dqn.toml",
        &["--set", "lr=abc"],
    );
    assert_one_line_error(&wrong_type, "--set lr=abc");
    assert!(!tmp.path().join("a").exists() && !tmp.path().join("c").exists());
}

#[test]
fn non_finite_and_out_of_range_settings_are_one_line_errors() {
    let tmp = TempDir::new();
    for (config, sets, needle) in [
        (
            "configs/endgame-kqk-engine.toml",
            &["draw_reward=nan"][..],
            "draw_reward must be a finite number",
        ),
        (
            "configs/knight-dqn.toml",
            &["epsilon.max=-1", "epsilon.min=2"][..],
            "min <= max",
        ),
        (
            "configs/knight-dqn.toml",
            &["epsilon.beta=inf"][..],
            "epsilon.beta must be a finite number",
        ),
        (
            "configs/selfplay.toml",
            &["eval_games=0"][..],
            "eval_games must be positive",
        ),
        (
            "configs/queen4x4-sarsa.toml",
            &["eval_games=0"][..],
            "eval_games must be positive",
        ),
        // Sizes whose allocation would abort the process with a memory error.
        (
            "configs/knight-dqn.toml",
            &["hidden=100000000000"][..],
            "hidden must lie in 1..=65536",
        ),
        (
            "configs/knight-dqn.toml",
            &["replay_capacity=100000000000"][..],
            "replay_capacity must be at most 10000000",
        ),
        (
            "configs/queen4x4-sarsa.toml",
            &["hidden=100000000000"][..],
            "hidden must lie in 1..=65536",
        ),
        (
            "configs/selfplay-afterstate.toml",
            &["afterstate.hidden=[100000000000]"][..],
            "afterstate.hidden widths must lie in 1..=65536",
        ),
        (
            "configs/selfplay-afterstate.toml",
            &["afterstate.replay_capacity=100000000000"][..],
            "afterstate.replay_capacity must be at most 10000000",
        ),
    ] {
        let mut args = Vec::new();
        for set in sets {
            args.extend(["--set", set]);
        }
        let out = train(&tmp.path().join("run"), config, &args);
        assert_one_line_error(&out, needle);
        assert!(
            !tmp.path().join("run").exists(),
            "{config}: no run directory"
        );
    }
    let study = tmp.path().join("study");
    let study = study.to_str().unwrap();
    assert_one_line_error(
        &burnmate(&["study", "endgame", "--decay", "nan", "--out", study]),
        "decay",
    );
    assert_one_line_error(
        &burnmate(&["study", "endgame", "--endgames", "kqk,kqk", "--out", study]),
        "listed twice",
    );
}

#[test]
fn a_diverging_run_stops_naming_the_episode_and_the_learning_rate() {
    let tmp = TempDir::new();
    for (i, (config, set, rate)) in [
        ("configs/queen4x4-sarsa.toml", "eta=5", "lower eta"),
        ("configs/knight-dqn.toml", "lr=1e10", "lower lr"),
        (
            "configs/knight-actor-critic.toml",
            "critic_lr=1e10",
            "critic_lr",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let run = tmp.path().join(i.to_string());
        let out = train(&run, config, &["--episodes", "300", "--set", set]);
        assert_one_line_error(&out, "training diverged in episode");
        assert_one_line_error(&out, rate);
        assert!(
            !run.join("checkpoint.json").exists(),
            "{config}: no checkpoint of NaNs"
        );
    }
    // Self-play of both algorithms: checked at every evaluation.
    for (i, config) in ["configs/selfplay.toml", "configs/selfplay-afterstate.toml"]
        .into_iter()
        .enumerate()
    {
        let run = tmp.path().join(format!("selfplay-{i}"));
        // Short, so no progress line (every 30 s) joins the error on a loaded machine.
        let sets = ["lr=1e30", "eval_every=10", "eval_games=2", "max_plies=40"];
        let mut args = vec!["--episodes", "20"];
        for set in &sets {
            args.extend(["--set", set]);
        }
        let out = train(&run, config, &args);
        assert_one_line_error(&out, "training diverged by game ");
        assert_one_line_error(&out, "lower lr (now 1000000000000000000000000000000)");
        assert!(
            !run.join("checkpoint.json").exists(),
            "{config}: no checkpoint of NaNs"
        );
    }
}

#[test]
fn a_closed_stdout_is_quiet_and_a_full_one_is_a_one_line_error() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["solve", "kqk", "--cache", cache])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away before anything is printed
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    assert!(
        tmp.path().join("kqk.bmtb").is_file(),
        "the cache is still written"
    );
    if let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
            .args(["solve", "kqk", "--cache", cache])
            .stdout(full)
            .output()
            .unwrap();
        assert_one_line_error(&out, "cannot write to standard output");
    }
    // No standard output at all (`>&-`): an error, not a silent success.
    let closed = std::process::Command::new("sh")
        .args([
            "-c",
            "exec \"$0\" solve kqk --cache \"$1\" >&-",
            env!("CARGO_BIN_EXE_burnmate"),
            cache,
        ])
        .output()
        .unwrap();
    assert_one_line_error(&closed, "cannot write to standard output: it is closed");
    // A cache directory that cannot be made: the table is built, reported and not
    // cached, with a warning (not an error that throws the work away).
    let out = burnmate(&["solve", "kqk", "--cache", "/dev/null/tables"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("endgame          KQK"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("the table is not cached"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_refuses_an_empty_batch_and_a_nan_duration() {
    assert_one_line_error(&burnmate(&["throughput", "--batch", "0"]), "--batch");
    assert_one_line_error(
        &burnmate(&["throughput", "--batch", "100000000000"]),
        "--batch sizes must lie in 1..=1048576",
    );
    assert_one_line_error(&burnmate(&["throughput", "--seconds", "nan"]), "--seconds");
}

#[test]
fn two_runs_on_one_directory_never_mix_their_files() {
    let tmp = TempDir::new();
    let out = tmp.path().join("run");
    let out_arg = out.to_str().unwrap();
    let run = |seed| {
        [
            "train",
            "configs/queen4x4-sarsa.toml",
            "--episodes",
            "3000",
            "--seed",
            seed,
            "--out",
            out_arg,
        ]
    };
    let (a, b) = burnmate_twice_at_once(&run("1"), &run("2"));
    let ok: Vec<_> = [&a, &b]
        .into_iter()
        .filter(|o| o.status.success())
        .collect();
    assert_eq!(ok.len(), 1, "exactly one run owns the directory");
    let refused = if a.status.success() { &b } else { &a };
    assert_eq!(stderr(refused).lines().count(), 1, "{}", stderr(refused));
    let seed = summary(&out)["seed"].as_u64().unwrap();
    let config = fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(config.contains(&format!("seed = {seed}")), "{config}");
}

#[test]
fn two_studies_on_one_directory_record_each_run_once() {
    let tmp = TempDir::new();
    let out = tmp.path().join("study");
    let args = [
        "study",
        "endgame",
        "--endgames",
        "kqk",
        "--starts",
        "1",
        "--runs",
        "2",
        "--matches",
        "300",
        "--out",
        out.to_str().unwrap(),
    ];
    let (a, b) = burnmate_twice_at_once(&args, &args);
    for o in [&a, &b] {
        assert!(
            o.status.success() || stderr(o).contains("in use by another burnmate"),
            "{}",
            stderr(o)
        );
    }
    let lines = fs::read_to_string(out.join("results.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(lines, 4 * 2, "4 settings x 2 runs, each once");
}

#[test]
fn malformed_values_and_missing_files_are_one_line_errors() {
    let tmp = TempDir::new();
    let path = tmp.path().join("bad.toml");
    fs::write(&path, "study = \"queen4x4\"\ngamma = 1.5\n").unwrap();
    assert_one_line_error(
        &train(&tmp.path().join("r"), path.to_str().unwrap(), &[]),
        "gamma",
    );
    fs::write(&path, "study = \"chess960\"\n").unwrap();
    assert_one_line_error(
        &train(&tmp.path().join("r"), path.to_str().unwrap(), &[]),
        "chess960",
    );
    assert_one_line_error(&burnmate(&["train", "no/such.toml"]), "no/such.toml");
}

#[test]
fn a_list_option_that_repeats_a_value_is_a_one_line_error() {
    let tmp = TempDir::new();
    let out = tmp.path().join("out");
    let out = out.to_str().unwrap();
    assert_one_line_error(
        &burnmate(&[
            "grid",
            "configs/queen4x4-sarsa.toml",
            "--out",
            out,
            "--beta",
            "5e-5,0.00005",
        ]),
        "--beta 0.00005 is listed twice",
    );
    assert_one_line_error(
        &burnmate(&["study", "endgame", "--out", out, "--endgames", "kqk,KQK"]),
        "endgame kqk is listed twice",
    );
    assert_one_line_error(
        &burnmate(&["matrix", "--out", out, "--games", "krk,kqk,krk"]),
        "game krk is listed twice",
    );
    // --jobs 0 is refused, not quietly taken as 1.
    for command in [
        &["grid", "configs/queen4x4-sarsa.toml", "--out", out][..],
        &["study", "endgame", "--out", out][..],
        &["matrix", "--out", out][..],
    ] {
        let mut args = command.to_vec();
        args.extend(["--jobs", "0"]);
        assert_one_line_error(&burnmate(&args), "--jobs must be at least 1");
    }
    assert!(!tmp.path().join("out").exists(), "nothing was started");
}

#[test]
fn an_existing_run_directory_is_never_overwritten() {
    let tmp = TempDir::new();
    fs::write(tmp.path().join("metrics.csv"), "precious").unwrap();
    let out = train(
        tmp.path(),
        "configs/queen4x4-sarsa.toml",
        &["--episodes", "10"],
    );
    assert_one_line_error(&out, "already exists");
    assert_eq!(
        fs::read_to_string(tmp.path().join("metrics.csv")).unwrap(),
        "precious"
    );
}

/// Training on wgpu writes the same outputs as on the CPU, or (without an adapter)
/// fails with one line naming the backend and leaves no run directory. Numeric
/// agreement with flex is tested on forward passes and single updates
/// (`src/backend_agreement.rs`), not on whole runs, which may part on a near-tie.
#[test]
fn a_gpu_backend_trains_or_fails_with_one_line_naming_it() {
    let tmp = TempDir::new();
    for (name, config) in [
        ("queen4x4", "configs/queen4x4-sarsa.toml"),
        ("dqn", "configs/knight-dqn.toml"),
        ("actor-critic", "configs/knight-actor-critic.toml"),
    ] {
        let run = tmp.path().join(name);
        let out = train(&run, config, &["--episodes", "30", "--backend", "wgpu"]);
        if missing_optional_tool(
            &out,
            "BURNMATE_REQUIRE_WGPU",
            "backend wgpu: no usable GPU adapter",
        ) {
            assert!(!run.exists());
            return;
        }
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert_eq!(summary(&run)["backend"], "wgpu");
        let metrics = fs::read_to_string(run.join("metrics.csv")).unwrap();
        assert_eq!(
            metrics.lines().count(),
            31,
            "{name}: header and 30 episodes"
        );
    }
}

#[test]
fn eval_and_play_load_the_checkpoint() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    let out = train(&run, "configs/queen4x4-sarsa.toml", &["--episodes", "200"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let eval = burnmate(&["eval", run.to_str().unwrap(), "--games", "50"]);
    assert!(eval.status.success(), "{}", stderr(&eval));
    let text = stdout(&eval);
    assert!(
        text.contains("win rate") && text.contains("mean moves") && text.contains("optimal"),
        "{text}"
    );
    let play = burnmate(&[
        "play",
        run.to_str().unwrap(),
        "--start",
        "Qa1 Ka2 / Kc2",
        "--max-moves",
        "5",
    ]);
    assert!(play.status.success(), "{}", stderr(&play));
    let text = stdout(&play);
    assert!(
        text.contains("1. ") && text.contains("a b c d") && text.contains("optimal: "),
        "{text}"
    );
    let bad_start = burnmate(&["play", run.to_str().unwrap(), "--start", "Qa1 Kz2 / Kc2"]);
    assert_one_line_error(&bad_start, "Kz2");
    let no_games = burnmate(&["eval", run.to_str().unwrap(), "--games", "0"]);
    assert_one_line_error(&no_games, "--games must be positive");
}

#[test]
fn a_corrupt_checkpoint_is_a_one_line_error() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    assert!(
        train(&run, "configs/queen4x4-sarsa.toml", &["--episodes", "20"])
            .status
            .success()
    );
    let path = run.join("checkpoint.json");
    let text = fs::read_to_string(&path).unwrap();
    // Change one weight digit: valid JSON, wrong checksum.
    let at = text.find("\"w1\":[").unwrap() + 7;
    let digit = text[at..].find(|c: char| c.is_ascii_digit()).unwrap() + at;
    let mut bytes = text.into_bytes();
    bytes[digit] = if bytes[digit] == b'1' { b'2' } else { b'1' };
    fs::write(&path, &bytes).unwrap();
    assert_one_line_error(&burnmate(&["eval", run.to_str().unwrap()]), "corrupt");
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_one_line_error(&burnmate(&["eval", run.to_str().unwrap()]), "truncated");
    // A run killed before its end has a config and no checkpoint.
    fs::remove_file(&path).unwrap();
    assert_one_line_error(
        &burnmate(&["eval", run.to_str().unwrap()]),
        "did not finish",
    );
}

#[test]
fn a_checkpoint_whose_run_config_was_edited_is_refused() {
    let tmp = TempDir::new();
    let run = tmp.path().join("run");
    let out = train(&run, "configs/knight-dqn.toml", &["--episodes", "20"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let config = run.join("config.toml");
    let text = fs::read_to_string(&config).unwrap();
    fs::write(&config, text.replace("gamma = 0.99", "gamma = 0.5")).unwrap();
    assert_one_line_error(
        &burnmate(&["eval", run.to_str().unwrap()]),
        "changed since its checkpoint",
    );
}

#[test]
fn knight_agents_train_evaluate_and_compare() {
    let tmp = TempDir::new();
    let mut runs = Vec::new();
    for (config, episodes) in [("dqn", "40"), ("actor-critic", "40"), ("random", "200")] {
        let run = tmp.path().join(config);
        let path = format!("configs/knight-{config}.toml");
        let out = train(&run, &path, &["--episodes", episodes]);
        assert!(out.status.success(), "{config}: {}", stderr(&out));
        let text = stdout(&out);
        for row in [
            "cumulative reward",
            "legal moves",
            "illegal moves",
            "win rate",
            "out-of-moves rate",
        ] {
            assert!(text.contains(row), "{config}: {row} missing in {text}");
        }
        let s = summary(&run);
        assert_eq!(s["study"], "knight");
        assert!(s["optimal"]["win_rate"].as_f64().unwrap() > 0.9);
        let metrics = fs::read_to_string(run.join("metrics.csv")).unwrap();
        assert!(
            metrics.starts_with("episode,reward,moves,outcome,epsilon,legal_moves,illegal_moves\n")
        );
        runs.push(run);
    }
    let eval = burnmate(&["eval", runs[0].to_str().unwrap(), "--games", "20"]);
    assert!(eval.status.success(), "{}", stderr(&eval));
    assert!(stdout(&eval).contains("over 20 games"));
    let dqn = runs[0].to_str().unwrap();
    for (args, error) in [
        (
            vec!["eval", dqn, "--stockfish-skills", "0"],
            "--stockfish-skills applies to selfplay runs",
        ),
        (vec!["play", dqn], "use eval for knight runs"),
        (
            vec!["eval", dqn, "--games", "0"],
            "--games must be positive",
        ),
    ] {
        assert_one_line_error(&burnmate(&args), error);
    }
    let args: Vec<&str> = std::iter::once("compare")
        .chain(runs.iter().map(|r| r.to_str().unwrap()))
        .collect();
    let compare = burnmate(&args);
    assert!(compare.status.success(), "{}", stderr(&compare));
    let text = stdout(&compare);
    assert!(
        text.contains("eval.win_rate") && text.contains("actor-critic") && text.contains("random"),
        "{text}"
    );
}

#[test]
fn knight_dqn_repeats_exactly_with_the_same_seed() {
    let tmp = TempDir::new();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = train(
            dir,
            "configs/knight-dqn.toml",
            &["--episodes", "30", "--seed", "3"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    assert_eq!(
        fs::read_to_string(a.join("metrics.csv")).unwrap(),
        fs::read_to_string(b.join("metrics.csv")).unwrap()
    );
}

#[test]
fn solve_builds_caches_and_rebuilds_a_corrupt_cache() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let first = burnmate(&["solve", "kqk", "--cache", cache]);
    assert!(first.status.success(), "{}", stderr(&first));
    let text = stdout(&first);
    assert!(text.contains("longest mate     10 moves"), "{text}");
    assert!(stderr(&first).contains("built kqk"));
    let again = burnmate(&["solve", "kqk", "--cache", cache]);
    assert_eq!(
        stdout(&again),
        text,
        "the cached table gives the same statistics"
    );
    assert!(!stderr(&again).contains("built"), "loaded from cache");
    let path = tmp.path().join("kqk.bmtb");
    let mut bytes = fs::read(&path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x5a;
    fs::write(&path, &bytes).unwrap();
    let repaired = burnmate(&["solve", "kqk", "--cache", cache]);
    assert!(
        stderr(&repaired).contains("corrupt"),
        "{}",
        stderr(&repaired)
    );
    assert_eq!(stdout(&repaired), text);
    fs::write(&path, &bytes[..100]).unwrap();
    let truncated = burnmate(&["solve", "kqk", "--cache", cache]);
    assert!(
        stderr(&truncated).contains("truncated"),
        "{}",
        stderr(&truncated)
    );
    assert_one_line_error(&burnmate(&["solve", "kxk"]), "other than q, r, b, n, p");
    assert_one_line_error(&burnmate(&["solve", "kqrbkq"]), "more than 5 pieces");
    assert_one_line_error(&burnmate(&["solve", "kqpkp"]), "pawns and more than 4");
    let verified = burnmate(&["solve", "kqk", "--cache", cache, "--verify"]);
    assert!(verified.status.success(), "{}", stderr(&verified));
    assert!(
        stdout(&verified).starts_with("verified kqk: 59136 entries, 0 inconsistent ("),
        "{}",
        stdout(&verified)
    );
}

#[test]
fn solve_builds_any_pawnless_material_with_its_counts_and_move_values() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let out = burnmate(&["solve", "krkn", "--cache", cache]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("white to move    651492 wins, 696413 draws, 1 losses"),
        "{text}"
    );
    assert!(
        text.contains("longest win    40 moves (79 plies)"),
        "{text}"
    );
    let fen = "8/8/8/8/8/2k5/1b6/K6R w - - 0 1";
    let out = burnmate(&["solve", "krkb", "--cache", cache, "--fen", fen]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("{fen}: white mates in 18 (35 plies)")),
        "{text}"
    );
    assert!(
        text.contains("  Ka2      white mates in 17 (34 plies)"),
        "{text}"
    );
    let wrong = burnmate(&["solve", "krkn", "--cache", cache, "--fen", fen]);
    assert_one_line_error(&wrong, "is not a krkn position");
    let starts = burnmate(&["solve", "krkn", "--cache", cache, "--starts", "3"]);
    assert_one_line_error(&starts, "--starts lists the study's starts");
}

#[test]
fn solve_builds_caches_and_analyses_tables_with_pawns() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let out = burnmate(&["solve", "kpk", "--cache", cache]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("white to move    62480 wins, 19184 draws, 0 losses"),
        "{text}"
    );
    assert!(
        text.contains("longest win    28 moves (55 plies): 8/8/8/1k6/8/8/K5P1/8 w - - 0 1"),
        "{text}"
    );
    assert!(stderr(&out).contains("built kpk"), "{}", stderr(&out));
    let again = burnmate(&["solve", "kpk", "--cache", cache]);
    assert_eq!(stdout(&again), text);
    assert!(!stderr(&again).contains("built"), "loaded from the cache");
    let fen = "8/8/8/1k6/8/8/K5P1/8 w - - 0 1";
    let out = burnmate(&["solve", "kpk", "--cache", cache, "--fen", fen]);
    let text = stdout(&out);
    assert!(
        text.contains(&format!("{fen}: white mates in 28 (55 plies)")),
        "{text}"
    );
    // Only the king's step to b3 keeps the win; a pawn push draws.
    assert!(
        text.contains("  Kb3      white mates in 27 (54 plies)\n  g3       draw"),
        "{text}"
    );
    let verified = burnmate(&["solve", "kpk", "--cache", cache, "--verify"]);
    assert!(
        stdout(&verified).contains("verified kpk: 196608 entries, 0 inconsistent"),
        "{}",
        stdout(&verified)
    );
}

#[test]
fn a_cached_table_of_another_endgame_is_refused_and_rebuilt() {
    // Probe: KQK and KRK tables have the same size; a KRK file under the KQK name
    // once answered "mate in 11" for a mate in 7.
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    assert!(
        burnmate(&["solve", "krk", "--cache", cache])
            .status
            .success()
    );
    fs::copy(tmp.path().join("krk.bmtb"), tmp.path().join("kqk.bmtb")).unwrap();
    let fen = "7K/8/8/8/8/6k1/8/Q7 w - - 0 1";
    let out = burnmate(&["solve", "kqk", "--cache", cache, "--fen", fen]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("holds a krk table, not kqk"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains(&format!("{fen}: white mates in 7 ")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn two_solves_on_one_fresh_cache_both_succeed() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let solve = ["solve", "kqk", "--cache", cache];
    let (a, b) = burnmate_twice_at_once(&solve, &solve);
    for out in [a, b] {
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let leftovers: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn solve_analyses_a_fen_and_lists_generated_starts() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let fen = "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1";
    let out = burnmate(&["solve", "kqk", "--cache", cache, "--fen", fen]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(&format!("{fen}: white mates in")),
        "{text}"
    );
    assert!(text.contains("  Qf3 "), "{text}");
    let starts = burnmate(&[
        "solve", "kqk", "--cache", cache, "--starts", "3", "--seed", "5",
    ]);
    assert_eq!(stdout(&starts).lines().count(), 3);
    assert!(
        stdout(&starts)
            .lines()
            .all(|l| l.contains(" w - - 0 1  # "))
    );
    assert_one_line_error(
        &burnmate(&["solve", "krk", "--cache", cache, "--fen", fen]),
        "not KRK",
    );
    assert_one_line_error(
        &burnmate(&["solve", "kqk", "--cache", cache, "--fen", "kq"]),
        "not a FEN",
    );
}

#[test]
fn the_shipped_endgame_starts_are_valid_positions() {
    for endgame in ["kqk", "krk", "kbbk"] {
        let text = fs::read_to_string(format!("assets/endgame-{endgame}.fen")).unwrap();
        let fens: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(fens.len(), 10, "{endgame}");
        for line in fens {
            let fen = line.split("  #").next().unwrap();
            let out = burnmate(&[
                "solve",
                endgame,
                "--fen",
                fen,
                "--cache",
                "target/tablebase-cache",
            ]);
            assert!(out.status.success(), "{endgame} {fen}: {}", stderr(&out));
        }
    }
}

#[test]
fn endgame_training_writes_outputs_and_repeats_with_the_same_seed() {
    let tmp = TempDir::new();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = train(
            dir,
            "configs/endgame-kqk-engine.toml",
            &["--episodes", "200", "--seed", "1"],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains("frozen table"));
    }
    let metrics = fs::read_to_string(a.join("metrics.csv")).unwrap();
    assert_eq!(metrics, fs::read_to_string(b.join("metrics.csv")).unwrap());
    assert_eq!(metrics.lines().count(), 201);
    let s = summary(&a);
    assert_eq!(s["study"], "endgame");
    assert_eq!(s["optimal"]["moves_to_mate"], 7);
    assert_eq!(s["study_reported_solved_percent"], 100.0);
    for file in ["config.toml", "checkpoint.json", "ema_reward.svg"] {
        assert!(a.join(file).is_file(), "{file}");
    }
    let eval = burnmate(&["eval", a.to_str().unwrap(), "--games", "5"]);
    assert!(eval.status.success(), "{}", stderr(&eval));
    assert!(stdout(&eval).contains("of 5 games") && stdout(&eval).contains("(optimal 7)"));
    let tmp2 = TempDir::new();
    let path = tmp2.path().join("bad.toml");
    fs::write(
        &path,
        "study = \"endgame\"\nendgame = \"krk\"\nfen = \"8/8/1K6/8/3k4/7Q/8/8 w - - 0 1\"\n",
    )
    .unwrap();
    assert_one_line_error(
        &train(&tmp2.path().join("r"), path.to_str().unwrap(), &[]),
        "not KRK",
    );
}

#[test]
fn verify_blames_the_bad_table_a_table_is_built_from() {
    // Probe: a corrupt but checksum-valid kqk made `solve kqkr --verify` blame kqkr
    // and ask for a rebuild on top of the bad kqk.
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    let built = burnmate(&["solve", "kqkr", "--cache", cache]);
    assert!(built.status.success(), "{}", stderr(&built));
    let path = tmp.path().join("kqk.bmtb");
    let mut bytes = fs::read(&path).unwrap();
    // One win's distance changed (values: 0 draw, 255 illegal, else plies + 1), the
    // header's checksum recomputed so the file reads as sound.
    let at = 32
        + bytes[32..]
            .iter()
            .position(|&v| (4..200).contains(&v))
            .unwrap();
    bytes[at] += 2;
    let sum = burnmate_oracle::checksum::fnv1a(&bytes[32..]);
    bytes[16..24].copy_from_slice(&sum.to_le_bytes());
    fs::write(&path, &bytes).unwrap();
    let out = burnmate(&["solve", "kqkr", "--cache", cache, "--verify"]);
    assert_one_line_error(&out, "the kqk table has ");
    let error = stderr(&out);
    assert!(
        error.contains(&format!("delete {}", path.display()))
            && error.contains("kqkr.bmtb")
            && !error.contains("the kqkr table"),
        "{error}"
    );
}

#[test]
fn solve_keeps_its_table_when_standard_error_is_closed() {
    // Probe: `solve ... 2>&1 >/dev/null | head -1` panicked (rc 101) on its "built"
    // line and lost the table it had just built.
    let tmp = TempDir::new();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["solve", "krk", "--cache", tmp.path().to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(tmp.path().join("krk.bmtb").exists(), "the table is saved");
}
