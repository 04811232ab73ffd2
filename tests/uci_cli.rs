//! `burnmate uci RUN` as a GUI or match runner drives it: a scripted session, a
//! full game against Stockfish, an endgame table, and runs that cannot play.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use burnmate_oracle::uci::UciEngine;
use common::*;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position};

/// A running `burnmate uci RUN`.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(run: &Path) -> Engine {
        Engine::start_with(run, &[])
    }

    fn start_with(run: &Path, extra: &[&str]) -> Engine {
        let mut args = vec!["uci", run.to_str().unwrap()];
        args.extend_from_slice(extra);
        Engine::spawn(&args, &[])
    }

    /// `burnmate ARGS` with environment variables `vars` set.
    fn spawn(args: &[&str], vars: &[(&str, &str)]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_burnmate"))
            .args(args)
            .envs(vars.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "engine ended: {lines:?}"
            );
            let line = line.trim_end().to_string();
            let done = line.starts_with(prefix);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// The engine's move after `moves` from the start, checked legal and played.
    fn play(&mut self, position: &mut Chess, moves: &mut Vec<String>) {
        self.send(&format!("position startpos moves {}", moves.join(" ")));
        self.send("go wtime 60000 btime 60000 movestogo 40");
        let lines = self.until("bestmove ");
        let best = lines
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .unwrap()
            .to_string();
        play_uci(position, &best);
        moves.push(best);
    }

    fn quit(mut self) {
        self.send("quit");
        assert!(self.child.wait().unwrap().success());
    }
}

fn play_uci(position: &mut Chess, text: &str) {
    let uci: UciMove = text
        .parse()
        .unwrap_or_else(|_| panic!("malformed '{text}'"));
    let m = uci
        .to_move(position)
        .unwrap_or_else(|_| panic!("'{text}' is illegal in {position:?}"));
    position.play_unchecked(m);
}

