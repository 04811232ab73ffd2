//! How a frozen policy plays a scenario's evaluation starts, beside the optimum:
//! every game side by side, one batch of turns a round.

use burnmate_agents::agent::legal_actions;
use burnmate_env::environment::{Encoder, Environment, Outcome as _};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::Scenario;

/// Seed offset of the evaluation games' own randomness (defender ties, random kings).
const EVAL_SEED_OFFSET: u64 = 0xe7a1;

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

/// One running evaluation game's turn, as a policy sees it.
pub struct Turn<'t, S> {
    /// The position.
    pub state: &'t S,
    /// The position encoded for the learner.
    pub row: Vec<f32>,
    /// The legal actions.
    pub legal: Vec<usize>,
    /// The game's own randomness (a policy's ties), seeded by the game's index.
    pub rng: &'t mut ChaCha8Rng,
}

/// An evaluation game in progress.
struct Running<S> {
    state: S,
    rng: ChaCha8Rng,
    moves: u32,
    won: Option<bool>,
}

/// Lets a policy play every evaluation start once, all games side by side: each
/// round `choose` gets the turns of every unfinished game at once (one batch for a
/// network) and returns an action for each. Game `i` draws its randomness (the
/// defender's ties, the policy's) from its own stream of the seed, so its result
/// does not depend on which games share its rounds.
pub fn evaluate<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    encoder: &X,
    seed: u64,
    choose: impl FnMut(&mut [Turn<'_, E::State>]) -> Vec<usize>,
) -> Evaluation {
    evaluate_first(scenario, scenario.eval.len(), encoder, seed, choose)
}

/// [`evaluate`] on the first `starts` evaluation starts alone (each game as it is
/// in the whole evaluation).
pub fn evaluate_first<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    starts: usize,
    encoder: &X,
    seed: u64,
    mut choose: impl FnMut(&mut [Turn<'_, E::State>]) -> Vec<usize>,
) -> Evaluation {
    let env = &scenario.env;
    let starts = &scenario.eval[..starts.min(scenario.eval.len())];
    let mut games: Vec<Running<E::State>> = (0..starts.len())
        .map(|i| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(EVAL_SEED_OFFSET));
            rng.set_stream(i as u64);
            Running {
                state: starts[i].0.clone(),
                rng,
                moves: 0,
                won: None,
            }
        })
        .collect();
    let mut mask = vec![false; env.actions()];
    while games.iter().any(|g| g.won.is_none()) {
        let mut turns: Vec<Turn<'_, E::State>> = games
            .iter_mut()
            .filter(|g| g.won.is_none())
            .map(|g| {
                let mut row = vec![0.0; encoder.width()];
                encoder.encode(&g.state, &mut row);
                env.legal_mask(&g.state, &mut mask);
                Turn {
                    state: &g.state,
                    row,
                    legal: legal_actions(&mask),
                    rng: &mut g.rng,
                }
            })
            .collect();
        let actions = choose(&mut turns);
        assert_eq!(actions.len(), turns.len(), "one action per running game");
        drop(turns);
        for (game, action) in games.iter_mut().filter(|g| g.won.is_none()).zip(actions) {
            let step = env.step(&game.state, action, &mut game.rng);
            game.moves += 1;
            if step.outcome.is_terminal() {
                game.won = Some((scenario.is_win)(step.outcome));
            } else if game.moves == scenario.max_steps {
                game.won = Some(false);
            }
            game.state = step.state;
        }
    }
    let (mut won, mut moves, mut optimal_of_won) = (0usize, 0.0, 0.0);
    for (game, (_, optimal)) in games.iter().zip(starts) {
        if game.won == Some(true) {
            won += 1;
            moves += f64::from(game.moves);
            optimal_of_won += optimal.moves;
        }
    }
    let games = starts.len();
    let winnable: Vec<f64> = starts
        .iter()
        .filter(|(_, o)| o.win > 0.0)
        .map(|(_, o)| o.moves)
        .collect();
    Evaluation {
        games,
        win_rate: won as f64 / games as f64,
        mean_moves: (won > 0).then(|| moves / won as f64),
        optimal_moves_of_won: (won > 0).then(|| optimal_of_won / won as f64),
        optimal_win_rate: starts.iter().map(|(_, o)| o.win).sum::<f64>() / games as f64,
        optimal_moves: winnable.iter().sum::<f64>() / winnable.len().max(1) as f64,
    }
}

/// [`evaluate`] with a policy that takes one turn at a time.
pub fn evaluate_each<E: Environment, X: Encoder<E::State>>(
    scenario: &Scenario<'_, E>,
    encoder: &X,
    seed: u64,
    mut choose: impl FnMut(&mut Turn<'_, E::State>) -> usize,
) -> Evaluation {
    evaluate(scenario, encoder, seed, |turns| {
        turns.iter_mut().map(&mut choose).collect()
    })
}
