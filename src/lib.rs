#![warn(missing_docs)]
//! burnmate as a library: the four studies (train, evaluate, checkpoint, report),
//! the run outputs they share, and the tools around them (tablebase solving,
//! throughput benches). The `burnmate` binary is a thin command line over it.
//!
//! ```no_run
//! // Train the knight study's DQN for 500 episodes on the CPU into `runs/knight`.
//! use burnmate::knight::{config::KnightConfig, train::train_run};
//! let config = KnightConfig { episodes: 500, ..KnightConfig::default() };
//! let device = config.backend.device()?.autodiff();
//! std::fs::create_dir_all("runs/knight")?;
//! let summary = train_run(&config, device, "runs/knight".as_ref(), &burnmate::progress::Silent)?;
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

/// Writes to standard output: a closed pipe is ignored; another error (a full disk)
/// ends the process with `error: cannot write to standard output: ...` and status 1.
pub fn stdout_write(text: std::fmt::Arguments) {
    use std::io::Write as _;
    match std::io::stdout().write_fmt(text) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to standard output: {e}");
            std::process::exit(1);
        }
        _ => {}
    }
}

pub mod backend;
#[cfg(test)]
mod backend_agreement;
pub mod checkpoint;
pub mod compare;
pub mod config;
pub mod driver;
pub mod endgame;
pub mod engine_cache;
pub mod fault;
pub mod files;
pub mod gpu_failure;
pub mod grid_dir;
pub mod knight;
pub mod limits;
pub mod match_play;
pub mod matrix;
pub mod metrics;
pub mod overrides;
pub mod pgn;
pub mod plot;
pub mod progress;
pub mod queen4x4;
pub mod resume;
pub mod run;
pub mod search_throughput;
pub mod selfplay;
pub mod solve;
pub mod study;
#[cfg(test)]
#[path = "../tests/common/temp_dir.rs"]
mod temp_dir;
pub mod throughput;
pub mod uci_engine;
