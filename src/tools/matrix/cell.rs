//! One cell of the matrix: train an algorithm on a game with one seed, then let the
//! frozen greedy policy play the game's evaluation starts.

use std::time::Instant;

use anyhow::{Result, anyhow};
use burn::tensor::Device;
use burnmate_agents::actor_critic::ActorCritic;
use burnmate_agents::agent::Agent;
use burnmate_agents::dqn::Dqn;
use burnmate_agents::endgame::LeastBestQ;
use burnmate_agents::episode::{Mode, Play, play_episode};
use burnmate_agents::init::uniform_layers;
use burnmate_agents::luo::LuoAgent;
use burnmate_env::endgame::{Endgame, MatchEnd};
use burnmate_env::endgame_game::{EndgameGame, action_of};
use burnmate_env::environment::{Encoder, Environment};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::Position as _;

use crate::studies::endgame::game::Arena;
use crate::studies::scenario::curriculum::Curriculum;
use crate::studies::scenario::evaluation::{CurvePoint, Evaluation, evaluate_each};
use crate::studies::scenario::{Game, Scenario};
use crate::studies::search::defence::NetDefence;
use crate::studies::search::evaluation::SearchEvaluation;
use crate::tools::matrix::algorithm::{
    Algorithm, HIDDEN, actor_critic_config, dqn_config, exploration, tabular_config, td_config,
};

/// One run of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cell {
    /// The game.
    pub game: Game,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The seed (weights, exploration, training starts).
    pub seed: u64,
}

impl Cell {
    /// The cell's name in file names: `<game>-<algorithm>-<seed>`.
    pub fn file_stem(&self) -> String {
        format!(
            "{}-{}-{}",
            self.game.name(),
            self.algorithm.name(),
            self.seed
        )
    }
}

/// What one cell produced (one line of `results.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// Which run.
    #[serde(flatten)]
    pub cell: Cell,
    /// Training episodes played.
    pub episodes: u64,
    /// Share of training episodes won.
    pub training_win_rate: f64,
    /// Whether a network output became non-finite (the policy is then meaningless).
    pub diverged: bool,
    /// The frozen policy's evaluation (the search learner: with its search).
    pub eval: Evaluation,
    /// The search learner's network alone (its most probable move, no search).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_policy: Option<Evaluation>,
    /// The search learner's net as the defender against the perfect attacker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defence: Option<NetDefence>,
    /// The search learner's evaluation (with its search) at snapshots taken during
    /// training and at the end, against training time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<CurvePoint>,
    /// The search learner's curriculum level at the end (walks of up to
    /// `2 level + 1` un-moves from mate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curriculum_level: Option<u32>,
    /// The search learner's frontier at the end (`--starts frontier`): the mean plies
    /// its seeds took to mate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frontier_plies: Option<f64>,
    /// Training wall time in seconds (the only field that differs between reruns).
    pub train_seconds: f64,
}

impl CellResult {
    /// The matrix's record of a search learner's evaluation.
    pub fn of_search(cell: Cell, search: SearchEvaluation) -> CellResult {
        CellResult {
            cell,
            episodes: search.games,
            training_win_rate: search.mate_rate,
            diverged: search.diverged,
            eval: search.eval,
            raw_policy: Some(search.raw_policy),
            defence: search.defence,
            curve: search.curve,
            curriculum_level: search.curriculum_level,
            frontier_plies: search.frontier_plies,
            train_seconds: search.train_seconds,
        }
    }
}