/// A two-game afterstate run in `dir`.
fn afterstate_run(dir: &Path) -> std::path::PathBuf {
    let run = dir.join("afterstate");
    let out = train(
        &run,
        "configs/selfplay-afterstate.toml",
        &[
            "--episodes",
            "2",
            "--set",
            "eval_games=2",
            "--set",
            "max_plies=20",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    run
}

#[test]
fn a_selfplay_run_answers_a_scripted_session_and_plays_a_game_against_stockfish() {
    let tmp = TempDir::new();
    answers_a_session_and_plays_stockfish(&selfplay_run(tmp.path()));
}

#[test]
fn an_afterstate_run_searches_its_plies_or_the_fewer_that_go_depth_asks() {
    let tmp = TempDir::new();
    let mut engine = Engine::start_with(&afterstate_run(tmp.path()), &["--plies", "2"]);
    engine.send("position startpos moves e2e4");
    for (go, depth) in [("go", 2), ("go depth 1", 1), ("go depth 5", 2)] {
        engine.send(go);
        let lines = engine.until("bestmove ");
        let info = &lines[lines.len() - 2];
        assert!(
            info.starts_with(&format!("info depth {depth} score cp ")),
            "{go}: {lines:?}"
        );
    }
    engine.quit();
}

/// The number after `key` in an `info` line.
fn info_number(info: &str, key: &str) -> u64 {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == key).unwrap();
    words[at + 1].parse().unwrap()
}

#[test]
fn an_afterstate_run_searches_alpha_beta_within_its_nodes_or_go_limits() {
    let tmp = TempDir::new();
    let run = afterstate_run(tmp.path());
    let mut engine = Engine::start_with(&run, &["--nodes", "3000"]);
    engine.send("position startpos moves e2e4 e7e5");
    // `go depth 2` finishes depth 2; a node budget stops deepening between 2 and the
    // default's 64 (depth 1 always finishes, so the count may pass the budget there).
    for (go, most_nodes) in [
        ("go depth 2", u64::MAX),
        ("go", 3001),
        ("go nodes 400", 401),
    ] {
        engine.send(go);
        let lines = engine.until("bestmove ");
        let info = &lines[lines.len() - 2];
        let (depth, nodes) = (info_number(info, "depth"), info_number(info, "nodes"));
        match go {
            "go depth 2" => assert_eq!(depth, 2, "{lines:?}"),
            _ => assert!(
                (1..64).contains(&depth) && nodes <= most_nodes,
                "{go}: {lines:?}"
            ),
        }
    }
    // A budget of hours ends at `stop`.
    engine.send("go nodes 500000000");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let asked = std::time::Instant::now();
    engine.send("stop");
    engine.until("bestmove ");
    assert!(
        asked.elapsed() < std::time::Duration::from_secs(20),
        "stop: {:?}",
        asked.elapsed()
    );
    engine.quit();
    assert_one_line_error(
        &burnmate(&[
            "uci",
            run.to_str().unwrap(),
            "--plies",
            "2",
            "--nodes",
            "10",
        ]),
        "--plies 2 and --nodes: choose one search",
    );
}

#[test]
fn an_afterstate_run_answers_a_scripted_session_and_plays_a_game_against_stockfish() {
    let tmp = TempDir::new();
    answers_a_session_and_plays_stockfish(&afterstate_run(tmp.path()));
}

/// The run in `run` answers `uci`, `isready` and a position after an
/// under-promotion, then plays white against Stockfish at skill 0 (where installed).
fn answers_a_session_and_plays_stockfish(run: &Path) {
    let mut engine = Engine::start(run);
    engine.send("uci");
    let hello = engine.until("uciok");
    let name = run.file_name().unwrap().to_string_lossy();
    assert_eq!(hello[0], format!("id name burnmate {name}"), "{hello:?}");
    engine.send("isready");
    assert_eq!(engine.until("readyok"), ["readyok"]);
    // An under-promotion on the board, then a move for black.
    engine.send("ucinewgame");
    engine.send("position fen 4k3/P7/8/8/8/8/8/4K3 w - - 0 1 moves a7a8r e8d7");
    engine.send("go movetime 100");
    let best = engine.until("bestmove ").pop().unwrap();
    let mut p: Chess = shakmaty::fen::Fen::from_ascii(b"R7/3k4/8/8/8/8/8/4K3 w - - 1 2")
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    play_uci(&mut p, best.strip_prefix("bestmove ").unwrap());

    let stockfish = match UciEngine::start("stockfish", 1).and_then(|e| e.with_skill_level(0)) {
        Ok(engine) => engine,
        Err(e) => {
            assert!(
                std::env::var_os("BURNMATE_REQUIRE_STOCKFISH").is_none(),
                "BURNMATE_REQUIRE_STOCKFISH is set: {e}"
            );
            eprintln!("skipped the game against Stockfish: {e} (apt-get install stockfish)");
            return engine.quit();
        }
    };
    let mut stockfish = stockfish;
    let (mut position, mut moves) = (Chess::default(), Vec::new());
    while moves.len() < 120 && !position.is_game_over() {
        if position.turn() == shakmaty::Color::White {
            engine.play(&mut position, &mut moves);
        } else {
            let fen = burnmate::output::pgn::fen_of(&position);
            let answer = stockfish.analyse(&fen).unwrap().best_move;
            play_uci(&mut position, &answer);
            moves.push(answer);
        }
    }
    assert!(moves.len() >= 2, "both sides moved: {moves:?}");
    engine.quit();
}

#[test]
fn an_endgame_table_plays_its_endgame_and_says_when_a_position_is_outside_it() {
    let tmp = TempDir::new();
    let run = tmp.path().join("kqk");
    let out = train(
        &run,
        "configs/endgame-kqk-engine.toml",
        &["--episodes", "200"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let mut engine = Engine::start(&run);
    let start = "8/8/8/8/3k4/8/8/KQ6 w - - 0 1";
    engine.send(&format!("position fen {start}"));
    engine.send("go depth 1");
    let lines = engine.until("bestmove ");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string")),
        "{lines:?}"
    );
    let mut p =
        burnmate_env::endgame::parse_start(burnmate_env::endgame::Endgame::Kqk, start).unwrap();
    play_uci(
        &mut p,
        lines.last().unwrap().strip_prefix("bestmove ").unwrap(),
    );
    engine.send("position startpos moves e2e4");
    engine.send("go");
    let lines = engine.until("bestmove ");
    assert!(
        lines[0].contains("not a white-to-move KQK position"),
        "{lines:?}"
    );
    let mut p = Chess::default();
    play_uci(&mut p, "e2e4");
    play_uci(
        &mut p,
        lines.last().unwrap().strip_prefix("bestmove ").unwrap(),
    );
    engine.quit();
}

#[test]
fn runs_that_cannot_play_chess_are_one_line_errors() {
    let tmp = TempDir::new();
    let run = tmp.path().join("knight");
    assert!(
        train(&run, "configs/knight-random.toml", &["--episodes", "5"])
            .status
            .success()
    );
    assert_one_line_error(
        &burnmate(&["uci", run.to_str().unwrap()]),
        "neither a chess, selfplay nor endgame run",
    );
    assert_one_line_error(
        &burnmate(&["uci", tmp.path().join("nothing").to_str().unwrap()]),
        "nothing",
    );
    assert_one_line_error(
        &burnmate(&["uci", run.to_str().unwrap(), "--without", "futility"]),
        "--with and --without apply to the engine-grade search",
    );
    assert_one_line_error(
        &burnmate(&["uci", run.to_str().unwrap(), "--generation", "1"]),
        "--generation applies to chess runs",
    );
    assert_one_line_error(
        &burnmate(&["uci", "builtin:material", "--generation", "1"]),
        "--generation applies to chess runs",
    );
    assert_one_line_error(
        &burnmate(&["uci", "builtin:material", "--without", "lmr"]),
        "no search rule named \"lmr\"",
    );
}

#[test]
fn the_builtin_material_engine_mates_and_draws_by_repetition_when_behind() {
    let mut engine = Engine::start(Path::new("builtin:material"));
    engine.send("uci");
    let hello = engine.until("uciok");
    assert!(hello[0].contains("burnmate engine (material"), "{hello:?}");
    // The back-rank mate in one, found and scored as a mate.
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go depth 4");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), "bestmove a1a8", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("mate in 1 moves")),
        "{lines:?}"
    );
    assert!(
        lines[lines.len() - 2].contains("score mate 1 "),
        "{lines:?}"
    );
    // Morphy's mate in two: the score a mate distance, the principal variation whole.
    engine.send("position fen kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1");
    engine.send("go depth 6");
    let lines = engine.until("bestmove ");
    let info = &lines[lines.len() - 2];
    assert!(
        info.contains("score mate 2 ") && info.ends_with("pv a1a6 b7a6 b6b7"),
        "{lines:?}"
    );
    // A queen down, black returns to a position the game has seen twice: a draw by
    // threefold repetition, better than the lost ending (the moves tell the history).
    engine.send(
        "position fen 4k3/8/8/8/8/8/8/Q3K3 b - - 0 1 moves e8d8 e1e2 d8e8 e2e1 e8d8 e1e2 d8e8 e2e1",
    );
    engine.send("go depth 4");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), "bestmove e8d8", "{lines:?}");
    engine.send("go nodes 2000");
    let lines = engine.until("bestmove ");
    assert!(
        info_number(&lines[lines.len() - 2], "nodes") <= 2_100,
        "{lines:?}"
    );
    engine.quit();
    assert_one_line_error(
        &burnmate(&["uci", "builtin:material", "--plies", "3"]),
        "builtin:material searches by nodes",
    );
    // Every rule off: plain alpha-beta with quiescence still mates in one.
    let every = burnmate_engine::Features::NAMES.join(",");
    let mut engine = Engine::start_with(Path::new("builtin:material"), &["--without", &every]);
    engine.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    engine.send("go depth 3");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), "bestmove a1a8", "{lines:?}");
    engine.quit();
}

