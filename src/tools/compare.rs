//! `burnmate compare RUN...`: the evaluation objects of several runs' `summary.json`
//! (`eval`, a selfplay run's `eval_random`, `eval_greedy` and `eval_stockfish`, the
//! `optimal` play), side by side.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;

/// The objects of a summary shown, in this order.
const SECTIONS: [&str; 5] = [
    "eval",
    "eval_random",
    "eval_greedy",
    "eval_stockfish",
    "optimal",
];

fn summary(run: &Path) -> Result<Value> {
    let path = run.join("summary.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| anyhow::anyhow!("{} is malformed ({e})", path.display()))
}

/// Rows `section.key` in first-seen order, one column per run.
pub fn compare_command(runs: &[PathBuf]) -> Result<()> {
    let summaries = runs
        .iter()
        .map(|r| summary(r))
        .collect::<Result<Vec<_>>>()?;
    let mut rows: Vec<(String, String)> = Vec::new();
    for s in &summaries {
        for section in SECTIONS {
            for key in s
                .get(section)
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|o| o.keys())
            {
                let row = (section.to_string(), key.clone());
                if !rows.contains(&row) {
                    rows.push(row);
                }
            }
        }
    }
    let name = |run: &PathBuf| {
        run.file_name().map_or_else(
            || run.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    say_inline!("{:<30}", "");
    for run in runs {
        say_inline!(" {:>20}", name(run));
    }
    say!();
    for label in ["study", "agent", "algorithm", "update", "episodes"] {
        if summaries.iter().any(|s| s.get(label).is_some()) {
            say_inline!("{label:<30}");
            for s in &summaries {
                let v = s.get(label).map_or("-".to_string(), |v| {
                    v.as_str().map_or(v.to_string(), str::to_string)
                });
                say_inline!(" {v:>20}");
            }
            say!();
        }
    }
    for (section, key) in rows {
        say_inline!("{:<30}", format!("{section}.{key}"));
        for s in &summaries {
            let v = s.get(&section).and_then(|o| o.get(&key));
            let text = match v.and_then(Value::as_f64) {
                Some(x) if x.fract() != 0.0 => format!("{x:.4}"),
                Some(x) => format!("{x}"),
                None => "-".into(),
            };
            say_inline!(" {text:>20}");
        }
        say!();
    }
    Ok(())
}
