//! The training of a matrix's search learner, resumable: self-play from starts grown
//! backwards from mate, or (the pawn endings) from every legal position of the
//! material (rules only, no tablebase), in blocks of `parallel` games.
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
use burnmate_env::endgame::{Endgame, promoted_start, random_start, without_black_pawns};
use burnmate_env::environment::Encoder as _;
use burnmate_env::match_game::EndgameMatchGame;
use burnmate_env::retro::retro_start;
use burnmate_env::symmetry::{SYMMETRIES, transform_action};
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_models::LayerWeights;
use rand::{Rng, RngExt as _, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use crate::run::fault::crash_point;
use crate::run::files::StreamedFile;
use crate::run::resume::RngState;
use crate::studies::scenario::curriculum::{Curriculum, retro_curriculum_start};
use crate::studies::scenario::frontier::{Frontier, FrontierStart};
use crate::studies::scenario::retry::RetryArchive;
use crate::studies::scenario::{ENDGAME_MOVE_CAP, StartSource};
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
    /// Left out while empty (every run without `retry_share`), so a resume file
    /// written before the archive existed reads back to the bytes it was checked over.
    #[serde(default, skip_serializing_if = "RetryArchive::is_empty")]
    retry: RetryArchive,
    snapshots: Vec<Snapshot>,
    learner: SearchLearnerState,
    /// Lines of the metrics file at this point (none for a run without one).
    #[serde(default)]
    metrics_lines: Option<usize>,
}

/// Plies a self-play game from a uniform start may last: the evaluation's cap of
/// [`ENDGAME_MOVE_CAP`] white moves.
pub const UNIFORM_PLY_CAP: u32 = 2 * ENDGAME_MOVE_CAP;

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
    /// [`StartSource::Frontier`] for the frontier's starts, [`StartSource::Uniform`]
    /// for the generator's (every legal position, capped at [`UNIFORM_PLY_CAP`]), any
    /// other for the level curriculum's.
    pub starts: StartSource,
    /// KataGo's playout-cap randomisation of self-play (none: every move searched
    /// alike and recorded).
    pub playout_cap: Option<PlayoutCap>,
    /// Simulations of the attacker's (white's) self-play searches, when more than
    /// the learner's.
    pub attacker_simulations: Option<u32>,
    /// Simulations of the defender's (black's) self-play searches, when more than
    /// the learner's.
    pub defender_simulations: Option<u32>,
    /// Adam steps a ply round (none: the learner's 1).
    pub updates: Option<u32>,
    /// Share of starts retried from those white failed to mate from
    /// ([`crate::studies::scenario::retry`]; none: no start is retried).
    pub retry_share: Option<f64>,
    /// The learning rate at the last game: Adam's rate falls from the learner's
    /// along a half cosine to it ([`cosine_lr`]); none: constant.
    pub lr_end: Option<f64>,
    /// Share of uniform starts with white's pawn promoted where it stands
    /// ([`promoted_start`]); none: every start of the ending's material.
    pub promoted_share: Option<f64>,
    /// Share of uniform starts with black's pawns taken off ([`without_black_pawns`]:
    /// KRKP's KRK, KPKP's KPK); none: black keeps them.
    pub captured_share: Option<f64>,
    /// Share of uniform starts grown back from a mate of the promoted ending
    /// ([`near_mate_start`]); none: no such start.
    pub near_mate_share: Option<f64>,
}

impl SearchTraining {
    /// The learner's settings: [`search_learner_config`] with this run's self-play
    /// levers.
    pub fn learner_config(&self) -> SearchLearnerConfig {
        let defaults = search_learner_config();
        SearchLearnerConfig {
            playout_cap: self.playout_cap,
            first_player_simulations: self.attacker_simulations,
            second_player_simulations: self.defender_simulations,
            updates: self.updates.unwrap_or(defaults.updates),
            ..defaults
        }
    }
}

/// A uniform start of `run`'s ending ([`random_start`]), or in a `near_mate_share` of
/// them a start near a mate of the promoted ending ([`near_mate_start`]); of the
/// others, white's pawn promoted in a `promoted_share` ([`promoted_start`]), black's
/// pawns taken off in a `captured_share` ([`without_black_pawns`]), independently. A
/// share is drawn only where it is set, so a run without one draws the starts it drew
/// before.
fn uniform_start(run: &SearchTraining, rng: &mut (impl Rng + ?Sized)) -> Chess {
    let mut chosen = |share: Option<f64>| share.is_some_and(|s| s > 0.0 && rng.random_bool(s));
    if chosen(run.near_mate_share) {
        return near_mate_start(run.endgame, rng);
    }
    let (promoted, captured) = (chosen(run.promoted_share), chosen(run.captured_share));
    loop {
        let start = if promoted {
            promoted_start(run.endgame, rng)
        } else {
            random_start(run.endgame, rng)
        };
        if !captured {
            return start;
        }
        if let Some(start) = without_black_pawns(&start) {
            return start;
        }
    }
}

/// Un-moves at most a near-mate start is grown back from its mate.
pub const NEAR_MATE_PLIES: u32 = 15;

