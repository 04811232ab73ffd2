//! `burnmate`: train, evaluate and watch reinforcement-learning agents on chess
//! endgames, and compare them with exact optimal play.

mod backend;
mod checkpoint;
mod cli;
mod compare;
mod config;
mod endgame;
mod files;
mod knight;
mod metrics;
mod outputs;
mod pgn;
mod plot;
mod progress;
mod queen4x4;
mod selfplay;
mod solve;
mod throughput;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    if let Err(error) = cli::run(cli) {
        // One line naming the problem; the chain of causes joined on it.
        eprintln!("error: {error:#}");
        std::process::exit(1);
    }
}
