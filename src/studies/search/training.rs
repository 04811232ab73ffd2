//! The training of a matrix's search learner, resumable: self-play from starts grown
//! backwards from mate (rules only, no tablebase), in blocks of `parallel` games.
//! Self-play plays by the match's rules ([`EndgameMatchGame`]): black taking a white
//! piece ends the game drawn, as the evaluation scores it, so in KQKR the search
//! proves a skewer that wins the queen a draw within a few plies instead of playing
//! on into a reversed ending (elsewhere the capture was a draw by material already).
//! After the first block, then at least every [`RESUME_SECONDS`] and after the last
//! block, the whole state (net, Adam, replay, generator, curriculum or frontier,
//! snapshots) goes to a resume file beside the cell's net; a killed cell goes on from
//! there and ends with the bytes of an uninterrupted one.

use std::path::Path;
use std::time::Instant;

use anyhow::{Result, anyhow};
use burn::tensor::Device;
use burnmate_agents::policy_value::{Losses, PolicyValueNet};
use burnmate_agents::search_learner::{
    Augmentation, PlayoutCap, SearchLearner, SearchLearnerConfig, SearchLearnerState, SelfPlayEnd,
    SelfPlayGame,
};
use burnmate_encode::side_to_move::{SideToMoveEncoding, transform_row};
use burnmate_env::endgame::Endgame;
use burnmate_env::environment::Encoder as _;
use burnmate_env::match_game::EndgameMatchGame;
use burnmate_env::symmetry::{SYMMETRIES, transform_action};
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_models::LayerWeights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::run::fault::crash_point;
use crate::run::files::StreamedFile;
use crate::run::resume::RngState;
use crate::studies::scenario::StartSource;
use crate::studies::scenario::curriculum::{Curriculum, retro_curriculum_start};
use crate::studies::scenario::frontier::{Frontier, FrontierStart};
use crate::studies::search::settings::{
    SEARCH_HIDDEN, SEARCH_MOVES_LEFT_HEAD, search_learner_config,
};

/// Snapshots of the network taken while training (evaluated afterwards, so the
/// training time excludes them).
pub const SNAPSHOTS: u64 = 4;

/// Seconds of training between resume points (after the first block).
pub const RESUME_SECONDS: f64 = 60.0;

/// The checkpoint format of a resume file.
const RESUME_FORMAT: &str = "burnmate-search-training-v1";

/// The network at one point of training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Self-play games played.
    pub games: u64,
    /// Seconds of training so far.
    pub seconds: f64,
    /// The network's layers.
    pub layers: Vec<LayerWeights>,
}

/// A search learner trained on the rules alone, and how its training went.
pub struct Trained {
    /// The learner.
    pub learner: SearchLearner<EndgameMatchGame, SideToMoveEncoding>,
    /// The network after each [`SNAPSHOTS`]-th of the games but the last.
    pub snapshots: Vec<Snapshot>,
    /// The share of self-play games white mated.
    pub mate_rate: f64,
    /// The level curriculum's level at the end (`None` with the frontier's starts).
    pub level: Option<u32>,
    /// The frontier's mean plies of its seeds' wins at the end (`None` with the level
    /// curriculum's starts).
    pub frontier_plies: Option<f64>,
    /// Seconds of training (summed over a killed run's parts).
    pub seconds: f64,
    /// Self-play games played.
    pub games: u64,
}

/// Where training stood at a resume point.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Progress {
    played: u64,
    wins: u64,
    seconds: f64,
    rng: RngState,
    curriculum: Curriculum,
    #[serde(default)]
    frontier: Frontier,
    snapshots: Vec<Snapshot>,
    learner: SearchLearnerState,
    /// Lines of the metrics file at this point (none for a run without one).
    #[serde(default)]
    metrics_lines: Option<usize>,
}

/// The columns of a search run's `metrics.csv`: one row a block of `parallel`
/// games, with the mean losses of the block's updates (empty before the first).
pub const METRICS_HEADER: &str = "games,mated,policy_loss,value_loss,moves_left_loss";

