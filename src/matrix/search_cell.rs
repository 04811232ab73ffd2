//! A matrix cell of the policy-value search learner on an endgame: self-play from
//! starts grown backwards from mate (rules only, no tablebase), then the frozen
//! network plays the cell's evaluation starts against the perfect defender, with its
//! search and as a raw policy (the most probable move, no search).
//!
//! Training starts come from [`crate::matrix::curriculum`]: walks back from mate
//! that lengthen as the learner (as white) mates in its blocks of self-play games.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use burn::tensor::Device;
use burnmate_agents::policy_value::PolicyValueNet;
use burnmate_agents::search::SearchConfig;
use burnmate_agents::search_learner::{Augmentation, SearchLearner, SelfPlayEnd};
use burnmate_encode::endgame::EndgameEncoding;
use burnmate_encode::side_to_move::{SideToMoveEncoding, transform_row};
use burnmate_env::endgame::{Endgame, Match};
use burnmate_env::endgame_game::{EndgameGame, action_of};
use burnmate_env::environment::Encoder as _;
use burnmate_env::symmetry::{SYMMETRIES, transform_action};
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_models::LayerWeights;
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::Position as _;

use crate::matrix::algorithm::{SEARCH_EVAL_SIMULATIONS, SEARCH_HIDDEN, search_learner_config};
use crate::matrix::cell::{Cell, CellResult, CurvePoint, Evaluation, Turn, evaluate};
use crate::matrix::curriculum::{Curriculum, retro_curriculum_start};
use crate::matrix::game::Scenario;
use crate::matrix::search_net::{self, SearchNetFile, search_positions};

/// Snapshots of the network taken while training (evaluated afterwards, so the
/// training time excludes them).
pub const SNAPSHOTS: u64 = 4;

/// The network at one point of training.
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
    pub learner: SearchLearner<ChessGame, SideToMoveEncoding>,
    /// The network after each [`SNAPSHOTS`]-th of the games but the last.
    pub snapshots: Vec<Snapshot>,
    /// The share of self-play games white mated.
    pub mate_rate: f64,
    /// The curriculum's level at the end.
    pub level: u32,
    /// Seconds of training.
    pub seconds: f64,
}

