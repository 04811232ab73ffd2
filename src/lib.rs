#![warn(missing_docs)]
//! burnmate as a library: the four studies (train, evaluate, checkpoint, report),
//! the run outputs they share, and the tools around them (tablebase solving,
//! throughput benches). The `burnmate` binary is a thin command line over it.
//!
//! ```no_run
//! // Train the knight study's DQN for 500 episodes on the CPU into `runs/knight`.
//! use burnmate::studies::knight::{config::KnightConfig, train::train_run};
//! let config = KnightConfig { episodes: 500, ..KnightConfig::default() };
//! let device = config.backend.device()?.autodiff();
//! std::fs::create_dir_all("runs/knight")?;
//! let summary = train_run(&config, device, "runs/knight".as_ref(), &burnmate::run::progress::Silent)?;
//! println!("win rate {}", summary.eval.win_rate);
//! # Ok::<(), anyhow::Error>(())
//! ```

/// `println!` for the commands' reports: a closed pipe (`burnmate ... | head -1`) is
/// ignored, so the command goes on and finishes its files; any other failure to write
/// (`> /dev/full`) ends the process with a one-line error (see [`stdout_write`]).
#[macro_export]
macro_rules! say {
    () => {
        $crate::stdout_write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout_write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for the commands' reports (see [`say!`]).
#[macro_export]
macro_rules! say_inline {
    ($($arg:tt)*) => {
        $crate::stdout_write(format_args!($($arg)*))
    };
}

/// `eprintln!` for progress and warnings: a closed standard error (`2>&1 >/dev/null |
/// head -1`) is ignored instead of a panic, so the command goes on and keeps its
/// work (see [`stderr_write`]).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::stderr_write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to standard error, ignoring every failure: a lost progress line must never
/// lose the work it reports.
pub fn stderr_write(text: std::fmt::Arguments) {
    use std::io::Write as _;
    let _ = std::io::stderr().write_fmt(text);
}

/// Writes to standard output: a closed pipe is ignored; another error (a full disk,
/// or no standard output at all: `>&-`, which Rust's runtime turns into /dev/null)
/// ends the process with `error: cannot write to standard output: ...` and
/// status 1.
pub fn stdout_write(text: std::fmt::Arguments) {
    use std::io::Write as _;
    if !stdout_is_open() {
        eprintln!("error: cannot write to standard output: it is closed");
        std::process::exit(1);
    }
    match std::io::stdout().write_fmt(text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to standard output: {e}");
            std::process::exit(1);
        }
        _ => {}
    }
}

/// Whether standard output was open when the process started. Rust's runtime
/// reopens a closed descriptor 1 on `/dev/null` read-write, which a shell's
/// `> /dev/null` (write-only) never does, so on Linux a read-write `/dev/null` there
/// means "closed" (`/proc/self/fdinfo/1` gives the flags). Always true elsewhere.
fn stdout_is_open() -> bool {
    static OPEN: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *OPEN.get_or_init(|| {
        let target = std::fs::read_link("/proc/self/fd/1");
        let flags = std::fs::read_to_string("/proc/self/fdinfo/1")
            .ok()
            .and_then(|info| {
                let octal = info.lines().find_map(|l| l.strip_prefix("flags:"))?;
                u32::from_str_radix(octal.trim(), 8).ok()
            });
        const ACCESS_MODE: u32 = 0o3;
        const READ_WRITE: u32 = 0o2;
        !(target.is_ok_and(|t| t == std::path::Path::new("/dev/null"))
            && flags.is_some_and(|f| f & ACCESS_MODE == READ_WRITE))
    })
}

pub mod device;
pub mod output;
pub mod run;
pub mod studies;
#[cfg(test)]
#[path = "../tests/common/temp_dir.rs"]
mod temp_dir;
pub mod tools;