/// What a search learner's training plays: the rest is [`search_learner_config`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchTraining {
    /// The endgame (white to mate).
    pub endgame: Endgame,
    /// Seed of the net's initialisation, the starts and the searches' noise.
    pub seed: u64,
    /// Self-play games.
    pub games: u64,
    /// [`StartSource::Frontier`] for the frontier's starts, any other for the level
    /// curriculum's.
    pub starts: StartSource,
    /// KataGo's playout-cap randomisation of self-play (none: every move searched
    /// alike and recorded).
    pub playout_cap: Option<PlayoutCap>,
    /// Simulations of the defender's (black's) self-play searches, when more than
    /// white's.
    pub defender_simulations: Option<u32>,
    /// Adam steps a ply round (none: the learner's 1).
    pub updates: Option<u32>,
}

impl SearchTraining {
    /// The learner's settings: [`search_learner_config`] with this run's self-play
    /// levers.
    pub fn learner_config(&self) -> SearchLearnerConfig {
        let defaults = search_learner_config();
        SearchLearnerConfig {
            playout_cap: self.playout_cap,
            second_player_simulations: self.defender_simulations,
            updates: self.updates.unwrap_or(defaults.updates),
            ..defaults
        }
    }
}

/// A fresh learner of `endgame`: the study's policy-value net on `device`, drawn
/// from `rng`, learning from symmetric copies of each position.
fn new_learner(
    endgame: Endgame,
    config: SearchLearnerConfig,
    device: &Device,
    rng: &mut ChaCha8Rng,
) -> Result<SearchLearner<EndgameMatchGame, SideToMoveEncoding>> {
    let net = PolicyValueNet::new(
        SideToMoveEncoding.width(),
        &SEARCH_HIDDEN,
        ChessGame.actions(),
        SEARCH_MOVES_LEFT_HEAD,
        device.clone().autodiff(),
        rng,
    );
    let rules = EndgameMatchGame { endgame };
    Ok(
        SearchLearner::new(rules, SideToMoveEncoding, net, config)?.with_augmentation(
            Augmentation {
                symmetries: SYMMETRIES,
                row: transform_row,
                action: transform_action,
            },
        ),
    )
}

/// The metrics file at `path`: a new one with its header, or the resumed one cut
/// to the `kept` lines the resume point counted.
fn open_metrics(path: &Path, kept: Option<usize>) -> Result<StreamedFile> {
    match kept {
        None => {
            let mut file = StreamedFile::create(path)?;
            file.line(METRICS_HEADER)?;
            Ok(file)
        }
        Some(keep) => Ok(StreamedFile::reopen(path, keep)?.0),
    }
}

/// A row of [`METRICS_HEADER`]: games so far, the block's mate rate, its mean
/// losses (empty before the first update).
fn metrics_row(played: u64, mated: f64, losses: Option<Losses>) -> String {
    let losses = losses.map_or(",,".to_string(), |l| {
        format!("{:.6},{:.6},{:.6}", l.policy, l.value, l.moves_left)
    });
    format!("{played},{mated:.4},{losses}")
}

/// Whether white mated in `record`.
fn mated(record: &SelfPlayGame) -> bool {
    record.end == SelfPlayEnd::Mate { first_won: true }
}

/// The retro curriculum sees each game's result; the games white mated.
fn curriculum_learns(curriculum: &mut Curriculum, records: &[SelfPlayGame]) -> u64 {
    for record in records {
        curriculum.record(mated(record));
    }
    records.iter().filter(|r| mated(r)).count() as u64
}

/// The frontier grows from each seeding start white mated from (`issued`: the
/// block's starts, by index); the games white mated.
fn frontier_learns(
    frontier: &mut Frontier,
    records: &[SelfPlayGame],
    issued: &[FrontierStart],
) -> u64 {
    for record in records {
        if let Some(start) = issued
            .get(record.start)
            .filter(|s| mated(record) && s.seeds)
        {
            frontier.mated_from(&start.position, record.plies);
        }
    }
    records.iter().filter(|r| mated(r)).count() as u64
}

