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

pub mod backend;
#[cfg(test)]
mod backend_agreement;
pub mod checkpoint;
pub mod compare;
pub mod config;
pub mod endgame;
pub mod files;
pub mod gpu_failure;
pub mod knight;
pub mod metrics;
pub mod pgn;
pub mod plot;
pub mod progress;
pub mod queen4x4;
pub mod run;
pub mod selfplay;
pub mod solve;
#[cfg(test)]
#[path = "../tests/common/temp_dir.rs"]
mod temp_dir;
pub mod throughput;