#[test]
fn a_search_answers_isready_and_ends_at_stop_or_quit() {
    use std::time::{Duration, Instant};
    let mut engine = Engine::start(Path::new("builtin:material"));
    engine.send("position startpos moves e2e4");
    for go in ["go infinite", "go movetime 30000", "go nodes 500000000"] {
        engine.send(go);
        std::thread::sleep(Duration::from_millis(200));
        let asked = Instant::now();
        engine.send("isready");
        assert_eq!(
            engine.until("readyok"),
            vec!["readyok"],
            "{go}: readyok during the search"
        );
        engine.send("stop");
        let lines = engine.until("bestmove ");
        assert!(
            asked.elapsed() < Duration::from_secs(20),
            "{go}: {:?}",
            asked.elapsed()
        );
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let mut position = Chess::default();
        play_uci(&mut position, "e2e4");
        play_uci(&mut position, best);
    }
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let asked = Instant::now();
    engine.quit();
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "quit during a search"
    );
}

/// The shipped nets (`assets/nets/`): each file's FNV-1a, a position of its ending
/// and the move its search plays there with 128 simulations.
const SHIPPED_NETS: [(&str, u64, &str, &str); 11] = [
    (
        "assets/nets/kqk.bmnet",
        0xf063_5c7d_c2f6_4be2,
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "b1g6",
    ),
    (
        "assets/nets/krk.bmnet",
        0xcd2e_b8d1_6b1b_16d4,
        "8/8/8/4k3/8/8/8/KR6 w - - 0 1",
        "a1b2",
    ),
    (
        "assets/nets/kbbk.bmnet",
        0x8ac7_f6b5_7f98_4e49,
        "8/8/8/4k3/8/8/8/KBB5 w - - 0 1",
        "a1b2",
    ),
    (
        "assets/nets/kbnk.bmnet",
        0xa216_2b92_36b7_97b0,
        "8/8/8/4k3/8/8/8/KBN5 w - - 0 1",
        "a1b2",
    ),
    (
        "assets/nets/kqkr.bmnet",
        0x208a_215b_273a_605d,
        "8/8/8/5Q1K/3kr3/8/8/8 w - - 0 1",
        "h5g5",
    ),
    (
        "assets/nets/krkb.bmnet",
        0xd942_56cc_a302_97b2,
        "8/8/3b4/4k3/8/8/8/KR6 w - - 0 1",
        "a1b2",
    ),
    (
        "assets/nets/krkn.bmnet",
        0xe316_bcd6_3539_7474,
        "8/8/2n5/4k3/8/8/8/KR6 w - - 0 1",
        "b1b6",
    ),
    (
        "assets/nets/kpk.bmnet",
        0x15b2_49d8_4e46_dc2f,
        "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1",
        "e6f6",
    ),
    (
        "assets/nets/kqkp.bmnet",
        0x69ed_aa95_7845_371f,
        "8/8/8/8/4k3/8/2p5/KQ6 w - - 0 1",
        "b1c2",
    ),
    (
        "assets/nets/krkp.bmnet",
        0xe5d4_235f_3e90_f398,
        "8/8/8/4k3/8/8/5p2/KR6 w - - 0 1",
        "b1f1",
    ),
    (
        "assets/nets/kpkp.bmnet",
        0xd24a_75b6_0be7_e56e,
        "4k3/7p/4K3/4P3/8/8/8/8 w - - 0 1",
        "e6f6",
    ),
];

