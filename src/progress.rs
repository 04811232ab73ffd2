//! Progress bars for long runs (hidden when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `total` episodes with a message slot for running metrics.
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
