//! How far a long run has got: the library reports to a [`Progress`] observer and
//! never draws anything itself; the command line shows a bar.

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

impl Progress for ProgressBar {
    fn advance(&self, units: u64) {
        self.inc(units);
    }

    fn note(&self, message: &str) {
        self.set_message(message.to_string());
    }
}

/// A bar over `total` episodes with a message slot for running metrics (hidden when
/// stderr is not a terminal).
pub fn episode_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}) {msg}",
    )
    .expect("static template is valid");
    bar.set_style(style);
    bar.set_prefix(label.to_string());
    bar
}
