//! `burnmate train configs/chess-zero.toml` end to end at a tiny size: two
//! generations, their files, a kill and resume to the same run, the newest net
//! served over UCI, a finished run extended by a generation, and an SPRT gate. Strength and speed are measured elsewhere (docs/results/chess.md).

mod common;

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;

const TINY: [&str; 22] = [
    "--set",
    "generations=1",
    "--set",
    "games=4",
    "--set",
    "nodes=150",
    "--set",
    "gate_games=2",
    "--set",
    "gate_nodes=150",
    "--set",
    "epochs=2",
    "--set",
    "hidden=8",
    "--set",
    "max_plies=30",
    "--set",
    "batch=64",
    "--set",
    "table_mb=1",
    "--set",
    "train_positions=400",
];

/// `generations.csv` without its CPU-seconds column (the one thing a machine changes).
fn rows_without_time(run: &Path) -> Vec<String> {
    fs::read_to_string(run.join("generations.csv"))
        .unwrap()
        .lines()
        .map(|l| l.rsplit_once(',').unwrap().0.to_string())
        .collect()
}

#[test]
fn a_tiny_chess_run_trains_two_generations_resumes_after_a_kill_and_serves_uci() {
    let tmp = TempDir::new();
    let whole = tmp.path().join("whole");
    let out = train(&whole, "configs/chess-zero.toml", &TINY);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = rows_without_time(&whole);
    assert_eq!(rows.len(), 3, "header and generations 0 and 1: {rows:?}");
    assert!(rows[0].starts_with("generation,games,positions"));
    assert!(rows[1].starts_with("0,4,"), "{rows:?}");
    assert!(rows[2].starts_with("1,4,"), "{rows:?}");
    for file in [
        "config.toml",
        "gen-001.net.json",
        "data/gen-000.bin",
        "data/gen-001.bin",
    ] {
        assert!(whole.join(file).is_file(), "{file}");
    }
    // The shipped config's net: 8 hidden a side (set above), 8 material buckets out.
    let net = fs::read_to_string(whole.join("gen-001.net.json")).unwrap();
    assert!(
        net.contains(r#""inputs":16,"outputs":8"#),
        "{}",
        &net[..200.min(net.len())]
    );

    // Killed after generation 0's line: resume ends with the uninterrupted run's files.
    let killed = tmp.path().join("killed");
    let mut args = vec![
        "train",
        "configs/chess-zero.toml",
        "--out",
        killed.to_str().unwrap(),
    ];
    args.extend_from_slice(&TINY);
    let crashed = Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(&args)
        .env("BURNMATE_CRASH_AT", "chess-generation-recorded")
        .output()
        .unwrap();
    assert!(!crashed.status.success());
    assert_eq!(rows_without_time(&killed).len(), 2, "generation 0 only");
    let resumed = burnmate(&["resume", killed.to_str().unwrap()]);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    assert_eq!(rows_without_time(&killed), rows);
    for file in ["gen-001.net.json", "data/gen-000.bin", "data/gen-001.bin"] {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(killed.join(file)).unwrap(),
            "{file}"
        );
    }

    // The run plays over UCI: a legal answer from the start.
    let mut uci = Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["uci", whole.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    uci.stdin
        .take()
        .unwrap()
        .write_all(b"uci\nposition startpos moves e2e4\ngo nodes 300\nquit\n")
        .unwrap();
    let out = uci.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("id name burnmate engine (generation "),
        "{text}"
    );
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("{text}"));
    let after_e4: shakmaty::Chess =
        burnmate_env::fen::position("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
            .unwrap();
    let mv = best.parse::<shakmaty::uci::UciMove>().unwrap();
    assert!(mv.to_move(&after_e4).is_ok(), "{best}");

    // Any generation plays on request (0: material values); one it lacks is a
    // one-line error; a match records and names the generation it played.
    let mut material = Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(["uci", whole.to_str().unwrap(), "--generation", "0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    material
        .stdin
        .take()
        .unwrap()
        .write_all(b"uci\nquit\n")
        .unwrap();
    let text = String::from_utf8(material.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        text.contains("id name burnmate engine (generation 0, material"),
        "{text}"
    );
    assert_one_line_error(
        &burnmate(&["uci", whole.to_str().unwrap(), "--generation", "7"]),
        "gen-007.net.json",
    );
    let pinned = tmp.path().join("pinned");
    let pinned_args = [
        "match",
        whole.to_str().unwrap(),
        "--generation",
        "1",
        "--opponent-run",
        "builtin:material",
        "--nodes",
        "150",
        "--games",
        "2",
        "--max-plies",
        "20",
        "--jobs",
        "1",
        "--out",
        pinned.to_str().unwrap(),
    ];
    let out = burnmate(&pinned_args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("burnmate whole (alpha-beta 150 nodes) generation 1"),
        "{}",
        stdout(&out)
    );
    let recorded: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(pinned.join("match.json")).unwrap()).unwrap();
    assert_eq!(recorded["generation"], 1, "{recorded}");

    // Its net of generation 1 as a compact file: the engine plays it, benches it, and
    // an existing file is never replaced.
    let compact = tmp.path().join("g1.bmnet");
    let export = |generation: &str| {
        burnmate(&[
            "export",
            whole.to_str().unwrap(),
            "--generation",
            generation,
            "--out",
            compact.to_str().unwrap(),
        ])
    };
    let out = export("1");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("exported generation 1 of "),
        "{}",
        stdout(&out)
    );
    let bench = burnmate(&["bench", compact.to_str().unwrap(), "--depth", "3"]);
    assert!(bench.status.success(), "{}", stderr(&bench));
    assert!(stdout(&bench).contains("generation 1, depth 3, one thread"));
    assert_one_line_error(&export("1"), "already exists");
    assert_one_line_error(&export("0"), "generation 0 plays on material values");

    // A finished run extended by a generation ends as a run trained that long.
    let extended = burnmate(&["resume", whole.to_str().unwrap(), "--generations", "2"]);
    assert!(extended.status.success(), "{}", stderr(&extended));
    // Its nets are rebound to the new config, their weights unchanged: the match of
    // a snapshot still resumes (probe: "its weights changed since").
    let again = burnmate(&pinned_args);
    assert!(again.status.success(), "{}", stderr(&again));
    let longer = tmp.path().join("longer");
    let mut three = TINY.to_vec();
    three.extend(["--set", "generations=2"]);
    let out = train(&longer, "configs/chess-zero.toml", &three);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(rows_without_time(&whole), rows_without_time(&longer));
    for file in ["config.toml", "gen-001.net.json", "gen-002.net.json"] {
        assert_eq!(
            fs::read(whole.join(file)).unwrap(),
            fs::read(longer.join(file)).unwrap(),
            "{file}"
        );
    }
    assert_one_line_error(
        &burnmate(&["resume", whole.to_str().unwrap(), "--generations", "1"]),
        "has finished generations 0-2 already; --generations must be at least 2",
    );
    // Probe: u32::MAX wrapped to "must be at least 2".
    assert_one_line_error(
        &burnmate(&[
            "resume",
            whole.to_str().unwrap(),
            "--generations",
            "4294967295",
        ]),
        "generations must be at most 100000",
    );
    // It learns on with changed settings: the config holds them, changes.txt says
    // from which generation; --set alone is refused.
    let changed = burnmate(&[
        "resume",
        whole.to_str().unwrap(),
        "--generations",
        "3",
        "--set",
        "games=6",
    ]);
    assert!(changed.status.success(), "{}", stderr(&changed));
    let rows = rows_without_time(&whole);
    assert!(rows[4].starts_with("3,6,"), "{rows:?}");
    assert!(rows[3].starts_with("2,4,"), "{rows:?}");
    assert_eq!(
        fs::read_to_string(whole.join("changes.txt")).unwrap(),
        "from generation 3: games=6\n"
    );
    assert!(
        fs::read_to_string(whole.join("config.toml"))
            .unwrap()
            .contains("games = 6")
    );
    assert!(
        !burnmate(&["resume", whole.to_str().unwrap(), "--set", "games=8"])
            .status
            .success()
    );

    // An SPRT gate stops at a look once it decides: a tiny net is no 400 Elo
    // stronger than material values, so H0 comes at a look before the 32 games.
    let sprt = tmp.path().join("sprt");
    let mut gated = TINY.to_vec();
    gated.extend(["--set", "gate_games=32", "--set", "gate_sprt=[400,800]"]);
    // And a candidate trains train_positions / its positions passes, at least one:
    // one pass has one mean loss, first = last (the whole run's budget of 400 makes
    // several passes over generation 0's few dozen positions, which differ).
    gated.extend(["--set", "train_positions=1"]);
    let out = train(&sprt, "configs/chess-zero.toml", &gated);
    assert!(out.status.success(), "{}", stderr(&out));
    let line = &rows_without_time(&sprt)[2];
    let fields: Vec<&str> = line.split(',').collect();
    let played: u32 = fields[8..11]
        .iter()
        .map(|f| f.parse::<u32>().unwrap())
        .sum();
    assert!(played.is_multiple_of(8) && played < 32, "{line}");
    assert_eq!(fields[11], "false", "{line}");
    assert_eq!(fields[6], fields[7], "one pass: {line}");
    let whole_line = &rows_without_time(&whole)[2];
    let whole_fields: Vec<&str> = whole_line.split(',').collect();
    assert_ne!(
        whole_fields[6], whole_fields[7],
        "several passes: {whole_line}"
    );
    assert_one_line_error(
        &train(
            &tmp.path().join("bad-sprt"),
            "configs/chess-zero.toml",
            &["--set", "gate_sprt=[50,0]"],
        ),
        "gate_sprt must be [elo0, elo1] with elo0 < elo1, got [50, 0]",
    );

    assert_one_line_error(
        &train(
            &tmp.path().join("bad"),
            "configs/chess-zero.toml",
            &["--set", "gate_games=3"],
        ),
        "gate_games must be a positive even number",
    );
    assert_one_line_error(
        &train(
            &tmp.path().join("bad-rate"),
            "configs/chess-zero.toml",
            &["--set", "final_lr=0.01"],
        ),
        "final_lr must lie in (0, lr]",
    );
    assert_one_line_error(
        &train(
            &tmp.path().join("bad-buckets"),
            "configs/chess-zero.toml",
            &["--set", "output_buckets=0"],
        ),
        "output_buckets must lie in 1..=32",
    );
}