#[test]
fn the_shipped_nets_are_intact_and_play_their_pinned_moves() {
    for (file, fnv, fen, best) in SHIPPED_NETS {
        let bytes = std::fs::read(file).unwrap();
        assert_eq!(burnmate_oracle::checksum::fnv1a(&bytes), fnv, "{file}");
        let mut engine = Engine::start(Path::new(file));
        engine.send("uci");
        engine.until("uciok");
        engine.send(&format!("position fen {fen}"));
        engine.send("go nodes 128");
        let lines = engine.until("bestmove ");
        assert_eq!(lines.last().unwrap(), &format!("bestmove {best}"), "{file}");
        assert!(
            lines.iter().any(|l| l.contains(" nodes 128 ")),
            "every simulation ran: {lines:?}"
        );
        engine.quit();
    }
    // A net whose bytes changed is refused with a one-line error naming it.
    let tmp = TempDir::new();
    let mut bytes = std::fs::read(SHIPPED_NETS[0].0).unwrap();
    *bytes.last_mut().unwrap() ^= 1;
    let changed = tmp.path().join("changed.bmnet");
    std::fs::write(&changed, bytes).unwrap();
    let out = burnmate(&["uci", changed.to_str().unwrap()]);
    assert_one_line_error(
        &out,
        "changed.bmnet is corrupt or truncated (checksum mismatch)",
    );
}