/// Trains the search learner as `run` says: the rules alone (no tablebase reaches it).
/// Goes on from `resume` when it holds a resume point, and keeps one there. With
/// `metrics`, writes a row a block there ([`METRICS_HEADER`]).
pub fn train_search(
    run: &SearchTraining,
    device: &Device,
    resume: &Path,
    metrics: Option<&Path>,
) -> Result<Trained> {
    let SearchTraining {
        endgame,
        seed,
        games,
        starts,
        ..
    } = *run;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = run.learner_config();
    let mut learner = new_learner(endgame, config, device, &mut rng)?;
    let (mut played, mut wins, mut earlier_seconds) = (0u64, 0u64, 0.0);
    let mut curriculum = Curriculum::default();
    let mut frontier = Frontier::default();
    let use_frontier = starts == StartSource::Frontier;
    let mut snapshots = Vec::new();
    let mut metrics_lines = None;
    if resume.exists() {
        let saved: Progress = crate::run::checkpoint::load(resume, RESUME_FORMAT)?;
        learner
            .restore(&saved.learner)
            .map_err(|e| anyhow!("resume point {}: {e}", resume.display()))?;
        rng = saved.rng.restore()?;
        (played, wins, earlier_seconds) = (saved.played, saved.wins, saved.seconds);
        (curriculum, snapshots) = (saved.curriculum, saved.snapshots);
        frontier = saved.frontier;
        metrics_lines = saved.metrics_lines;
    }
    if let Some(folder) = resume.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| anyhow!("cannot create {}: {e}", folder.display()))?;
    }
    let mut metrics = metrics
        .map(|path| open_metrics(path, metrics_lines))
        .transpose()?;
    let started = Instant::now();
    let seconds = |started: &Instant| earlier_seconds + started.elapsed().as_secs_f64();
    let mut last_save: Option<f64> = None;
    while played < games {
        let block = (config.parallel as u64).min(games - played) as usize;
        let level = curriculum.level();
        // The frontier's starts of this block, to seed it with those mated from.
        let mut issued = Vec::new();
        let records = learner.self_play(
            block,
            |rng| {
                if use_frontier {
                    let start = frontier.start(endgame, rng);
                    let cap = start.ply_cap;
                    issued.push(start.clone());
                    (start.position, cap)
                } else {
                    retro_curriculum_start(endgame, level, rng)
                }
            },
            &mut rng,
        );
        let block_wins = if use_frontier {
            frontier_learns(&mut frontier, &records, &issued)
        } else {
            curriculum_learns(&mut curriculum, &records)
        };
        played += block as u64;
        wins += block_wins;
        if let Some(file) = metrics.as_mut() {
            let mated = block_wins as f64 / block as f64;
            file.line(&metrics_row(played, mated, learner.take_losses()))?;
        }
        let due = (snapshots.len() as u64 + 1) * games / SNAPSHOTS;
        if played >= due && played < games {
            snapshots.push(Snapshot {
                games: played,
                seconds: seconds(&started),
                layers: learner.net().weights(),
            });
        }
        let now = seconds(&started);
        if last_save.is_none_or(|at| now - at >= RESUME_SECONDS) || played == games {
            let progress = Progress {
                played,
                wins,
                seconds: now,
                rng: RngState::of(&rng),
                curriculum: curriculum.clone(),
                frontier: frontier.clone(),
                snapshots: snapshots.clone(),
                learner: learner.state(),
                metrics_lines: metrics.as_ref().map(StreamedFile::lines),
            };
            if let Some(file) = metrics.as_mut() {
                file.flush()?;
            }
            crate::run::checkpoint::save(resume, RESUME_FORMAT, &progress)?;
            crash_point("search-training-saved");
            last_save = Some(now);
        }
    }
    if let Some(file) = metrics {
        file.finish()?;
    }
    Ok(Trained {
        learner,
        snapshots,
        mate_rate: wins as f64 / games.max(1) as f64,
        level: (!use_frontier).then(|| curriculum.level()),
        frontier_plies: use_frontier.then(|| frontier.mean_plies()),
        seconds: seconds(&started),
        games,
    })
}
