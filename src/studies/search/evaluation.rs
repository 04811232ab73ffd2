//! The evaluation of the search learner on an endgame (its training is
//! [`super::training`]): the trained net is saved, then plays the scenario's evaluation
//! starts against the perfect defender with its search (as do the training
//! snapshots, for the curve) and as a raw policy (its most probable move, no
//! search); `burnmate eval NET` does the same for a saved net.

use std::path::Path;

use anyhow::Result;
use burn::tensor::Device;
use burnmate_agents::policy_value::PolicyValueNet;
use burnmate_agents::search::SearchConfig;
use burnmate_encode::endgame::EndgameEncoding;
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::endgame::Match;
use burnmate_env::endgame_game::{EndgameGame, action_of};
use burnmate_env::environment::Encoder as _;
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_oracle::tablebase::Tablebase;
use serde::{Deserialize, Serialize};
use shakmaty::Position as _;

use crate::device::backend::BackendChoice;
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::scenario::evaluation::{
    CurvePoint, Evaluation, Turn, evaluate, evaluate_first,
};
use crate::studies::scenario::{Scenario, StartSource};
use crate::studies::search::net_file::{self, SearchNetFile, search_positions};
use crate::studies::search::settings::evaluation_search;
use crate::studies::search::training::Trained;

/// The evaluation of `net` on `scenario`'s starts with the search `play`: every
/// round one batched search over the positions of all unfinished games.
fn evaluate_with_search(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    net: &PolicyValueNet,
    play: &SearchConfig,
    seed: u64,
) -> Evaluation {
    evaluate(
        scenario,
        &EndgameEncoding::of(scenario.env.endgame),
        seed,
        |turns| search_moves(net, play, turns),
    )
}

/// The moves a search with `play` chooses for the positions of `turns`, all searched
/// in one batch, each knowing its match's positions so far (a repetition is a draw,
/// as the match scores it).
pub fn search_moves(
    net: &PolicyValueNet,
    play: &SearchConfig,
    turns: &mut [Turn<'_, Match>],
) -> Vec<usize> {
    let positions: Vec<_> = turns.iter().map(|t| t.state.position().clone()).collect();
    let earlier: Vec<&[u64]> = turns.iter().map(|t| t.state.history()).collect();
    search_positions(net, play, &positions, &earlier)
        .iter()
        .zip(&positions)
        .map(|(result, position)| action_of(position.board(), &result.best()))
        .collect()
}

/// The evaluation of `net` alone: its most probable move, no search (one forward
/// pass a round for all unfinished games).
fn evaluate_raw_policy(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    starts: usize,
    net: &PolicyValueNet,
    seed: u64,
) -> Evaluation {
    evaluate_first(
        scenario,
        starts,
        &EndgameEncoding::of(scenario.env.endgame),
        seed,
        |turns| {
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
            net.evaluate_rows(rows, &legal)
                .iter()
                .zip(turns.iter().zip(&moves))
                .map(|(evaluation, (turn, moves))| {
                    let priors = &evaluation.priors;
                    let best = (0..moves.len())
                        .max_by(|&a, &b| priors[a].total_cmp(&priors[b]).then(b.cmp(&a)))
                        .expect("a running match has moves");
                    action_of(turn.state.position().board(), &moves[best])
                })
                .collect()
        },
    )
}

/// What a trained search learner did: its training, and its net against the
/// perfect defender with its search, at each snapshot and as a raw policy (a search
/// run's `evaluation.json`; the matrix records it as its `mcts` cell).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchEvaluation {
    /// Self-play games trained.
    pub games: u64,
    /// Share of self-play games that ended in mate.
    pub mate_rate: f64,
    /// Whether a weight became non-finite (the net is then meaningless).
    pub diverged: bool,
    /// The net with its evaluation search.
    pub eval: Evaluation,
    /// The net alone (its most probable move, no search).
    pub raw_policy: Evaluation,
    /// The net with its search at each training snapshot and at the end.
    pub curve: Vec<CurvePoint>,
    /// The curriculum level at the end (walks of up to `2 level + 1` un-moves from mate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curriculum_level: Option<u32>,
    /// The frontier at the end (`frontier` starts): the mean plies its seeds took to mate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontier_plies: Option<f64>,
    /// Training wall time in seconds.
    pub train_seconds: f64,
}