/// Trains `algorithm` (a neural one) on `scenario` for `episodes` and evaluates it.
pub fn run_neural<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    encoder: &X,
    cell: Cell,
    episodes: u64,
    device: &Device,
) -> Result<CellResult> {
    let mut rng = ChaCha8Rng::seed_from_u64(cell.seed);
    let (width, actions) = (encoder.width(), scenario.env.actions());
    let schedule = exploration(episodes);
    let started = Instant::now();
    let (mut wins, mut curriculum) = (0u64, Curriculum::default());
    let mut tally = |won: bool, curriculum: &mut Curriculum| {
        wins += u64::from(won);
        curriculum.record(won);
    };
    let (eval, diverged) = match cell.algorithm {
        Algorithm::Td => {
            let mut agent =
                LuoAgent::with_shape(td_config(), width, actions, device.clone(), &mut rng)?;
            for n in 0..episodes {
                let start = (scenario.train_start)(&mut rng, curriculum.level());
                let episode = agent.train_episode_in(
                    &scenario.env,
                    encoder,
                    start,
                    schedule.at(n),
                    scenario.max_steps,
                    &mut rng,
                );
                tally((scenario.is_win)(episode.outcome), &mut curriculum);
            }
            let eval = evaluate_each(scenario, encoder, cell.seed, |turn| {
                agent.greedy_in(std::mem::take(&mut turn.row), &turn.legal)
            });
            (eval, agent.diverged())
        }
        Algorithm::Dqn | Algorithm::ActorCritic => {
            let device = device.clone().autodiff();
            let mut agent: Box<dyn Agent> = if cell.algorithm == Algorithm::Dqn {
                let config = dqn_config(width, actions);
                let layers = uniform_layers(&config.sizes, &mut rng);
                Box::new(Dqn::new(config, device, &layers).map_err(|e| anyhow!(e))?)
            } else {
                let actor = uniform_layers(&[width, HIDDEN, HIDDEN, actions], &mut rng);
                let critic = uniform_layers(&[width, HIDDEN, HIDDEN, 1], &mut rng);
                Box::new(
                    ActorCritic::new(actor_critic_config(), device, &actor, &critic)
                        .map_err(|e| anyhow!(e))?,
                )
            };
            for n in 0..episodes {
                let start = (scenario.train_start)(&mut rng, curriculum.level());
                let play = Play {
                    mode: Mode::Train {
                        epsilon: schedule.at(n),
                    },
                    max_steps: scenario.max_steps,
                };
                let episode = play_episode(
                    &scenario.env,
                    encoder,
                    agent.as_mut(),
                    start,
                    play,
                    &mut rng,
                    |_, _, _| {},
                );
                tally((scenario.is_win)(episode.outcome), &mut curriculum);
            }
            let eval = evaluate_each(scenario, encoder, cell.seed, |turn| {
                agent.act(&turn.row, &turn.legal, 0.0, true, turn.rng)
            });
            (eval, agent.diverged())
        }
        Algorithm::Tabular => unreachable!("the tabular learner runs through run_tabular"),
        Algorithm::Mcts => unreachable!("the search learner runs through run_search"),
    };
    Ok(CellResult {
        cell,
        episodes,
        training_win_rate: wins as f64 / episodes.max(1) as f64,
        diverged,
        eval,
        raw_policy: None,
        defence: None,
        curve: Vec::new(),
        curriculum_level: scenario.curriculum.then(|| curriculum.level()),
        frontier_plies: None,
        train_seconds: started.elapsed().as_secs_f64(),
    })
}

/// Trains the endgame study's tabular learner on `scenario` and evaluates it.
pub fn run_tabular<X: Encoder<burnmate_env::endgame::Match>>(
    scenario: &Scenario<'_, EndgameGame<&Tablebase>>,
    encoder: &X,
    endgame: Endgame,
    tablebase: &Tablebase,
    cell: Cell,
    episodes: u64,
) -> Result<CellResult> {
    let config = tabular_config(endgame, cell.seed);
    let arena = Arena::new(endgame, tablebase, &config)?;
    let mut q = LeastBestQ::new(endgame, config.alpha, config.gamma);
    let mut rng = ChaCha8Rng::seed_from_u64(cell.seed);
    let started = Instant::now();
    let (mut wins, mut curriculum) = (0u64, Curriculum::default());
    for _ in 0..episodes {
        let start = (scenario.train_start)(&mut rng, curriculum.level());
        let result = arena.play(&mut q, start.position(), config.epsilon, true, &mut rng)?;
        let won = result.end == MatchEnd::Checkmate;
        wins += u64::from(won);
        curriculum.record(won);
    }
    let train_seconds = started.elapsed().as_secs_f64();
    let eval = evaluate_each(scenario, encoder, cell.seed, |turn| {
        let position = turn.state.position();
        action_of(position.board(), &q.greedy(position, turn.rng))
    });
    Ok(CellResult {
        cell,
        episodes,
        training_win_rate: wins as f64 / episodes.max(1) as f64,
        diverged: false,
        eval,
        raw_policy: None,
        defence: None,
        curve: Vec::new(),
        curriculum_level: scenario.curriculum.then(|| curriculum.level()),
        frontier_plies: None,
        train_seconds,
    })
}
