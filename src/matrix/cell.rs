//! One cell of the matrix: train an algorithm on a game with one seed, then let the
//! frozen greedy policy play the game's evaluation starts.

use std::time::Instant;

use anyhow::{Result, anyhow};
use burn::tensor::Device;
use burnmate_agents::actor_critic::ActorCritic;
use burnmate_agents::agent::{Agent, legal_actions};
use burnmate_agents::dqn::Dqn;
use burnmate_agents::endgame::LeastBestQ;
use burnmate_agents::episode::{Mode, Play, play_episode};
use burnmate_agents::init::uniform_layers;
use burnmate_agents::luo::LuoAgent;
use burnmate_env::endgame::{Endgame, MatchEnd};
use burnmate_env::endgame_game::{EndgameGame, action_of};
use burnmate_env::environment::{Encoder, Environment, Outcome as _};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::Position as _;

use crate::endgame::game::Arena;
use crate::matrix::algorithm::{
    Algorithm, HIDDEN, actor_critic_config, dqn_config, exploration, tabular_config, td_config,
};
use crate::matrix::curriculum::Curriculum;
use crate::matrix::game::{Game, Scenario};

/// Seed offset of the evaluation games' own randomness (defender ties, random kings).
const EVAL_SEED_OFFSET: u64 = 0xe7a1;

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

/// How the frozen greedy policy played the evaluation starts, beside the optimum.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Games played (one per evaluation start).
    pub games: usize,
    /// Share won.
    pub win_rate: f64,
    /// Mean moves of the won games (NaN if none; stored as null).
    pub mean_moves: Option<f64>,
    /// Mean moves the optimum needs from the starts of those won games.
    pub optimal_moves_of_won: Option<f64>,
    /// The optimum's win rate over all the starts.
    pub optimal_win_rate: f64,
    /// The optimum's mean moves over the starts it wins.
    pub optimal_moves: f64,
}

impl Evaluation {
    /// Extra moves over the optimum in the won games.
    pub fn excess_moves(&self) -> Option<f64> {
        Some(self.mean_moves? - self.optimal_moves_of_won?)
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
    /// The search learner's evaluation (with its search) at snapshots taken during
    /// training and at the end, against training time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curve: Vec<CurvePoint>,
    /// The search learner's curriculum level at the end (walks of up to
    /// `2 level + 1` un-moves from mate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curriculum_level: Option<u32>,
    /// Training wall time in seconds (the only field that differs between reruns).
    pub train_seconds: f64,
}

/// The evaluation of a network snapshot taken during training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Training games played at the snapshot.
    pub games: u64,
    /// Training seconds at the snapshot.
    pub train_seconds: f64,
    /// The snapshot's evaluation.
    pub eval: Evaluation,
}

/// A policy: the action for a state, its encoded row and its legal actions.
type Chooser<'c, S> = dyn FnMut(&S, Vec<f32>, &[usize], &mut ChaCha8Rng) -> usize + 'c;

/// Plays one greedy game of `scenario` from `start` with `choose` picking among the
/// legal actions; returns (won, learner moves).
fn greedy_game<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    encoder: &X,
    start: E::State,
    rng: &mut ChaCha8Rng,
    choose: &mut Chooser<'_, E::State>,
) -> (bool, u32) {
    let env = &scenario.env;
    let mut state = start;
    let mut mask = vec![false; env.actions()];
    for moves in 1..=scenario.max_steps {
        let mut row = vec![0.0; encoder.width()];
        encoder.encode(&state, &mut row);
        env.legal_mask(&state, &mut mask);
        let action = choose(&state, row, &legal_actions(&mask), rng);
        let step = env.step(&state, action, rng);
        if step.outcome.is_terminal() {
            return ((scenario.is_win)(step.outcome), moves);
        }
        state = step.state;
    }
    (false, scenario.max_steps)
}

/// Lets `choose` play every evaluation start once.
pub fn evaluate<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    encoder: &X,
    seed: u64,
    mut choose: impl FnMut(&E::State, Vec<f32>, &[usize], &mut ChaCha8Rng) -> usize,
) -> Evaluation {
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(EVAL_SEED_OFFSET));
    let (mut won, mut moves, mut optimal_of_won) = (0usize, 0.0, 0.0);
    for (start, optimal) in &scenario.eval {
        let (win, n) = greedy_game(scenario, encoder, start.clone(), &mut rng, &mut choose);
        if win {
            won += 1;
            moves += f64::from(n);
            optimal_of_won += optimal.moves;
        }
    }
    let games = scenario.eval.len();
    let winnable: Vec<f64> = scenario
        .eval
        .iter()
        .filter(|(_, o)| o.win > 0.0)
        .map(|(_, o)| o.moves)
        .collect();
    Evaluation {
        games,
        win_rate: won as f64 / games as f64,
        mean_moves: (won > 0).then(|| moves / won as f64),
        optimal_moves_of_won: (won > 0).then(|| optimal_of_won / won as f64),
        optimal_win_rate: scenario.eval.iter().map(|(_, o)| o.win).sum::<f64>() / games as f64,
        optimal_moves: winnable.iter().sum::<f64>() / winnable.len().max(1) as f64,
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
            let eval = evaluate(scenario, encoder, cell.seed, |_, row, legal, _| {
                agent.greedy_in(row, legal)
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
            let eval = evaluate(scenario, encoder, cell.seed, |_, row, legal, rng| {
                agent.act(&row, legal, 0.0, true, rng)
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
        curve: Vec::new(),
        curriculum_level: scenario.curriculum.then(|| curriculum.level()),
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
    let eval = evaluate(scenario, encoder, cell.seed, |state, _, _, rng| {
        let position = state.position();
        action_of(position.board(), &q.greedy(position, rng))
    });
    Ok(CellResult {
        cell,
        episodes,
        training_win_rate: wins as f64 / episodes.max(1) as f64,
        diverged: false,
        eval,
        raw_policy: None,
        curve: Vec::new(),
        curriculum_level: scenario.curriculum.then(|| curriculum.level()),
        train_seconds,
    })
}
