//! Experiment configs: one TOML file per experiment, `study = "..."` naming the
//! study; unknown keys are errors that name the key.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::studies::chess::config::ChessConfig;
use crate::studies::endgame::config::EndgameConfig;
use crate::studies::knight::config::KnightConfig;
use crate::studies::queen4x4::config::Queen4x4Config;
use crate::studies::search::config::SearchStudyConfig;
use crate::studies::selfplay::config::SelfplayConfig;

/// A parsed config file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "study", rename_all = "kebab-case")]
pub enum Experiment {
    /// King and queen against a random king on 4x4 (Luo).
    Queen4x4(Queen4x4Config),
    /// A knight checks a fixed king within 10 moves (Solime).
    Knight(KnightConfig),
    /// Tabular least-best-move Q-learning on 8x8 endgames (Boar 2022).
    Endgame(EndgameConfig),
    /// Full chess, convolutional piece and move selectors in self-play (Dias).
    Selfplay(SelfplayConfig),
    /// Full chess (ours): generations of search-labelled self-play train an NNUE.
    Chess(ChessConfig),
    /// An endgame's search learner (ours): policy-value search from self-play.
    Search(SearchStudyConfig),
}

/// Reads and validates a config file.
pub fn load_config(path: &Path) -> Result<Experiment> {
    load_config_with(path, &[])
}

/// Reads a config file, applies `KEY=VALUE` settings on top (dotted keys reach into
/// tables, e.g. `epsilon.min=0.2`; a value that is not TOML is taken as a string),
/// and validates the result.
pub fn load_config_with(path: &Path, settings: &[String]) -> Result<Experiment> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    let mut table: toml::Table = toml::from_str(&text)
        .map_err(first_line)
        .with_context(|| format!("config {}", path.display()))?;
    for setting in settings {
        apply_setting(&mut table, setting)?;
    }
    parse_table(table).with_context(|| match settings {
        [] => format!("config {}", path.display()),
        _ => format!(
            "config {} with --set {}",
            path.display(),
            settings.join(" ")
        ),
    })
}

/// toml's message spans several lines with a source excerpt; keep its first.
fn first_line(e: toml::de::Error) -> anyhow::Error {
    anyhow::anyhow!("{}", e.message().lines().next().unwrap_or("invalid TOML"))
}

/// Sets one `KEY=VALUE` in `table`.
fn apply_setting(table: &mut toml::Table, setting: &str) -> Result<()> {
    let (key, value) = setting
        .split_once('=')
        .with_context(|| format!("--set expects KEY=VALUE, not '{setting}'"))?;
    let key = key.trim();
    anyhow::ensure!(
        key != "study",
        "--set cannot change the study; use another config"
    );
    let value = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut parsed) => parsed.remove("v").expect("just parsed"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let mut path: Vec<&str> = key.split('.').collect();
    let last = path
        .pop()
        .filter(|k| !k.is_empty())
        .with_context(|| format!("--set {setting}: empty key"))?;
    let mut node = table;
    for part in path {
        node = node
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .with_context(|| format!("--set {setting}: '{part}' is not a table"))?;
    }
    node.insert(last.to_string(), value);
    Ok(())
}

/// Fails on the first float in `table` that is not finite (TOML allows `nan` and
/// `inf`), naming its key.
fn check_finite(table: &toml::Table, prefix: &str) -> Result<()> {
    for (key, value) in table {
        let name = format!("{prefix}{key}");
        match value {
            toml::Value::Float(x) if !x.is_finite() => {
                anyhow::bail!("{name} must be a finite number, not {x}")
            }
            toml::Value::Table(inner) => check_finite(inner, &format!("{name}."))?,
            toml::Value::Array(items) => {
                for item in items {
                    if let toml::Value::Float(x) = item
                        && !x.is_finite()
                    {
                        anyhow::bail!("{name} must hold finite numbers, not {x}");
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn parse_table(table: toml::Table) -> Result<Experiment> {
    check_finite(&table, "")?;
    let experiment: Experiment = toml::Value::Table(table).try_into().map_err(first_line)?;
    match &experiment {
        Experiment::Queen4x4(c) => c.validate()?,
        Experiment::Knight(c) => c.validate()?,
        Experiment::Endgame(c) => c.validate()?,
        Experiment::Selfplay(c) => c.validate()?,
        Experiment::Chess(c) => c.validate()?,
        Experiment::Search(c) => c.check()?,
    }
    Ok(experiment)
}

/// The resolved config as TOML, so a run can be repeated from its directory.
/// Top-level keys its algorithm does not read are left out (they load back as
/// their defaults).
pub fn to_toml(experiment: &Experiment) -> Result<String> {
    let text = toml::to_string(experiment).context("cannot serialise the resolved config")?;
    let unused = match experiment {
        Experiment::Selfplay(c) => c.unused_keys(),
        _ => Vec::new(),
    };
    let mut in_top_level = true;
    let mut kept = String::with_capacity(text.len());
    for line in text.lines() {
        in_top_level &= !line.starts_with('[');
        let key = line.split(" = ").next().unwrap_or_default();
        if !(in_top_level && unused.contains(&key)) {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    Ok(kept)
}
