//! Experiment configs: one TOML file per experiment, `study = "..."` naming the
//! study; unknown keys are errors that name the key.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::endgame::config::EndgameConfig;
use crate::knight::config::KnightConfig;
use crate::queen4x4::config::Queen4x4Config;
use crate::selfplay::config::SelfplayConfig;

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
}

/// Reads and validates a config file.
pub fn load_config(path: &Path) -> Result<Experiment> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    parse_config(&text).with_context(|| format!("config {}", path.display()))
}

/// Parses config text; errors name the offending key or value.
pub fn parse_config(text: &str) -> Result<Experiment> {
    let experiment: Experiment = toml::from_str(text).map_err(|e| {
        // toml's message spans several lines with a source excerpt; keep its first.
        anyhow::anyhow!("{}", e.message().lines().next().unwrap_or("invalid TOML"))
    })?;
    match &experiment {
        Experiment::Queen4x4(c) => c.validate()?,
        Experiment::Knight(c) => c.validate()?,
        Experiment::Endgame(c) => c.validate()?,
        Experiment::Selfplay(c) => c.validate()?,
    }
    Ok(experiment)
}

/// The resolved config as TOML, so a run can be repeated from its directory.
pub fn to_toml(experiment: &Experiment) -> Result<String> {
    toml::to_string(experiment).context("cannot serialise the resolved config")
}