#[test]
fn a_forcing_share_outside_zero_to_one_or_unknown_forcing_moves_are_refused_in_one_line() {
    for (flag, value, error) in [
        (
            "--forcing-share",
            "1.5",
            "--forcing-share must lie in [0, 1], not 1.5",
        ),
        (
            "--forcing-moves",
            "threats",
            "forcing moves must be checks-captures, captures-threats or all, not 'threats'",
        ),
    ] {
        let out = burnmate(&["eval", SHIPPED_NETS[0].0, "--games", "1", flag, value]);
        assert_one_line_error(&out, error);
    }
}

#[test]
fn the_engine_declares_hash_threads_and_overhead_and_takes_them() {
    let mut engine = Engine::start(Path::new("builtin:material"));
    engine.send("uci");
    let hello = engine.until("uciok");
    for option in [
        "option name Hash type spin default 64 min 1 max ",
        "option name Threads type spin default 1 min 1 max 256",
        "option name Move Overhead type spin default 10 min 0 max 5000",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name SyzygyPath type string default <empty>",
        "option name UCI_Chess960 type check default false",
    ] {
        assert!(
            hello.iter().any(|l| l.starts_with(option)),
            "{option}: {hello:?}"
        );
    }
    // Bad values and unknown names are said, and the engine goes on.
    engine.send("setoption name Hash value 0");
    engine.send("setoption name Threads value many");
    engine.send("setoption name Ponder value true");
    engine.send("isready");
    let said = engine.until("readyok");
    assert!(
        said[0].starts_with("info string error: option Hash takes 1..=")
            && said[0].ends_with(", not '0'"),
        "{said:?}"
    );
    assert_eq!(
        said[1..],
        [
            "info string error: option Threads takes 1..=256, not 'many'",
            "info string error: no option named 'Ponder'",
            "readyok",
        ]
    );
    // Four threads on a 16 MB table find the mate one thread finds.
    engine.send("setoption name hash value 16");
    engine.send("setoption name Threads value 4");
    engine.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1");
    engine.send("go depth 6");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
    assert!(
        lines.iter().any(|l| l.contains("score mate 1")),
        "{lines:?}"
    );
    engine.quit();
}

#[test]
fn short_clocks_with_increments_are_never_overrun() {
    use std::time::Instant;
    // A one-second game with 10 ms increments, the clock kept as a GUI keeps it:
    // each move's wall time off the mover's clock, then the increment on it.
    let mut engine = Engine::start(Path::new("builtin:material"));
    engine.send("setoption name Threads value 2");
    let mut position = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    let mut clock = [1000i64, 1000];
    for ply in 0..60 {
        if position.legal_moves().is_empty() {
            break;
        }
        let side = ply % 2;
        engine.send(&format!("position startpos moves {}", moves.join(" ")));
        let asked = Instant::now();
        engine.send(&format!(
            "go wtime {} btime {} winc 10 binc 10",
            clock[0], clock[1]
        ));
        let lines = engine.until("bestmove ");
        clock[side] -= asked.elapsed().as_millis() as i64;
        assert!(clock[side] > 0, "lost on time at ply {ply}: {clock:?}");
        clock[side] += 10;
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        play_uci(&mut position, best);
        moves.push(best.to_string());
    }
    engine.quit();
}

