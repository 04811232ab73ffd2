//! A gauntlet file (`configs/gauntlet-ccrl.toml`): engines with published ratings on
//! one scale (a CCRL list), each with the options that make it play as rated (books,
//! pondering and learning off, one thread), so `burnmate match RUN --gauntlet FILE
//! --tc 10+0.1` rates the run on that scale rather than on an engine's own labels.
//!
//! ```toml
//! scale = "CCRL Blitz (anchors from computerchess.org.uk, 2026-12-04)"
//! [[engine]]
//! name = "Glaurung 2.2"
//! command = "glaurung"
//! rating = 2793
//! options = { OwnBook = "false" }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::tools::match_play::{Opponent, Protocol};

/// What a gauntlet file holds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gauntlet {
    /// The scale the ratings are on, as the report names it.
    pub scale: String,
    /// The engines, in the order they are played.
    pub engine: Vec<GauntletEngine>,
}

/// One engine of a gauntlet.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GauntletEngine {
    /// What reports call it.
    pub name: String,
    /// Its program: a name on `$PATH` (or in /usr/games) or a path.
    pub command: String,
    /// Arguments it is started with (GNU Chess: `--uci`; Phalanx: `-l- -b-`).
    #[serde(default)]
    pub args: Vec<String>,
    /// The protocol it speaks: `uci` (default) or `xboard`.
    #[serde(default)]
    pub protocol: Protocol,
    /// Its published rating on the gauntlet's scale.
    pub rating: f64,
    /// UCI options set after the handshake (each must be one the engine declares).
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

impl Gauntlet {
    /// Reads the gauntlet at `path`; a malformed one is a one-line error naming it.
    pub fn load(path: &Path) -> Result<Gauntlet> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let gauntlet: Gauntlet = toml::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{} is not a gauntlet: {}",
                path.display(),
                e.message().replace('\n', " ")
            )
        })?;
        if gauntlet.engine.is_empty() {
            bail!("{} lists no [[engine]]", path.display());
        }
        if let Some(e) = gauntlet.engine.iter().find(|e| !e.rating.is_finite()) {
            bail!("{}: {} has no finite rating", path.display(), e.name);
        }
        Ok(gauntlet)
    }

    /// The match's opponents: each engine at its rating.
    pub fn opponents(&self) -> Vec<Opponent> {
        self.engine
            .iter()
            .map(|e| Opponent::Engine {
                name: Some(e.name.clone()),
                engine: e.command.clone(),
                args: e.args.clone(),
                protocol: e.protocol,
                options: e.options.clone().into_iter().collect(),
                rating: Some(e.rating),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gauntlet_gives_rated_opponents_and_bad_files_are_named() {
        let dir = std::env::temp_dir().join(format!("burnmate-gauntlet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.toml");
        std::fs::write(
            &path,
            "scale = \"CCRL Blitz\"\n[[engine]]\nname = \"A 1\"\ncommand = \"a\"\nrating = 1800\n\
             [[engine]]\nname = \"B 2\"\ncommand = \"/opt/b\"\nrating = 2600\noptions = { Ponder = \"false\", OwnBook = \"false\" }\n",
        )
        .unwrap();
        let gauntlet = Gauntlet::load(&path).unwrap();
        let opponents = gauntlet.opponents();
        assert_eq!(opponents.len(), 2);
        assert_eq!(opponents[0].label(), "A 1");
        assert_eq!(
            opponents[1],
            Opponent::Engine {
                name: Some("B 2".into()),
                engine: "/opt/b".into(),
                args: Vec::new(),
                protocol: Protocol::Uci,
                options: vec![
                    ("OwnBook".into(), "false".into()),
                    ("Ponder".into(), "false".into())
                ],
                rating: Some(2600.0),
            }
        );
        std::fs::write(
            &path,
            "scale = \"x\"\n[[engine]]\nname = \"A\"\ncommand = \"a\"\n",
        )
        .unwrap();
        let error = Gauntlet::load(&path).unwrap_err().to_string();
        assert!(
            error.contains("g.toml is not a gauntlet: missing field `rating`"),
            "{error}"
        );
        assert!(!error.contains('\n'));
        std::fs::remove_dir_all(dir).unwrap();
        // The shipped gauntlet: seven engines, ratings rising, two over xboard.
        let shipped = Gauntlet::load(Path::new("configs/gauntlet-ccrl.toml")).unwrap();
        let ratings: Vec<f64> = shipped.engine.iter().map(|e| e.rating).collect();
        assert_eq!(
            ratings,
            [1798.0, 1923.0, 2204.0, 2363.0, 2500.0, 2644.0, 2793.0]
        );
        let xboard = shipped
            .engine
            .iter()
            .filter(|e| e.protocol == Protocol::Xboard);
        assert_eq!(xboard.count(), 2);
    }
}
