//! `burnmate`: train, evaluate and watch reinforcement-learning agents on chess
//! endgames, and compare them with exact optimal play.

mod backend;
#[cfg(test)]
mod backend_agreement;
mod checkpoint;
mod cli;
mod compare;
mod config;
mod endgame;
mod files;
mod gpu_failure;
mod knight;
mod metrics;
mod outputs;
mod pgn;
mod plot;
mod progress;
mod queen4x4;
mod selfplay;
mod solve;
#[cfg(test)]
#[path = "../tests/common/temp_dir.rs"]
mod temp_dir;
mod throughput;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    gpu_failure::install_hook();
    match std::panic::catch_unwind(|| cli::run(cli)) {
        Ok(Ok(())) => {}
        // One line naming the problem; the chain of causes joined on it.
        Ok(Err(error)) => {
            eprintln!("error: {error:#}");
            std::process::exit(1);
        }
        Err(_) => {
            if let Some(message) = gpu_failure::caught_panic_message() {
                eprintln!("error: {message}");
            }
            std::process::exit(101);
        }
    }
}
