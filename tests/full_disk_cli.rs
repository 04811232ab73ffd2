//! A run on a filesystem that fills up ends with a one-line error and leaves no
//! temporary file behind (a small tmpfs in a private mount namespace; skipped where
//! `unshare --mount` is not allowed, required in CI where it is).

mod common;

use std::process::Command;

use common::*;

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
    let out = Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", &script])
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
        return;
    }
    let text = stdout(&out);
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
