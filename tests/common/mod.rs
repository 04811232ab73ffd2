//! Helpers shared by the end-to-end tests: run the binary, read its outputs.
#![allow(dead_code)]

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

pub mod caches;
mod temp_dir;
pub use temp_dir::TempDir;

/// Runs the binary with `args`.
pub fn burnmate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the binary twice at the same time, with `a` and `b` as arguments.
pub fn burnmate_twice_at_once(a: &[&str], b: &[&str]) -> (Output, Output) {
    std::thread::scope(|s| {
        let first = s.spawn(|| burnmate(a));
        let second = s.spawn(|| burnmate(b));
        (first.join().unwrap(), second.join().unwrap())
    })
}

/// The run's stderr as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run's stdout as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts exit code 1 and a single `error: ` line containing `needle`.
pub fn assert_one_line_error(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: ") && err.contains(needle), "{err}");
}

/// `burnmate train CONFIG --out DIR EXTRA..`.
pub fn train(dir: &Path, config: &str, extra: &[&str]) -> Output {
    let mut args = vec!["train", config, "--out", dir.to_str().unwrap()];
    args.extend_from_slice(extra);
    burnmate(&args)
}

/// Starts the binary with `args` and kills it (SIGKILL) as soon as `ready()` holds;
/// panics, naming `waiting_for`, if it ends first.
pub fn run_and_kill_when(args: &[&str], ready: impl Fn() -> bool, waiting_for: &str) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_burnmate"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while !ready() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before {waiting_for}"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The run's summary.json.
pub fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Whether `out` failed because an optional tool is missing on this machine. A failed
/// run must then be the one-line error containing `hint`, and the environment
/// variable `require` (set by CI when it installed the tool) must be unset.
pub fn missing_optional_tool(out: &Output, require: &str, hint: &str) -> bool {
    if out.status.success() {
        return false;
    }
    assert!(
        std::env::var_os(require).is_none(),
        "{require} is set, so the tool was installed: {}",
        stderr(out)
    );
    assert_one_line_error(out, hint);
    true
}

/// `summary.json` without its timings (wall time, rates), as compact JSON.
pub fn summary_without_timings(dir: &std::path::Path) -> String {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                map.retain(|key, _| !(key.contains("seconds") || key.contains("per_s")));
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut value = summary(dir);
    strip(&mut value);
    value.to_string()
}

/// A two-game selfplay run (16-ply games) in `dir`.
pub fn selfplay_run(dir: &Path) -> std::path::PathBuf {
    let config = dir.join("selfplay.toml");
    let text = fs::read_to_string("configs/selfplay.toml")
        .unwrap()
        .replace("max_plies = 100", "max_plies = 16")
        .replace("eval_every = 50", "eval_every = 2")
        .replace("eval_games = 20", "eval_games = 2");
    fs::write(&config, text).unwrap();
    let run = dir.join("run");
    let out = train(&run, config.to_str().unwrap(), &["--episodes", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    run
}
