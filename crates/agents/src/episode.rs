//! One episode of any [`Environment`] with any [`Agent`]: the loop every neural
//! study shares.

use burnmate_env::environment::{Encoder, Environment, Outcome, Step};
use rand::Rng;

use crate::agent::{Agent, legal_actions};
use crate::transition::Transition;

/// Whether the agent learns while it plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    /// Explore with the given rate and learn from every step.
    Train {
        /// Exploration rate for this episode.
        epsilon: f64,
    },
    /// Play as evaluated (greedy where the agent is), learn nothing.
    Evaluate,
}

/// How one episode is played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    /// Learning or evaluation.
    pub mode: Mode,
    /// Most actions per episode (the game may end it earlier).
    pub max_steps: u32,
}

/// How an episode went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Episode<O> {
    /// Sum of rewards.
    pub reward: f64,
    /// Actions taken.
    pub steps: u32,
    /// The last step's outcome (not terminal when `max_steps` cut the episode).
    pub outcome: O,
}

/// Plays one episode from `start` as `play` says; `on_step` sees every (state,
/// action, step) before the agent learns from it.
pub fn play_episode<E: Environment>(
    env: &E,
    encoder: &impl Encoder<E::State>,
    agent: &mut dyn Agent,
    start: E::State,
    play: Play,
    rng: &mut dyn Rng,
    mut on_step: impl FnMut(&E::State, usize, &Step<E::State, E::Outcome>),
) -> Episode<E::Outcome> {
    let mut state = start;
    let mut row = vec![0.0; encoder.width()];
    let mut mask = vec![false; env.actions()];
    let mut reward = 0.0;
    let mut steps = 0;
    loop {
        encoder.encode(&state, &mut row);
        env.legal_mask(&state, &mut mask);
        let legal = legal_actions(&mask);
        let action = match play.mode {
            Mode::Train { epsilon } => agent.act(&row, &legal, epsilon, false, rng),
            Mode::Evaluate => agent.act(&row, &legal, 0.0, true, rng),
        };
        let step = env.step(&state, action, rng);
        reward += f64::from(step.reward);
        steps += 1;
        on_step(&state, action, &step);
        if let Mode::Train { .. } = play.mode {
            agent.learn(
                Transition::from_step(env, encoder, &state, action, &step),
                rng,
            );
        }
        if step.outcome.is_terminal() || steps >= play.max_steps {
            return Episode {
                reward,
                steps,
                outcome: step.outcome,
            };
        }
        state = step.state;
    }
}