/// The file names under `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn generations_played_in_two_shards_give_the_files_of_one_machine() {
    let tmp = TempDir::new();
    let whole = tmp.path().join("whole");
    let out = train(&whole, "configs/chess-zero.toml", &TINY);
    assert!(out.status.success(), "{}", stderr(&out));
    let sharded = tmp.path().join("sharded");
    let run = sharded.to_str().unwrap();
    let step = |args: &[&str]| {
        let mut all = vec!["generation", run];
        all.extend_from_slice(args);
        burnmate(&all)
    };
    let config = whole.join("config.toml");
    let out = step(&["new", "--config", config.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Generation 0 needs no training; its shards may come in any order.
    for args in [
        &["play", "--shard", "2/2"][..],
        &["play", "--shard", "1/2"],
        &["record"],
    ] {
        let out = step(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let unprepared = step(&["play", "--shard", "1/2"]);
    assert!(!unprepared.status.success());
    assert!(
        stderr(&unprepared).contains("generation 1 of")
            && stderr(&unprepared).contains("is not prepared"),
        "{}",
        stderr(&unprepared)
    );
    for args in [&["prepare"][..], &["prepare"], &["play", "--shard", "1/2"]] {
        let out = step(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    let half = step(&["record"]);
    assert!(!half.status.success());
    assert!(
        stderr(&half).contains("shards 2/2 are missing"),
        "{}",
        stderr(&half)
    );
    for args in [
        &["play", "--shard", "2/2"][..],
        &["play", "--shard", "2/2"],
        &["record"],
    ] {
        let out = step(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(rows_without_time(&sharded), rows_without_time(&whole));
    for file in [
        "config.toml",
        "gen-001.net.json",
        "data/gen-000.bin",
        "data/gen-001.bin",
    ] {
        assert!(
            fs::read(whole.join(file)).unwrap() == fs::read(sharded.join(file)).unwrap(),
            "{file} differs"
        );
    }
    assert_eq!(names(&sharded.join("data")), names(&whole.join("data")));
    // `play` on a chess run: its newest net against itself, here for two moves.
    let out = burnmate(&["play", whole.to_str().unwrap(), "--max-moves", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("\n1. ") && text.contains("\n2... "), "{text}");
    assert!(text.contains("1/2-1/2 (ply cap, 4 plies)"), "{text}");
    let done = step(&["prepare"]);
    assert!(!done.status.success());
    assert!(
        stderr(&done).contains("has finished its 1 generations"),
        "{}",
        stderr(&done)
    );
}

/// The trainer's Burn step: on ndarray (the host, no GPU needed) a tiny run trains
/// its generation as on flex; on wgpu it trains, or (without an adapter) fails in
/// one line naming the backend and leaves no run directory.
#[test]
fn the_trainers_device_step_trains_a_generation_or_names_the_missing_gpu() {
    let tmp = TempDir::new();
    for backend in ["ndarray", "wgpu"] {
        let run = tmp.path().join(backend);
        let mut args = TINY.to_vec();
        args.extend(["--backend", backend]);
        let out = train(&run, "configs/chess-zero.toml", &args);
        if backend == "wgpu"
            && missing_optional_tool(
                &out,
                "BURNMATE_REQUIRE_WGPU",
                "backend wgpu: no usable GPU adapter",
            )
        {
            assert!(!run.exists());
            continue;
        }
        assert!(out.status.success(), "{backend}: {}", stderr(&out));
        let rows = rows_without_time(&run);
        assert_eq!(rows.len(), 3, "{backend}: generations 0 and 1: {rows:?}");
        let config = fs::read_to_string(run.join("config.toml")).unwrap();
        assert!(
            config.contains(&format!("backend = \"{backend}\"")),
            "{config}"
        );
        assert!(
            run.join("gen-001.net.json").exists(),
            "{backend}: a candidate"
        );
    }
}