/// Trains the search learner for `games` self-play games on `endgame` from the
/// curriculum's starts, seeded by `seed`: the rules alone (no tablebase reaches it).
pub fn train_search(endgame: Endgame, seed: u64, games: u64, device: &Device) -> Trained {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = search_learner_config();
    let net = PolicyValueNet::new(
        SideToMoveEncoding.width(),
        &SEARCH_HIDDEN,
        ChessGame.actions(),
        device.clone().autodiff(),
        &mut rng,
    );
    let mut learner = SearchLearner::new(ChessGame, SideToMoveEncoding, net, config)
        .with_augmentation(Augmentation {
            symmetries: SYMMETRIES,
            row: transform_row,
            action: transform_action,
        });
    let started = Instant::now();
    let mut curriculum = Curriculum::default();
    let (mut played, mut wins) = (0u64, 0u64);
    let mut snapshots = Vec::new();
    while played < games {
        let block = (config.parallel as u64).min(games - played) as usize;
        let level = curriculum.level();
        let records = learner.self_play(
            block,
            |rng| retro_curriculum_start(endgame, level, rng),
            &mut rng,
        );
        for record in &records {
            let mated = record.end == SelfPlayEnd::Mate { first_won: true };
            wins += u64::from(mated);
            curriculum.record(mated);
        }
        played += block as u64;
        let due = (snapshots.len() as u64 + 1) * games / SNAPSHOTS;
        if played >= due && played < games {
            snapshots.push(Snapshot {
                games: played,
                seconds: started.elapsed().as_secs_f64(),
                layers: learner.net().weights(),
            });
        }
    }
    Trained {
        learner,
        snapshots,
        mate_rate: wins as f64 / games.max(1) as f64,
        level: curriculum.level(),
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The evaluation of `net` on `scenario`'s starts with the search at
/// [`SEARCH_EVAL_SIMULATIONS`] (no root noise): every round one batched search over
/// the positions of all unfinished games.
fn evaluate_with_search(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    net: &PolicyValueNet,
    seed: u64,
) -> Evaluation {
    let play = SearchConfig {
        noise: 0.0,
        simulations: SEARCH_EVAL_SIMULATIONS,
        ..search_learner_config().search
    };
    evaluate(scenario, &EndgameEncoding, seed, |turns| {
        search_moves(net, &play, turns)
    })
}

/// The moves a search with `play` chooses for the positions of `turns`, all searched
/// in one batch.
pub fn search_moves(
    net: &PolicyValueNet,
    play: &SearchConfig,
    turns: &mut [Turn<'_, Match>],
) -> Vec<usize> {
    let positions: Vec<_> = turns.iter().map(|t| t.state.position().clone()).collect();
    search_positions(net, play, &positions)
        .iter()
        .zip(&positions)
        .map(|(result, position)| action_of(position.board(), &result.best()))
        .collect()
}

/// The evaluation of `net` alone: its most probable move, no search (one forward
/// pass a round for all unfinished games).
fn evaluate_raw_policy(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    net: &PolicyValueNet,
    seed: u64,
) -> Evaluation {
    evaluate(scenario, &EndgameEncoding, seed, |turns| {
        let width = SideToMoveEncoding.width();
        let mut rows = vec![0.0; turns.len() * width];
        let mut moves = Vec::with_capacity(turns.len());
        let mut actions = Vec::with_capacity(turns.len());
        for (turn, row) in turns.iter().zip(rows.chunks_mut(width)) {
            let position = turn.state.position();
            SideToMoveEncoding.encode(position, row);
            let legal = ChessGame.legal_moves(position);
            actions.push(
                legal
                    .iter()
                    .map(|&m| ChessGame.action(position, m))
                    .collect::<Vec<_>>(),
            );
            moves.push(legal);
        }
        let legal: Vec<&[usize]> = actions.iter().map(Vec::as_slice).collect();
        net.priors_and_values(rows, &legal)
            .iter()
            .zip(turns.iter().zip(&moves))
            .map(|((priors, _), (turn, moves))| {
                let best = (0..moves.len())
                    .max_by(|&a, &b| priors[a].total_cmp(&priors[b]).then(b.cmp(&a)))
                    .expect("a running match has moves");
                action_of(turn.state.position().board(), &moves[best])
            })
            .collect()
    })
}

/// Trains the search learner for `games` self-play games on `endgame`, saves its net
/// as `net_file`, and evaluates it on `scenario`'s starts, and each training
/// snapshot with its search (the curve).
pub fn run_search(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    endgame: Endgame,
    cell: Cell,
    games: u64,
    device: &Device,
    net_file: &Path,
) -> Result<CellResult> {
    let trained = train_search(endgame, cell.seed, games, device);
    let net = trained.learner.net();
    search_net::save(
        net_file,
        &SearchNetFile {
            endgame,
            seed: cell.seed,
            games,
            layers: net.weights(),
        },
    )?;
    let eval = evaluate_with_search(scenario, net, cell.seed);
    let mut curve = Vec::new();
    for snapshot in &trained.snapshots {
        let at = PolicyValueNet::from_layers(&snapshot.layers, device.clone())
            .map_err(|e| anyhow::anyhow!("snapshot after {} games: {e}", snapshot.games))?;
        curve.push(CurvePoint {
            games: snapshot.games,
            train_seconds: snapshot.seconds,
            eval: evaluate_with_search(scenario, &at, cell.seed),
        });
    }
    curve.push(CurvePoint {
        games,
        train_seconds: trained.seconds,
        eval,
    });
    Ok(CellResult {
        cell,
        episodes: games,
        training_win_rate: trained.mate_rate,
        diverged: !net
            .weights()
            .iter()
            .all(|l| l.weight.iter().all(|w| w.is_finite())),
        raw_policy: Some(evaluate_raw_policy(scenario, net, cell.seed)),
        eval,
        curve,
        curriculum_level: Some(trained.level),
        train_seconds: trained.seconds,
    })
}
