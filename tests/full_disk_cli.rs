//! A run on a filesystem that fills up ends with a one-line error and leaves no
//! temporary file behind (a small tmpfs in a private mount namespace; skipped where
//! `unshare --mount` is not allowed, required in CI where it is).

mod common;

use std::process::Command;

use common::*;

/// Runs `script` (`$0` is the binary) in a private mount namespace and returns its
/// stdout; `None` (the test skipped) where `unshare --mount` is not allowed and not
/// required.
fn in_private_mount(script: &str) -> Option<String> {
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script])
        .arg(env!("CARGO_BIN_EXE_burnmate"))
        .output()
        .expect("sh runs");
    if !out.status.success() || stdout(&out).is_empty() {
        assert!(
            std::env::var_os("BURNMATE_REQUIRE_PRIVATE_MOUNTS").is_none(),
            "mount namespaces are required here: {}",
            stderr(&out)
        );
        eprintln!("skipped: a private tmpfs needs `unshare --mount` (root)");
        return None;
    }
    Some(stdout(&out))
}

#[test]
fn a_full_disk_ends_the_run_with_one_line_and_no_temporary_files() {
    let tmp = TempDir::new();
    let disk = tmp.path().join("disk");
    std::fs::create_dir(&disk).unwrap();
    // The knight DQN's resume point (~250 kB with its replay) cannot fit in 192 kB.
    let script = format!(
        "mount -t tmpfs -o size=192k burnmate-full {d} || exit 77; \
         \"$0\" train configs/knight-dqn.toml --out {d}/run --episodes 3000 2>{e}; \
         echo \"exit $?\"; cat {e}; echo --; ls -a {d}/run",
        d = disk.display(),
        e = tmp.path().join("err").display()
    );
    let Some(text) = in_private_mount(&script) else {
        return;
    };
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("exit 1"), "{text}");
    let error = lines.next().unwrap_or_default();
    assert!(
        error.starts_with("error: ") && error.contains("cannot write"),
        "{text}"
    );
    assert_eq!(lines.next(), Some("--"), "one error line: {text}");
    let files: Vec<&str> = lines.collect();
    assert!(files.iter().all(|f| !f.ends_with(".tmp")), "{files:?}");
    assert!(files.contains(&"config.toml"), "{files:?}");
}

/// A disk that fills up while a finished run writes its outputs (the final
/// checkpoint, evaluation and summary) ends with one line and keeps the resume
/// point; once space is freed, `burnmate resume` finishes the run to the files of an
/// uninterrupted run (issue 32: it used to stay unresumable).
#[test]
fn a_disk_full_at_the_finish_keeps_a_run_that_resumes_once_space_is_freed() {
    let tmp = TempDir::new();
    let whole = tmp.path().join("whole");
    let out = train(&whole, "configs/knight-dqn.toml", &["--episodes", "100"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let disk = tmp.path().join("disk");
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&disk).unwrap();
    // Trained to the final resume point, killed before the outputs; the disk is then
    // filled, the finish retried (it must fail), space freed, the finish retried.
    let script = format!(
        "mount -t tmpfs -o size=4m burnmate-full {d} || exit 77; \
         BURNMATE_CRASH_AT=trained \"$0\" train configs/knight-dqn.toml --out {d}/run \
           --episodes 100 2>/dev/null; echo \"crashed $?\"; \
         dd if=/dev/zero of={d}/filler bs=4k 2>/dev/null; \
         \"$0\" resume {d}/run >/dev/null 2>{e}; echo \"full $?\"; cat {e}; \
         ls -a {d}/run | grep -c -e '\\.tmp' -e 'resume.json'; \
         rm {d}/filler; \"$0\" resume {d}/run >/dev/null 2>{e}; echo \"freed $?\"; cat {e}; \
         cp -r {d}/run {c}",
        d = disk.display(),
        c = copy.display(),
        e = tmp.path().join("err").display()
    );
    let Some(text) = in_private_mount(&script) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("crashed ") && lines[0] != "crashed 0",
        "{text}"
    );
    assert_eq!(
        lines[1], "full 1",
        "the finish on a full disk fails: {text}"
    );
    assert!(
        lines[2].starts_with("error: ") && lines[2].contains("cannot write"),
        "{text}"
    );
    assert_eq!(lines[3], "1", "resume.json kept, no temporary file: {text}");
    assert_eq!(lines[4], "freed 0", "the finish with space freed: {text}");
    assert_eq!(lines.len(), 5, "nothing printed to stderr: {text}");
    for file in ["metrics.csv", "checkpoint.json", "config.toml"] {
        assert!(
            std::fs::read(whole.join(file)).unwrap() == std::fs::read(copy.join(file)).unwrap(),
            "{file} differs from the uninterrupted run's"
        );
    }
    assert_eq!(
        summary_without_timings(&whole),
        summary_without_timings(&copy)
    );
    assert!(!copy.join("resume.json").exists());
}
