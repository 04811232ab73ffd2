//! `burnmate`: train, evaluate and watch reinforcement-learning agents on chess
//! endgames, and compare them with exact optimal play.

mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::try_parse().unwrap_or_else(|error| exit_on_usage_error(error));
    burnmate::device::gpu_failure::install_hook();
    match std::panic::catch_unwind(|| cli::run(cli)) {
        Ok(Ok(())) => {}
        // One line naming the problem; the chain of causes joined on it.
        Ok(Err(error)) => {
            eprintln!("error: {error:#}");
            std::process::exit(1);
        }
        Err(_) => {
            if let Some(message) = burnmate::device::gpu_failure::caught_panic_message() {
                eprintln!("error: {message}");
            }
            std::process::exit(101);
        }
    }
}

/// Help and version go out as clap writes them; a usage error (an unknown name, a
/// missing argument) becomes one line, with the possible values where clap lists
/// them, and exit status 1 like every other error.
fn exit_on_usage_error(error: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) || matches!(
        error.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        error.exit();
    }
    let rendered = error.render().to_string();
    let line: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("For more information") && !l.starts_with("Usage:")
        })
        .collect();
    eprintln!("{}", line.join(" "));
    std::process::exit(1);
}