/// Saves the trained search learner's net as `net_file` and evaluates it on
/// `scenario`'s starts, and each training snapshot with its search (the curve);
/// `seed` seeds the evaluation's searches.
pub fn evaluate_trained(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    seed: u64,
    trained: &Trained,
    device: &Device,
    net_file: &Path,
) -> Result<SearchEvaluation> {
    let endgame = scenario.env.endgame;
    let games = trained.games;
    let net = trained.learner.net();
    let self_play = trained.learner.config().search;
    net_file::save(
        net_file,
        &SearchNetFile {
            endgame,
            seed,
            games,
            layers: net.weights(),
            discount: self_play.discount,
            self_play_c_puct: self_play.c_puct,
        },
    )?;
    let play = evaluation_search(self_play.discount, net.has_moves_left());
    let eval = evaluate_with_search(scenario, net, &play, seed);
    let mut curve = Vec::new();
    for snapshot in &trained.snapshots {
        let at = PolicyValueNet::from_layers(&snapshot.layers, ChessGame.actions(), device.clone())
            .map_err(|e| anyhow::anyhow!("snapshot after {} games: {e}", snapshot.games))?;
        curve.push(CurvePoint {
            games: snapshot.games,
            train_seconds: snapshot.seconds,
            eval: evaluate_with_search(scenario, &at, &play, seed),
        });
    }
    curve.push(CurvePoint {
        games,
        train_seconds: trained.seconds,
        eval,
    });
    Ok(SearchEvaluation {
        games,
        mate_rate: trained.mate_rate,
        diverged: !net
            .weights()
            .iter()
            .all(|l| l.weight.iter().all(|w| w.is_finite())),
        raw_policy: evaluate_raw_policy(scenario, scenario.eval.len(), net, seed),
        eval,
        curve,
        curriculum_level: trained.level,
        frontier_plies: trained.frontier_plies,
        train_seconds: trained.seconds,
    })
}

/// The moves-left term of a search, where a caller sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MovesLeftTerm {
    /// Value of one ply sooner (`SearchConfig::moves_left_slope`).
    pub slope: Option<f32>,
    /// Its most (`SearchConfig::moves_left_cap`).
    pub cap: Option<f32>,
}

/// `burnmate eval NET`: the search net plays the first `games` of the matrix's
/// evaluation starts of its endgame against the perfect defender, with its search at
/// `simulations` and `moves_left` (default the matrix's) and as a raw policy;
/// prints both beside the optimum.
pub fn eval_command(
    path: &Path,
    games: u64,
    seed: Option<u64>,
    simulations: Option<u32>,
    moves_left: MovesLeftTerm,
    backend: BackendChoice,
) -> Result<()> {
    let mut net = net_file::load(path, backend.device()?.autodiff())?;
    if let Some(simulations) = simulations {
        anyhow::ensure!(simulations >= 1, "--simulations must be at least 1");
        net.search.simulations = simulations;
    }
    for (flag, setting, value) in [
        ("slope", &mut net.search.moves_left_slope, moves_left.slope),
        ("cap", &mut net.search.moves_left_cap, moves_left.cap),
    ] {
        let Some(value) = value else { continue };
        anyhow::ensure!(
            net.net.has_moves_left(),
            "--moves-left-{flag}: search net {} has no moves-left head",
            path.display()
        );
        anyhow::ensure!(
            value.is_finite() && value >= 0.0,
            "--moves-left-{flag} must be a finite number >= 0, not {value}"
        );
        *setting = value;
    }
    let endgame = net.file.endgame;
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let scenario = crate::studies::scenario::endgame(endgame, &tablebase, StartSource::Won)?;
    let starts = usize::try_from(games).unwrap_or(usize::MAX);
    let seed = seed.unwrap_or(net.file.seed);
    let started = std::time::Instant::now();
    let searched = evaluate_first(
        &scenario,
        starts,
        &EndgameEncoding::of(endgame),
        seed,
        |turns| search_moves(&net.net, &net.search, turns),
    );
    let search_seconds = started.elapsed().as_secs_f64();
    let raw = evaluate_raw_policy(&scenario, starts, &net.net, seed);
    say!(
        "{} search net, seed {}, {} self-play games; {} won starts against the perfect defender",
        endgame.name().to_uppercase(),
        net.file.seed,
        net.file.games,
        searched.games
    );
    for (label, eval) in [
        (
            format!("search ({} simulations)", net.search.simulations),
            searched,
        ),
        ("raw policy".to_string(), raw),
    ] {
        say!(
            "{label:<26} mated {:>5.1} %  moves {}  optimum {}  ratio {}",
            100.0 * eval.win_rate,
            eval.mean_moves.map_or("-".into(), |m| format!("{m:.2}")),
            eval.optimal_moves_of_won
                .map_or("-".into(), |m| format!("{m:.2}")),
            eval.mean_moves
                .zip(eval.optimal_moves_of_won)
                .map_or("-".into(), |(m, o)| format!("{:.3}x", m / o)),
        );
    }
    say!("search time {search_seconds:.1} s");
    Ok(())
}
