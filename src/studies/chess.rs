//! The full-chess learner (ours; `configs/chess-zero.toml`): generations of
//! search-labelled self-play train an efficiently updatable net
//! ([`burnmate_models::Nnue`]) for an engine-grade alpha-beta
//! ([`burnmate_agents::engine`]); generation 0 searches on material values. See
//! [`generations`] for the loop. `burnmate uci RUN` and `burnmate match RUN` play
//! the newest incumbent.

pub mod config;
pub mod data_file;
pub mod games;
pub mod generations;
pub mod net_file;

use std::path::Path;

use anyhow::{Result, bail};

use crate::run::config::{Experiment, to_toml};
use crate::run::files::{config_stem, create_run_dir, lock_dir, write_atomic};
use crate::run::overrides::Overrides;
use crate::run::progress::episode_bar;
use crate::studies::study::{EvalRequest, PlayRequest, Study, refuse_overrides};
use config::ChessConfig;

impl Study for ChessConfig {
    /// A new run: generation 0 and `generations` more.
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()> {
        refuse_overrides(overrides, false, false)?;
        if overrides.episodes.is_some() {
            bail!("--episodes does not apply to a chess run; use --set generations=N or games=N");
        }
        let mut config = self.clone();
        if let Some(seed) = overrides.seed {
            config.seed = seed;
        }
        if let Some(backend) = overrides.backend {
            config.backend = backend;
        }
        config.validate()?;
        let device = config.backend.device()?;
        let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
        let _lock = lock_dir(&dir)?;
        write_atomic(
            &dir.join("config.toml"),
            to_toml(&Experiment::Chess(config.clone()))?.as_bytes(),
        )?;
        finish(&dir, &config, device)
    }

    /// Continues a killed run at its first unfinished generation.
    fn resume(&self, run: &Path) -> Result<()> {
        self.validate()?;
        let _lock = lock_dir(run)?;
        finish(run, self, self.backend.device()?)
    }

    fn eval(&self, _: &EvalRequest) -> Result<()> {
        bail!(
            "a chess run is measured in games: `burnmate match RUN --uci-elo 1500,1800` rates its newest net"
        )
    }

    fn play(&self, _: &PlayRequest) -> Result<()> {
        bail!("a chess run plays through UCI: `burnmate uci RUN` in any chess GUI")
    }
}

fn finish(dir: &Path, config: &ChessConfig, device: burn::tensor::Device) -> Result<()> {
    let bar = episode_bar(u64::from(config.generations) + 1, "chess generations");
    let rows = generations::run_generations(dir, config, device, &bar)?;
    bar.finish_and_clear();
    crate::say!("run             {}", dir.display());
    crate::say!("generation  positions  gate (W/D/L)  accepted  incumbent  CPU s");
    for row in &rows {
        let gate = row
            .gate
            .map_or("-".to_string(), |(w, d, l)| format!("+{w} ={d} -{l}"));
        crate::say!(
            "{:>10}  {:>9}  {gate:>12}  {:>8}  {:>9}  {:>5.0}",
            row.generation,
            row.positions,
            row.accepted,
            row.incumbent,
            row.cpu_seconds
        );
    }
    crate::say!(
        "rate it: burnmate match {} --uci-elo 1500,1800 --out DIR",
        dir.display()
    );
    Ok(())
}
