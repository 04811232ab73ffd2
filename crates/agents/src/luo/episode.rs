//! The training episodes, one function per (algorithm, rule) family, following the
//! study's listings step by step, over any [`Environment`] (the study's is
//! [`Queen4x4Game`]).

use burnmate_encode::queen4x4::Queen4x4Encoding;
use burnmate_env::environment::{Encoder, Environment, Outcome as _};
use burnmate_env::queen4x4::{Position, Queen4x4Game, Queen4x4Outcome};
use rand::Rng;

use super::agent::{Forward, LuoAgent};
use super::config::{TdAlgorithm, UpdateRule};
use super::update::StepSignal;
use crate::agent::legal_actions;
use crate::episode::Episode;
use crate::exploration::{epsilon_greedy, greedy};

/// The game an episode runs on: the environment and its encoder.
struct Game<'a, E, X> {
    env: &'a E,
    encoder: &'a X,
}

impl<E: Environment, X: Encoder<E::State>> Game<'_, E, X> {
    /// The encoded rows of `states`, one after another.
    fn rows(&self, states: &[&E::State]) -> Vec<f32> {
        let width = self.encoder.width();
        let mut rows = vec![0.0; states.len() * width];
        for (row, state) in rows.chunks_exact_mut(width).zip(states) {
            self.encoder.encode(state, row);
        }
        rows
    }

    /// The legal actions of `state`.
    fn legal(&self, state: &E::State) -> Vec<usize> {
        let mut mask = vec![false; self.env.actions()];
        self.env.legal_mask(state, &mut mask);
        legal_actions(&mask)
    }
}

