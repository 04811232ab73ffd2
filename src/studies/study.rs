//! The one table the CLI reads to hand a run to its study: [`Experiment::study`]
//! finds the study of a config, and each study answers `train`, `resume`, `eval`
//! and `play` for its runs, refusing in one line what it does not support.

use std::path::Path;

use anyhow::Result;

use crate::device::backend::BackendChoice;
use crate::run::overrides::Overrides;
use crate::studies::experiment::Experiment;
use crate::studies::search::evaluation::SearchEvalOptions;

/// What `burnmate eval RUN` asks of a run.
pub struct EvalRequest<'a> {
    /// The run directory.
    pub run: &'a Path,
    /// Games to play (positive).
    pub games: u64,
    /// Seed of the evaluation games.
    pub seed: u64,
    /// Burn backend to evaluate on.
    pub backend: BackendChoice,
    /// Stockfish Skill Levels to play as well (afterstate runs only).
    pub stockfish_skills: &'a [u8],
    /// What only a search run reads.
    pub search: SearchEvalOptions,
}

/// What `burnmate play RUN` asks of a run.
pub struct PlayRequest<'a> {
    /// The run directory.
    pub run: &'a Path,
    /// queen4x4: a start such as "Qa1 Ka2 / Kc2".
    pub start: Option<&'a str>,
    /// endgame: a start FEN, white to move.
    pub fen: Option<&'a str>,
    /// endgame: a new file for the game's PGN.
    pub pgn: Option<&'a Path>,
    /// Seed of the defender's random moves or tie breaks.
    pub seed: u64,
    /// queen4x4: the most moves to show.
    pub max_moves: Option<u32>,
}

/// A study as the CLI drives it.
pub trait Study {
    /// `burnmate train CONFIG`: a new run of this config (read from `path`).
    fn train(&self, path: &Path, overrides: &Overrides) -> Result<()>;

    /// `burnmate resume RUN`: finishes a killed run of this config.
    fn resume(&self, run: &Path) -> Result<()>;

    /// `burnmate eval RUN`: plays a finished run's policy and reports it.
    fn eval(&self, request: &EvalRequest) -> Result<()>;

    /// `burnmate play RUN`: shows one game of a finished run's policy.
    fn play(&self, request: &PlayRequest) -> Result<()>;
}

impl Experiment {
    /// The study that runs this config.
    pub fn study(&self) -> &dyn Study {
        match self {
            Experiment::Queen4x4(config) => config,
            Experiment::Knight(config) => config,
            Experiment::Endgame(config) => config,
            Experiment::Selfplay(config) => config,
            Experiment::Chess(config) => config,
            Experiment::Search(config) => config,
        }
    }
}

/// Refuses `--envs` and `--continue-from` where the study has no use for them.
pub fn refuse_overrides(overrides: &Overrides, envs: bool, continue_from: bool) -> Result<()> {
    anyhow::ensure!(
        (envs || overrides.envs.is_none()) && (continue_from || overrides.continue_from.is_none()),
        "--envs applies to knight and selfplay configs, --continue-from to selfplay"
    );
    Ok(())
}

/// Refuses `--stockfish-skills` for every run but the afterstate learner's.
pub fn refuse_stockfish_skills(request: &EvalRequest) -> Result<()> {
    anyhow::ensure!(
        request.stockfish_skills.is_empty(),
        "--stockfish-skills applies to selfplay runs with algorithm = \"afterstate-td\""
    );
    Ok(())
}
