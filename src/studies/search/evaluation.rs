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
use burnmate_env::endgame::{Endgame, Match};
use burnmate_env::endgame_game::{EndgameGame, action_of};
use burnmate_env::environment::Encoder as _;
use burnmate_env::match_game::EndgameMatchGame;
use burnmate_env::tactics::ForcingMoves;
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng as _;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position as _};

use crate::device::backend::BackendChoice;
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::scenario::evaluation::{
    CurvePoint, Evaluation, Turn, evaluate, evaluate_first,
};
use crate::studies::scenario::{Scenario, StartSource};
use crate::studies::search::defence::{NetDefence, defence_starts, evaluate_defence, random_king};
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
        |turns| search_moves(net, play, scenario.env.endgame, turns),
    )
}

/// The moves a search with `play` chooses for the positions of `turns`, matches of
/// `endgame`, all searched in one batch by the match's rules (a white piece taken
/// ends it drawn: [`EndgameMatchGame`]), each knowing its match's positions so far
/// (a repetition is a draw, as the match scores it).
pub fn search_moves(
    net: &PolicyValueNet,
    play: &SearchConfig,
    endgame: Endgame,
    turns: &mut [Turn<'_, Match>],
) -> Vec<usize> {
    let positions: Vec<_> = turns.iter().map(|t| t.state.position().clone()).collect();
    let earlier: Vec<&[u64]> = turns.iter().map(|t| t.state.history()).collect();
    search_positions(
        net,
        play,
        &EndgameMatchGame { endgame },
        &positions,
        &earlier,
    )
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
            let positions: Vec<&Chess> = turns.iter().map(|t| t.state.position()).collect();
            raw_policy_moves(net, &positions)
                .iter()
                .zip(&positions)
                .map(|(mv, position)| action_of(position.board(), mv))
                .collect()
        },
    )
}

