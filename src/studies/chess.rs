//! The full-chess learner (ours; `configs/chess-zero.toml`): generations of
//! search-labelled self-play train an efficiently updatable net
//! ([`burnmate_models::Nnue`]) for an engine-grade alpha-beta
//! ([`burnmate_engine`]); generation 0 searches on material values. See
//! [`generations`] for the loop. `burnmate uci RUN` and `burnmate match RUN` play
//! the newest incumbent.

pub mod compact;
pub mod config;
pub mod data_file;
pub mod games;
pub mod generations;
pub mod net_file;
pub mod openings;
pub mod play;
pub mod shards;
pub mod step_files;

use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::device::backend::BackendChoice;
use crate::run::files::{claim_new_run, config_stem, create_run_dir, lock_dir, write_atomic};
use crate::run::overrides::Overrides;
use crate::run::progress::episode_bar;
use crate::studies::experiment::{Experiment, to_toml};
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
        trainer_device(&config)?;
        let dir = create_run_dir(overrides.out.as_deref(), &config_stem(path))?;
        let _lock = claim_new_run(&dir, &to_toml(&Experiment::Chess(config.clone()))?)?;
        finish(&dir, &config)
    }

    /// Continues a killed run at its first unfinished generation.
    fn resume(&self, run: &Path) -> Result<()> {
        self.validate()?;
        trainer_device(self)?;
        let _lock = lock_dir(run)?;
        finish(run, self)
    }

    fn eval(&self, _: &EvalRequest) -> Result<()> {
        bail!(
            "a chess run is measured in games: `burnmate match RUN --uci-elo 1500,1800` rates its newest net"
        )
    }

    /// One game of the run's newest net against itself ([`play::play_game`]).
    fn play(&self, request: &PlayRequest) -> Result<()> {
        play_net(request)
    }
}

/// Refuses a trainer's GPU backend without an adapter, in one line naming it, before
/// anything is written (`flex` trains on the host's cores and needs no device).
fn trainer_device(config: &ChessConfig) -> Result<()> {
    if config.backend != BackendChoice::Flex {
        config.backend.device()?;
    }
    Ok(())
}

/// One game of the chess net `request.run` names (the shipped one, a compact file,
/// a chess run's newest incumbent) against itself, printed ([`play::play_game`]).
pub fn play_net(request: &PlayRequest) -> Result<()> {
    let (net, detail) = crate::tools::uci_server::players::load_chess_net(request.run)?;
    play::play_game(net, &detail, request)
}

/// A new run of `config` in `dir` (which must not exist or be empty), nothing
/// played yet: the first step of a run whose generations go by [`shards`].
pub fn create(dir: &Path, config: &ChessConfig) -> Result<()> {
    config.validate()?;
    trainer_device(config)?;
    let dir = create_run_dir(Some(dir), "chess")?;
    claim_new_run(&dir, &to_toml(&Experiment::Chess(config.clone()))?)?;
    crate::say!(
        "run {}: its generations go by `burnmate generation {} prepare`, `play --shard i/N`, `record`",
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// The file that records settings changed by [`extend`], a line each.
pub const CHANGES_FILE: &str = "changes.txt";

/// Extends `run` (finished or killed) to `generations` generations and continues it:
/// the count in its `config.toml` changes and its nets are rebound to the new
/// config, so a run that met its count buys more compute without starting over.
/// `config` may carry other `changes` (`KEY=VALUE`) for the generations to come;
/// `changes.txt` records from which generation each holds.
pub fn extend(
    run: &Path,
    config: &ChessConfig,
    generations: u32,
    changes: &[String],
) -> Result<()> {
    let _lock = lock_dir(run)?;
    let done = generations::finished(run)?.len() as u32;
    if generations.saturating_add(1) < done {
        bail!(
            "{} has finished generations 0-{} already; --generations must be at least {}",
            run.display(),
            done - 1,
            done - 1
        );
    }
    let config_path = run.join("config.toml");
    let old = std::fs::read(&config_path)
        .with_context(|| format!("cannot read {}", config_path.display()))?;
    let extended = ChessConfig {
        generations,
        ..config.clone()
    };
    extended.validate()?;
    let new = to_toml(&Experiment::Chess(extended.clone()))?;
    for generation in 1..done.max(1) {
        let net = net_file::path(run, generation);
        if net.exists() {
            crate::run::checkpoint::rebind::<net_file::NetFile>(
                &net,
                net_file::FORMAT,
                &old,
                new.as_bytes(),
            )?;
        }
    }
    if !changes.is_empty() {
        let log = run.join(CHANGES_FILE);
        let mut text = std::fs::read_to_string(&log).unwrap_or_default();
        text.push_str(&format!("from generation {done}: {}\n", changes.join(" ")));
        write_atomic(&log, text.as_bytes())?;
    }
    write_atomic(&config_path, new.as_bytes())?;
    finish(run, &extended)
}

fn finish(dir: &Path, config: &ChessConfig) -> Result<()> {
    let bar = episode_bar(u64::from(config.generations) + 1, "chess generations");
    let rows = generations::run_generations(dir, config, &bar)?;
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