/// A start of `endgame`'s promoted ending ([`Endgame::promoted`]: KPKP's KQKP) an odd
/// number of un-moves, 1 to [`NEAR_MATE_PLIES`], back from a mate
/// ([`retro_start`]): white to move, the mate within reach, so that a learner whose
/// own starts seldom end in mate sees mates from its first games.
fn near_mate_start(endgame: Endgame, rng: &mut (impl Rng + ?Sized)) -> Chess {
    let promoted = endgame
        .promoted()
        .expect("near-mate starts are checked to need a pawn to promote");
    let walk = 2 * rng.random_range(0..=NEAR_MATE_PLIES / 2) + 1;
    retro_start(promoted, walk, rng)
}

/// The learning rate after `done` of the run (0 to 1) on a half cosine from
/// `start` to `end` (bullet's cosine decay; AlphaZero and Lc0 drop theirs in steps):
///
/// ```text
/// lr = end + (start - end) * (1 + cos(pi * done)) / 2
/// ```
pub fn cosine_lr(start: f64, end: f64, done: f64) -> f64 {
    end + (start - end) * (1.0 + (std::f64::consts::PI * done).cos()) / 2.0
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

/// A block's start: the position and its ply cap (`seeds`: a frontier start whose
/// win becomes a seed), and whether it was retried from the archive.
struct Issued {
    start: FrontierStart,
    retried: bool,
}

/// The block's games teach where the next starts come from: the curriculum (or the
/// frontier) sees each fresh start's result, and with `archive` the fresh starts
/// white did not mate from are kept for a retry. Returns the games white mated.
fn learn_starts(
    use_frontier: bool,
    curriculum: &mut Curriculum,
    frontier: &mut Frontier,
    archive: Option<&mut RetryArchive>,
    records: &[SelfPlayGame],
    issued: &[Issued],
) -> u64 {
    let fresh = || {
        records
            .iter()
            .map(|r| (r, &issued[r.start]))
            .filter(|(_, i)| !i.retried)
    };
    for (record, issued) in fresh() {
        if !use_frontier {
            curriculum.record(mated(record));
        } else if mated(record) && issued.start.seeds {
            frontier.mated_from(&issued.start.position, record.plies);
        }
    }
    if let Some(archive) = archive {
        for (_, issued) in fresh().filter(|(r, _)| !mated(r)) {
            archive.failed_from(&issued.start.position, issued.start.ply_cap);
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
    let mut retry = RetryArchive::default();
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
        (frontier, retry) = (saved.frontier, saved.retry);
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
        if let Some(end) = run.lr_end {
            learner.set_lr(cosine_lr(config.lr, end, played as f64 / games as f64));
        }
        let level = curriculum.level();
        let mut issued: Vec<Issued> = Vec::new();
        let records = learner.self_play(
            block,
            |rng| {
                let retried = run
                    .retry_share
                    .and_then(|share| retry.retry(share, rng))
                    .map(|(position, ply_cap)| FrontierStart {
                        position,
                        ply_cap,
                        seeds: false,
                    });
                let was_retried = retried.is_some();
                let start = retried.unwrap_or_else(|| {
                    let (position, ply_cap) = match starts {
                        StartSource::Frontier => return frontier.start(endgame, rng),
                        StartSource::Uniform => (uniform_start(run, rng), UNIFORM_PLY_CAP),
                        _ => retro_curriculum_start(endgame, level, rng),
                    };
                    FrontierStart {
                        position,
                        ply_cap,
                        seeds: false,
                    }
                });
                let cap = start.ply_cap;
                let position = start.position.clone();
                issued.push(Issued {
                    start,
                    retried: was_retried,
                });
                (position, cap)
            },
            &mut rng,
        );
        let archive = run.retry_share.is_some().then_some(&mut retry);
        let block_wins = learn_starts(
            use_frontier,
            &mut curriculum,
            &mut frontier,
            archive,
            &records,
            &issued,
        );
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
                retry: retry.clone(),
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
        level: (!use_frontier && starts != StartSource::Uniform).then(|| curriculum.level()),
        frontier_plies: use_frontier.then(|| frontier.mean_plies()),
        seconds: seconds(&started),
        games,
    })
}

#[cfg(test)]
mod tests {
    use burnmate_env::endgame::parse_start;
    use shakmaty::Position as _;

    use crate::studies::search::config::SearchStudyConfig;

    use super::*;

    #[test]
    fn the_cosine_schedule_falls_from_the_start_through_the_mean_to_the_end() {
        assert_eq!(cosine_lr(1e-3, 1e-4, 0.0), 1e-3);
        assert!((cosine_lr(1e-3, 1e-4, 0.5) - 5.5e-4).abs() < 1e-12);
        assert!((cosine_lr(1e-3, 1e-4, 1.0) - 1e-4).abs() < 1e-12);
        // A quarter in: 1e-4 + 9e-4 * (1 + cos(pi / 4)) / 2.
        assert!((cosine_lr(1e-3, 1e-4, 0.25) - 8.681980515339464e-4).abs() < 1e-12);
    }

    #[test]
    fn fresh_failures_are_archived_and_retried_games_teach_neither_the_curriculum_nor_the_archive()
    {
        let kqk = parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1").unwrap();
        let issued = |retried| Issued {
            start: FrontierStart {
                position: kqk.clone(),
                ply_cap: 40,
                seeds: false,
            },
            retried,
        };
        let game = |start, end| SelfPlayGame {
            start,
            plies: 9,
            end,
        };
        let mate = SelfPlayEnd::Mate { first_won: true };
        // Starts 0 and 1 fresh, 2 retried; only fresh 1 failed.
        let records = [
            game(2, SelfPlayEnd::Draw),
            game(0, mate),
            game(1, SelfPlayEnd::Cap),
        ];
        let (mut curriculum, mut frontier) = (Curriculum::default(), Frontier::default());
        let mut archive = RetryArchive::default();
        let starts = [issued(false), issued(false), issued(true)];
        let wins = learn_starts(
            false,
            &mut curriculum,
            &mut frontier,
            Some(&mut archive),
            &records,
            &starts,
        );
        assert_eq!((wins, archive.len()), (1, 1));
        // The curriculum saw the two fresh games: 61 more wins leave its block of 64
        // one short, the 62nd fills it at 63 of 64 won and the level rises.
        for _ in 0..61 {
            curriculum.record(true);
        }
        assert_eq!(curriculum.level(), 0);
        curriculum.record(true);
        assert_eq!(curriculum.level(), 1);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        assert_eq!(archive.retry(1.0, &mut rng).map(|(_, cap)| cap), Some(40));
    }

    #[test]
    fn a_resume_point_without_retries_is_written_as_before_the_archive_existed() {
        let mut progress = Progress {
            played: 0,
            wins: 0,
            seconds: 0.0,
            rng: RngState::of(&ChaCha8Rng::seed_from_u64(0)),
            curriculum: Curriculum::default(),
            frontier: Frontier::default(),
            retry: RetryArchive::default(),
            snapshots: Vec::new(),
            learner: SearchLearnerState {
                layers: Vec::new(),
                moments: Vec::new(),
                replay: Vec::new(),
            },
            metrics_lines: None,
        };
        let written = serde_json::to_value(&progress).unwrap();
        assert!(written.get("retry").is_none(), "{written}");
        progress.retry.failed_from(&shakmaty::Chess::default(), 40);
        let written = serde_json::to_string(&progress).unwrap();
        let read: Progress = serde_json::from_str(&written).unwrap();
        assert_eq!(read.retry.len(), 1);
    }

    #[test]
    fn uniform_starts_promote_and_capture_by_their_shares_and_draw_as_before_without() {
        let run = |endgame, promoted_share, captured_share| SearchTraining {
            endgame,
            starts: StartSource::Uniform,
            promoted_share,
            captured_share,
            ..SearchStudyConfig::default().training()
        };
        let (mut ours, mut plain) = (ChaCha8Rng::seed_from_u64(3), ChaCha8Rng::seed_from_u64(3));
        for _ in 0..50 {
            let start = uniform_start(&run(Endgame::Krkp, None, None), &mut ours);
            assert_eq!(start, random_start(Endgame::Krkp, &mut plain));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..200 {
            let krk = uniform_start(&run(Endgame::Krkp, None, Some(1.0)), &mut rng);
            let board = krk.board();
            assert!(
                board.pawns().is_empty() && board.rooks().count() == 1,
                "{board:?}"
            );
            // KPKP promoted and captured: white's queen or rook alone.
            let lone = uniform_start(&run(Endgame::Kpkp, Some(1.0), Some(1.0)), &mut rng);
            let board = lone.board();
            assert!(board.pawns().is_empty(), "{board:?}");
            assert_eq!((board.queens() | board.rooks()).count(), 1, "{board:?}");
        }
        let taken = (0..400)
            .filter(|_| {
                let start = uniform_start(&run(Endgame::Kqkp, None, Some(0.25)), &mut rng);
                start.board().pawns().is_empty()
            })
            .count();
        assert!((60..=140).contains(&taken), "{taken} of 400 taken");
    }

    #[test]
    fn near_mate_starts_are_the_promoted_endings_a_few_moves_from_mate() {
        let run = SearchTraining {
            endgame: Endgame::Kpk,
            starts: StartSource::Uniform,
            near_mate_share: Some(1.0),
            ..SearchStudyConfig::default().training()
        };
        let kqk = burnmate_oracle::tablebase::Tablebase::solve(Endgame::Kqk);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut near = 0;
        for _ in 0..200 {
            let start = uniform_start(&run, &mut rng);
            let board = start.board();
            assert_eq!(start.turn(), shakmaty::Color::White);
            assert_eq!(
                (board.queens().count(), board.occupied().count()),
                (1, 3),
                "KQK: {board:?}"
            );
            // Black's replies need not be the walk's: most, not all, mate that fast.
            near += usize::from(
                kqk.mate_in(&start)
                    .is_some_and(|m| m <= NEAR_MATE_PLIES.div_ceil(2)),
            );
        }
        assert!(near >= 190, "{near} of 200 mated within the walk");
    }
}