/// The net's evaluation of each of `positions` (either side to move, each with a
/// legal move), all in one forward pass, with the legal moves its priors follow.
pub fn evaluate_positions(
    net: &PolicyValueNet,
    positions: &[&Chess],
) -> (Vec<burnmate_agents::search::LeafEvaluation>, Vec<Vec<Move>>) {
    let width = SideToMoveEncoding.width();
    let mut rows = vec![0.0; positions.len() * width];
    let mut moves = Vec::with_capacity(positions.len());
    let mut actions = Vec::with_capacity(positions.len());
    for (&position, row) in positions.iter().zip(rows.chunks_mut(width)) {
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
    (net.evaluate_rows(rows, &legal), moves)
}

/// The most probable legal move of `net` in each of `positions` (either side to
/// move), all in one forward pass.
pub fn raw_policy_moves(net: &PolicyValueNet, positions: &[&Chess]) -> Vec<Move> {
    let (evaluations, moves) = evaluate_positions(net, positions);
    evaluations
        .iter()
        .zip(&moves)
        .map(|(evaluation, moves)| {
            let priors = &evaluation.priors;
            let best = (0..moves.len())
                .max_by(|&a, &b| priors[a].total_cmp(&priors[b]).then(b.cmp(&a)))
                .expect("a running match has moves");
            moves[best]
        })
        .collect()
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
    /// The net as the defender against the perfect attacker (the lost and drawn
    /// black-to-move starts of the evaluation's seed, as many lost as evaluation starts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defence: Option<NetDefence>,
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
    let play = evaluation_search(endgame, self_play.discount, net.has_moves_left());
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
        defence: Some({
            let starts = scenario.eval.len();
            let tablebase = scenario.env.defender;
            let (lost, drawn) = defence_starts(tablebase, starts, starts.div_ceil(4), seed);
            net_defence(net, &play, tablebase, &lost, &drawn, seed)
        }),
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

/// How `eval` names a search: its simulations, and its forcing share where set
/// ("forcing" over checks and captures, "threats" over captures and threats,
/// "forcing and threats" over all).
fn search_label(search: &SearchConfig) -> String {
    if search.forcing_share > 0.0 {
        let moves = match search.forcing_moves {
            ForcingMoves::ChecksAndCaptures => "forcing",
            ForcingMoves::CapturesAndThreats => "threats",
            ForcingMoves::All => "forcing and threats",
        };
        format!(
            "search ({}, {moves} {})",
            search.simulations, search.forcing_share
        )
    } else {
        format!("search ({} simulations)", search.simulations)
    }
}

/// What `burnmate eval` asks of a search net alone.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchEvalOptions {
    /// Seed of the defender's tie breaks; none: the net's own seed (as its training
    /// evaluated it).
    pub seed: Option<u64>,
    /// Simulations a move; none: the matrix's evaluation budget.
    pub simulations: Option<u32>,
    /// The moves-left term; unset parts: the net's own.
    pub moves_left: MovesLeftTerm,
    /// Share of the prior spread over forcing moves; none: the ending's.
    pub forcing_share: Option<f32>,
    /// Which moves are forcing; none: the ending's.
    pub forcing_moves: Option<ForcingMoves>,
}

/// `burnmate eval NET`: the search net plays the first `games` of the matrix's
/// evaluation starts of its endgame against the perfect defender, with its search
/// (`options` where set, else the matrix's) and as a raw policy; prints both beside
/// the optimum.
pub fn eval_command(
    path: &Path,
    games: u64,
    options: &SearchEvalOptions,
    backend: BackendChoice,
) -> Result<()> {
    let mut net = net_file::load(path, backend.device()?.autodiff())?;
    let SearchEvalOptions {
        seed,
        simulations,
        moves_left,
        forcing_share,
        forcing_moves,
    } = *options;
    if let Some(simulations) = simulations {
        anyhow::ensure!(simulations >= 1, "--simulations must be at least 1");
        net.search.simulations = simulations;
    }
    if let Some(share) = forcing_share {
        anyhow::ensure!(
            (0.0..=1.0).contains(&share),
            "--forcing-share must lie in [0, 1], not {share}"
        );
        net.search.forcing_share = share;
    }
    if let Some(moves) = forcing_moves {
        net.search.forcing_moves = moves;
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
        |turns| search_moves(&net.net, &net.search, endgame, turns),
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
        (search_label(&net.search), searched),
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
    report_defence(&net.net, &net.search, &tablebase, starts, seed);
    Ok(())
}

/// The net as the defender (`burnmate eval NET`'s second half): with its search and
/// as a raw policy against the perfect attacker, from `starts` lost and
/// `starts / 4` drawn black-to-move starts, beside a random king; prints each.
fn report_defence(
    net: &PolicyValueNet,
    play: &SearchConfig,
    tablebase: &Tablebase,
    starts: usize,
    seed: u64,
) {
    let (lost, drawn) = defence_starts(tablebase, starts, starts.div_ceil(4), seed);
    let started = std::time::Instant::now();
    let defence = net_defence(net, play, tablebase, &lost, &drawn, seed);
    let seconds = started.elapsed().as_secs_f64();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let random = evaluate_defence(tablebase, &lost, &drawn, seed, random_king(&mut rng));
    say!(
        "as the defender: {} lost and {} drawn black-to-move starts against the perfect attacker",
        defence.search.lost_games,
        defence.search.drawn_games
    );
    for (label, defence) in [
        (search_label(play), defence.search),
        ("raw policy".to_string(), defence.raw_policy),
        ("random king".to_string(), random),
    ] {
        say!(
            "{label:<26} survives {:>5.1} % of the optimal defence (moves {:.2}, optimum {:.2}; optimal in {:.1} %), drawn starts held {:.1} %",
            100.0 * defence.survival,
            defence.mean_moves,
            defence.optimal_moves,
            100.0 * defence.optimal_share,
            100.0 * defence.held,
        );
    }
    say!("defence time {seconds:.1} s");
}

/// `net` as the defender with its search `play` and as a raw policy, from the `lost`
/// and `drawn` black-to-move starts.
fn net_defence(
    net: &PolicyValueNet,
    play: &SearchConfig,
    tablebase: &Tablebase,
    lost: &[Chess],
    drawn: &[Chess],
    seed: u64,
) -> NetDefence {
    let search = evaluate_defence(tablebase, lost, drawn, seed, |matches| {
        let positions: Vec<Chess> = matches.iter().map(|m| m.position().clone()).collect();
        let earlier: Vec<&[u64]> = matches.iter().map(|m| m.history()).collect();
        let game = EndgameMatchGame {
            endgame: tablebase.endgame(),
        };
        search_positions(net, play, &game, &positions, &earlier)
            .iter()
            .map(|result| result.best())
            .collect()
    });
    let raw_policy = evaluate_defence(tablebase, lost, drawn, seed, |matches| {
        let positions: Vec<&Chess> = matches.iter().map(|m| m.position()).collect();
        raw_policy_moves(net, &positions)
    });
    NetDefence { search, raw_policy }
}
