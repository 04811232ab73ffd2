//! `burnmate`: train, evaluate and watch reinforcement-learning agents on chess
//! endgames, and compare them with exact optimal play.

mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    burnmate::gpu_failure::install_hook();
    match std::panic::catch_unwind(|| cli::run(cli)) {
        Ok(Ok(())) => {}
        // One line naming the problem; the chain of causes joined on it.
        Ok(Err(error)) => {
            eprintln!("error: {error:#}");
            std::process::exit(1);
        }
        Err(_) => {
            if let Some(message) = burnmate::gpu_failure::caught_panic_message() {
                eprintln!("error: {message}");
            }
            std::process::exit(101);
        }
    }
}
