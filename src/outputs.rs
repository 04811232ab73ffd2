//! The files every run ends with: `summary.json` and the EMA training curves.

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::files::write_atomic;
use crate::metrics::MetricsRecorder;
use crate::plot::{Series, line_chart, thin};

/// Writes `summary.json`, `ema_reward.svg` and `ema_moves.svg` into `dir`.
pub fn write_summary_and_plots(
    dir: &Path,
    summary: &impl Serialize,
    metrics: &MetricsRecorder,
) -> Result<()> {
    write_atomic(
        &dir.join("summary.json"),
        serde_json::to_string_pretty(summary)?.as_bytes(),
    )?;
    write_ema_plots(dir, metrics)
}

/// Writes `ema_reward.svg` and `ema_moves.svg` (the studies' training curves).
fn write_ema_plots(dir: &Path, metrics: &MetricsRecorder) -> Result<()> {
    for (file, title, label, curve) in [
        (
            "ema_reward.svg",
            "EMA reward per episode",
            "reward (EMA, alpha 2/2001)",
            &metrics.reward_curve,
        ),
        (
            "ema_moves.svg",
            "EMA moves per episode",
            "moves (EMA, alpha 2/2001)",
            &metrics.moves_curve,
        ),
    ] {
        let series = [Series {
            name: label.into(),
            points: thin(curve, 2000),
        }];
        write_atomic(
            &dir.join(file),
            line_chart(title, "episode", label, &series).as_bytes(),
        )?;
    }
    Ok(())
}