#[test]
fn the_engine_plays_the_shortest_mate_of_a_cached_table() {
    let tmp = TempDir::new();
    let cache = tmp.path().to_str().unwrap();
    assert!(
        burnmate(&["solve", "krk", "--cache", cache])
            .status
            .success()
    );
    let mut engine = Engine::spawn(
        &["uci", "builtin:material"],
        &[("BURNMATE_TABLEBASES", cache)],
    );
    // KRK, white mates in 15 (29 plies): one ply of search sees every reply's
    // exact distance, with the colours swapped as well.
    for (fen, mate) in [
        ("8/8/8/4k3/8/8/8/KR6 w - - 0 1", "mate 15"),
        ("kr6/8/8/8/4K3/8/8/8 b - - 0 1", "mate 15"),
    ] {
        engine.send(&format!("position fen {fen}"));
        engine.send("go depth 1");
        let lines = engine.until("bestmove ");
        assert!(
            lines[lines.len() - 2].contains(&format!("score {mate} ")),
            "{fen}: {lines:?}"
        );
    }
    engine.quit();
}

#[test]
fn chess960_castling_rights_and_moves_follow_uci_chess960() {
    let mut engine = Engine::start(Path::new("builtin:material"));
    // King on d1, rooks on b1 and g1: castling rights by rook file (Shredder-FEN).
    let fen = "position fen 1r1k2r1/pppppppp/8/8/8/8/PPPPPPPP/1R1K2R1 w GBgb - 0 1";
    engine.send(fen);
    engine.send("setoption name UCI_Chess960 value maybe");
    engine.send("isready");
    let said = engine.until("readyok");
    assert!(
        said[0].starts_with("info string error: illegal position: "),
        "{said:?}"
    );
    assert_eq!(
        said[1],
        "info string error: option UCI_Chess960 takes true or false, not 'maybe'"
    );
    engine.send("setoption name UCI_Chess960 value true");
    engine.send(fen);
    // Queenside castling is the king taking its own rook: d1b1 (king c1, rook d1).
    engine.send("go depth 1 searchmoves d1b1");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), "bestmove d1b1", "{lines:?}");
    engine.send(&format!("{fen} moves d1b1 h7h6"));
    engine.send("go depth 1 searchmoves c1b1");
    let lines = engine.until("bestmove ");
    assert_eq!(
        lines.last().unwrap(),
        "bestmove c1b1",
        "the king castled to c1: {lines:?}"
    );
    engine.quit();
}

#[test]
fn syzygy_tables_with_pawns_convert_a_won_ending_to_mate() {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");
    let mut engine = Engine::spawn(
        &["uci", "builtin:material"],
        &[("BURNMATE_TABLEBASES", "/nonexistent")],
    );
    engine.send("setoption name SyzygyPath value /nonexistent-syzygy");
    engine.send("isready");
    let said = engine.until("readyok");
    assert!(
        said[0].starts_with("info string error: SyzygyPath /nonexistent-syzygy: "),
        "{said:?}"
    );
    engine.send(&format!("setoption name SyzygyPath value {fixtures}"));
    // KPK, the king on the sixth in front of its pawn: Kd6 and Kf6 win, Kd5 and
    // Kf5 draw. Both sides play the tables' moves at 300 nodes a move: the pawn
    // queens and KQK's table mates.
    let start = "4k3/8/4K3/4P3/8/8/8/8 w - - 0 1";
    let mut position: Chess = burnmate_env::fen::position(start).unwrap();
    let mut moves: Vec<String> = Vec::new();
    while !position.is_game_over() && moves.len() < 80 {
        engine.send(&format!("position fen {start} moves {}", moves.join(" ")));
        engine.send("go nodes 300");
        let lines = engine.until("bestmove ");
        if moves.is_empty() {
            assert!(
                lines.iter().any(|l| l.contains(" score cp 25000 ")),
                "a table win: {lines:?}"
            );
        }
        let best = lines
            .last()
            .unwrap()
            .strip_prefix("bestmove ")
            .unwrap()
            .to_string();
        play_uci(&mut position, &best);
        moves.push(best);
    }
    assert!(["e6d6", "e6f6"].contains(&moves[0].as_str()), "{moves:?}");
    assert!(position.is_checkmate(), "{} plies: {moves:?}", moves.len());
    assert_eq!(position.turn(), shakmaty::Color::Black, "white mates");
    engine.quit();
}

