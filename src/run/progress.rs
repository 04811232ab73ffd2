//! How far a long run has got: the library reports to a [`Progress`] observer and
//! never draws anything itself; the command line shows a bar, or a plain line every
//! 30 s where stderr is not a terminal (a log file, a batch job).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Hears how far a long run has got.
pub trait Progress: Sync {
    /// `units` more units of work (episodes, games, runs) are done.
    fn advance(&self, units: u64);

    /// Running metrics worth showing beside the count.
    fn note(&self, message: &str);
}

/// Hears nothing (library callers that want no output).
pub struct Silent;

impl Progress for Silent {
    fn advance(&self, _: u64) {}

    fn note(&self, _: &str) {}
}

/// How often a run whose stderr is not a terminal (a log file, a pipe, a batch job)
/// prints a progress line instead of the bar.
const LINE_EVERY: Duration = Duration::from_secs(30);

/// A bar over `total` episodes with a message slot for running metrics on a terminal;
/// where stderr is not one, a plain line every [`LINE_EVERY`] as units are done.
pub struct EpisodeBar {
    bar: ProgressBar,
    /// When the last plain line was printed (`None` on a terminal: the bar shows).
    last_line: Option<Mutex<Instant>>,
}

impl EpisodeBar {
    /// Removes the bar (prints nothing more).
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for EpisodeBar {
    fn advance(&self, units: u64) {
        self.bar.inc(units);
        let Some(last_line) = &self.last_line else {
            return;
        };
        let mut last = last_line
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.elapsed() >= LINE_EVERY {
            *last = Instant::now();
            crate::note!(
                "{}",
                progress_line(
                    &self.bar.prefix(),
                    self.bar.position(),
                    self.bar.length().unwrap_or(0),
                    self.bar.elapsed(),
                    &self.bar.message(),
                )
            );
        }
    }

    fn note(&self, message: &str) {
        self.bar.set_message(message.to_string());
    }
}

/// One plain progress line: `label: done/total (rate/s, elapsed s) message`.
fn progress_line(label: &str, done: u64, total: u64, elapsed: Duration, message: &str) -> String {
    let seconds = elapsed.as_secs_f64();
    let rate = done as f64 / seconds.max(1e-9);
    format!("{label}: {done}/{total} ({rate:.1}/s, {seconds:.0} s) {message}")
        .trim_end()
        .to_string()
}

/// The [`EpisodeBar`] over `total` episodes labelled `label`.
pub fn episode_bar(total: u64, label: &str) -> EpisodeBar {
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}) {msg}",
    )
    .expect("static template is valid");
    bar.set_style(style);
    bar.set_prefix(label.to_string());
    let last_line = (!std::io::stderr().is_terminal()).then(|| Mutex::new(Instant::now()));
    EpisodeBar { bar, last_line }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_line_names_the_run_its_count_and_rate() {
        let line = progress_line(
            "selfplay-afterstate",
            512,
            3000,
            Duration::from_secs(20),
            "",
        );
        assert_eq!(line, "selfplay-afterstate: 512/3000 (25.6/s, 20 s)");
        let noted = progress_line("knight-dqn", 3, 10, Duration::from_millis(1500), "ema 0.5");
        assert_eq!(noted, "knight-dqn: 3/10 (2.0/s, 2 s) ema 0.5");
    }
}