impl LuoAgent {
    /// Plays one queen4x4 episode from `start` (the study's game); see
    /// [`LuoAgent::train_episode_in`].
    pub fn train_episode(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> Episode<Queen4x4Outcome> {
        self.train_episode_in(
            &Queen4x4Game,
            &Queen4x4Encoding,
            start,
            epsilon,
            max_moves,
            rng,
        )
    }

    /// Plays one episode of `env` from `start` with epsilon-greedy exploration,
    /// learning after every move. `max_moves` caps the episode (`u32::MAX` for none,
    /// as in the study); a capped episode ends without a terminal update. The logged
    /// reward is the sum of the game's rewards, or minus the number of moves for the
    /// impatient agent.
    pub fn train_episode_in<E: Environment, X: Encoder<E::State>>(
        &mut self,
        env: &E,
        encoder: &X,
        start: E::State,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> Episode<E::Outcome> {
        let game = Game { env, encoder };
        let (outcome, moves, total) = match (self.config.algorithm, self.config.update) {
            (TdAlgorithm::QLearning, UpdateRule::Reference) => {
                self.q_learning_reference(&game, start, epsilon, max_moves, rng)
            }
            (TdAlgorithm::QLearning, UpdateRule::SemiGradient) => {
                self.q_learning_semi_gradient(&game, start, epsilon, max_moves, rng)
            }
            (_, UpdateRule::Reference) => {
                self.sarsa_reference(&game, start, epsilon, max_moves, rng)
            }
            (_, UpdateRule::SemiGradient) => {
                self.sarsa_semi_gradient(&game, start, epsilon, max_moves, rng)
            }
        };
        let reward = match self.config.algorithm {
            TdAlgorithm::Impatient => -f64::from(moves),
            _ => total,
        };
        Episode {
            reward,
            steps: moves,
            outcome,
        }
    }

    /// The learning reward of a move: the game's, or for the impatient agent -1 on
    /// every move but the last (target 0 at the end).
    fn reward(&self, game_reward: f32, terminal: bool) -> f32 {
        match (self.config.algorithm, terminal) {
            (TdAlgorithm::Impatient, false) => -1.0,
            (TdAlgorithm::Impatient, true) => 0.0,
            _ => game_reward,
        }
    }

    /// The study's update signal: the output error is `delta` times the output
    /// activation's derivative (each notebook's `calc_gradient`: ReLU's gate, the
    /// sigmoid's `y (1 - y)`, 1 for linear); the hidden error is `delta` times
    /// `W2[:, a] * relu'(h)`, without that derivative.
    pub(crate) fn reference_signal(&self, delta: f32, output: f32) -> StepSignal {
        let output_error = delta * self.config.activation.derivative_from_output(output);
        StepSignal {
            output_error,
            hidden_scale: delta,
        }
    }

    /// The semi-gradient signal: `delta * f'(z)` at the output, carried back.
    fn semi_gradient_signal(&self, delta: f32, output: f32) -> StepSignal {
        let output_error = delta * self.config.activation.derivative_from_output(output);
        StepSignal {
            output_error,
            hidden_scale: output_error,
        }
    }

    /// Updates row `row` of `current` (a fresh forward pass at the state being
    /// updated) towards `target` with the semi-gradient rule.
    pub(crate) fn semi_gradient_update(
        &mut self,
        current: &Forward,
        row: usize,
        action: usize,
        target: f32,
    ) {
        let q = current.q_row(row)[action];
        let signal = self.semi_gradient_signal(target - q, q);
        let (x, h) = current.row_tensors(row);
        self.apply(x, h, action, signal);
    }

    /// Listing 2 of the study (SARSA; also the impatient agent).
    fn sarsa_reference<E: Environment, X: Encoder<E::State>>(
        &mut self,
        game: &Game<'_, E, X>,
        start: E::State,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (E::Outcome, u32, f64) {
        let mut state = start;
        let mut last = self.forward(game.rows(&[&state]));
        let mut action = epsilon_greedy(last.q_row(0), &game.legal(&state), epsilon, rng);
        let mut q = last.q_row(0)[action];
        let mut x = last.x.clone();
        let (mut moves, mut total) = (1, 0.0);
        loop {
            let step = game.env.step(&state, action, rng);
            total += f64::from(step.reward);
            let reward = self.reward(step.reward, step.outcome.is_terminal());
            if step.outcome.is_terminal() {
                let delta = reward - q;
                let signal = self.reference_signal(delta, last.q_row(0)[action]);
                self.apply(x, last.parts.hidden.clone(), action, signal);
                return (step.outcome, moves, total);
            }
            if moves == max_moves {
                return (step.outcome, moves, total);
            }
            let next = step.state;
            last = self.forward(game.rows(&[&next]));
            let next_action = epsilon_greedy(last.q_row(0), &game.legal(&next), epsilon, rng);
            let q_next = last.q_row(0)[next_action];
            // ALGO: delta = r + gamma Q(S', A') - Q(S, A), Q(S, A) as saved when A was chosen.
            let delta = reward + self.config.gamma * q_next - q;
            let signal = self.reference_signal(delta, last.q_row(0)[action]);
            self.apply(x, last.parts.hidden.clone(), action, signal);
            (state, action, q, x) = (next, next_action, q_next, last.x.clone());
            moves += 1;
        }
    }

    /// Listing 3 of the study (Q-learning).
    fn q_learning_reference<E: Environment, X: Encoder<E::State>>(
        &mut self,
        game: &Game<'_, E, X>,
        start: E::State,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (E::Outcome, u32, f64) {
        let mut state = start;
        let (mut moves, mut total) = (1, 0.0);
        loop {
            let current = self.forward(game.rows(&[&state]));
            let action = epsilon_greedy(current.q_row(0), &game.legal(&state), epsilon, rng);
            let q = current.q_row(0)[action];
            let step = game.env.step(&state, action, rng);
            total += f64::from(step.reward);
            let reward = self.reward(step.reward, step.outcome.is_terminal());
            if step.outcome.is_terminal() {
                let delta = reward - q;
                let signal = self.reference_signal(delta, q);
                self.apply(current.x, current.parts.hidden, action, signal);
                return (step.outcome, moves, total);
            }
            if moves == max_moves {
                return (step.outcome, moves, total);
            }
            let next = step.state;
            let last = self.forward(game.rows(&[&next]));
            // ALGO: delta = r + gamma max over all outputs of Q(S', .) - Q(S, A).
            let q_max = last
                .q_row(0)
                .iter()
                .copied()
                .fold(f32::NEG_INFINITY, f32::max);
            let delta = reward + self.config.gamma * q_max - q;
            let signal = self.reference_signal(delta, last.q_row(0)[action]);
            self.apply(current.x, last.parts.hidden, action, signal);
            state = next;
            moves += 1;
        }
    }

    /// Semi-gradient SARSA: the next action is chosen and the current state is
    /// re-evaluated in one batched forward pass `[next, current]`.
    fn sarsa_semi_gradient<E: Environment, X: Encoder<E::State>>(
        &mut self,
        game: &Game<'_, E, X>,
        start: E::State,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (E::Outcome, u32, f64) {
        let mut state = start;
        let first = self.forward(game.rows(&[&state]));
        let mut action = epsilon_greedy(first.q_row(0), &game.legal(&state), epsilon, rng);
        let (mut moves, mut total) = (1, 0.0);
        loop {
            let step = game.env.step(&state, action, rng);
            total += f64::from(step.reward);
            let reward = self.reward(step.reward, step.outcome.is_terminal());
            if step.outcome.is_terminal() {
                let current = self.forward(game.rows(&[&state]));
                self.semi_gradient_update(&current, 0, action, reward);
                return (step.outcome, moves, total);
            }
            if moves == max_moves {
                return (step.outcome, moves, total);
            }
            let next = step.state;
            let both = self.forward(game.rows(&[&next, &state]));
            let next_action = epsilon_greedy(both.q_row(0), &game.legal(&next), epsilon, rng);
            // ALGO: target = r + gamma Q(S', A'); one step on Q(S, A) towards it.
            let target = reward + self.config.gamma * both.q_row(0)[next_action];
            self.semi_gradient_update(&both, 1, action, target);
            (state, action) = (next, next_action);
            moves += 1;
        }
    }

    /// Semi-gradient Q-learning, bootstrapping from the best legal next action.
    fn q_learning_semi_gradient<E: Environment, X: Encoder<E::State>>(
        &mut self,
        game: &Game<'_, E, X>,
        start: E::State,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (E::Outcome, u32, f64) {
        let mut state = start;
        let (mut moves, mut total) = (1, 0.0);
        loop {
            let current = self.forward(game.rows(&[&state]));
            let action = epsilon_greedy(current.q_row(0), &game.legal(&state), epsilon, rng);
            let step = game.env.step(&state, action, rng);
            total += f64::from(step.reward);
            let reward = self.reward(step.reward, step.outcome.is_terminal());
            if step.outcome.is_terminal() {
                self.semi_gradient_update(&current, 0, action, reward);
                return (step.outcome, moves, total);
            }
            if moves == max_moves {
                return (step.outcome, moves, total);
            }
            let next = step.state;
            let after = self.forward(game.rows(&[&next]));
            // ALGO: target = r + gamma max over legal a' of Q(S', a').
            let best = greedy(after.q_row(0), &game.legal(&next));
            let target = reward + self.config.gamma * after.q_row(0)[best];
            self.semi_gradient_update(&current, 0, action, target);
            state = next;
            moves += 1;
        }
    }
}