/// The shipped chess net (`assets/nets/chess.bmnet`): its FNV-1a, its move from
/// the start at 20,000 nodes, and its bench signature at depth 8.
const SHIPPED_CHESS: (u64, &str, &str) = (0xccf3_3b16_8d64_6b1f, "g1f3", "362476 nodes ");

#[test]
fn the_shipped_chess_net_is_intact_plays_its_move_and_benches_its_signature() {
    let (fnv, best, signature) = SHIPPED_CHESS;
    let bytes = std::fs::read("assets/nets/chess.bmnet").unwrap();
    assert_eq!(burnmate_oracle::checksum::fnv1a(&bytes), fnv);
    // `burnmate uci` with no argument plays it.
    let mut engine = Engine::spawn(&["uci"], &[]);
    engine.send("uci");
    let hello = engine.until("uciok");
    assert!(
        hello[0].starts_with("id name burnmate engine (chess run "),
        "{hello:?}"
    );
    engine.send("position startpos");
    engine.send("go nodes 20000");
    let lines = engine.until("bestmove ");
    assert_eq!(lines.last().unwrap(), &format!("bestmove {best}"));
    engine.quit();
    // The bench: the same nodes on every run, the file's net the built-in one.
    for net in ["builtin:net", "assets/nets/chess.bmnet"] {
        let out = burnmate(&["bench", net, "--depth", "8"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let last = text.lines().last().unwrap();
        assert!(
            last.starts_with(signature) && last.ends_with(" nps"),
            "{text}"
        );
    }
    assert_one_line_error(
        &burnmate(&["bench", "--depth", "0"]),
        "--depth must lie in 1..=64",
    );
    // On two threads: every position searched, the same last line's form.
    let out = burnmate(&["bench", "--depth", "6", "--threads", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(", 2 threads (Lazy SMP"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains('/')).count(),
        16,
        "{text}"
    );
    let words: Vec<&str> = text.lines().last().unwrap().split(' ').collect();
    assert!(
        words.len() == 4 && words[1] == "nodes" && words[3] == "nps",
        "{text}"
    );
    assert_one_line_error(
        &burnmate(&["bench", "--threads", "0"]),
        "--threads must lie in 1..=256",
    );
}

#[test]
fn the_shipped_net_plays_a_game_against_itself_and_is_rated_by_match_not_eval() {
    let tmp = TempDir::new();
    let pgn = tmp.path().join("kqk.pgn");
    // KQK from the middle of the board: the net mates with both sides searching.
    let out = burnmate(&[
        "play",
        "builtin:net",
        "--fen",
        "8/8/8/4k3/8/8/8/4K2Q w - - 0 1",
        "--max-moves",
        "40",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("both sides at 100000 nodes a move"),
        "{text}"
    );
    assert!(lines[1].starts_with("1. "), "{text}");
    let last_move = lines[lines.len() - 3];
    assert!(last_move.contains("(mate 1 for the mover"), "{text}");
    assert!(
        lines[lines.len() - 2].starts_with("1-0 (checkmate, "),
        "{text}"
    );
    let game = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        game.contains("[Result \"1-0\"]")
            && game.contains("[FEN \"8/8/8/4k3/8/8/8/4K2Q w - - 0 1\"]"),
        "{game}"
    );
    assert_one_line_error(
        &burnmate(&["eval", "builtin:net"]),
        "a chess net is measured in games: `burnmate match builtin:net --gauntlet",
    );
}
