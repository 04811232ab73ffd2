//! The training episodes, one function per (algorithm, rule) family, following the
//! study's listings step by step.

use burnmate_env::environment::Outcome as _;
use burnmate_env::queen4x4::{Action, Outcome, Position};
use rand::Rng;

use super::agent::{Forward, LuoAgent};
use super::config::{Algorithm, UpdateRule};
use super::update::StepSignal;
use crate::exploration::{epsilon_greedy, greedy};

/// What one training episode did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Episode {
    /// The study's logged reward: 1 for mate and 0 otherwise, or minus the number of
    /// white moves for the impatient agent.
    pub reward: f64,
    /// White moves played.
    pub moves: u32,
    /// How the game ended; `Ongoing` if it hit the move cap.
    pub outcome: Outcome,
}

impl LuoAgent {
    /// Plays one episode from `start` with epsilon-greedy exploration, learning after
    /// every white move. `max_moves` caps the episode (`u32::MAX` for none, as in the
    /// study); a capped episode ends without a terminal update.
    pub fn train_episode(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> Episode {
        let (outcome, moves) = match (self.config.algorithm, self.config.update) {
            (Algorithm::QLearning, UpdateRule::Reference) => {
                self.q_learning_reference(start, epsilon, max_moves, rng)
            }
            (Algorithm::QLearning, UpdateRule::SemiGradient) => {
                self.q_learning_semi_gradient(start, epsilon, max_moves, rng)
            }
            (_, UpdateRule::Reference) => self.sarsa_reference(start, epsilon, max_moves, rng),
            (_, UpdateRule::SemiGradient) => {
                self.sarsa_semi_gradient(start, epsilon, max_moves, rng)
            }
        };
        let reward = match self.config.algorithm {
            Algorithm::Impatient => -f64::from(moves),
            _ => f64::from(u8::from(outcome == Outcome::Checkmate)),
        };
        Episode {
            reward,
            moves,
            outcome,
        }
    }

    /// Reward of a move: at the end the terminal target (1 for mate, else 0), before
    /// it 0, or -1 for the impatient agent.
    fn reward(&self, outcome: Outcome) -> f32 {
        match (self.config.algorithm, outcome) {
            (Algorithm::Impatient, Outcome::Ongoing) => -1.0,
            (Algorithm::Impatient, _) => 0.0,
            (_, Outcome::Checkmate) => 1.0,
            _ => 0.0,
        }
    }

    fn choose(q: &[f32], position: &Position, epsilon: f64, rng: &mut impl Rng) -> usize {
        epsilon_greedy(q, &position.legal_action_list(), epsilon, rng)
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
    fn sarsa_reference(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (Outcome, u32) {
        let mut state = start;
        let mut last = self.forward(&[&state]);
        let mut action = Self::choose(last.q_row(0), &state, epsilon, rng);
        let mut q = last.q_row(0)[action];
        let mut x = last.x.clone();
        let mut moves = 1;
        loop {
            let (next, outcome) = state.step(Action::from_index(action), rng);
            if outcome.is_terminal() {
                let delta = self.reward(outcome) - q;
                let signal = self.reference_signal(delta, last.q_row(0)[action]);
                self.apply(x, last.parts.hidden.clone(), action, signal);
                return (outcome, moves);
            }
            if moves == max_moves {
                return (Outcome::Ongoing, moves);
            }
            last = self.forward(&[&next]);
            let next_action = Self::choose(last.q_row(0), &next, epsilon, rng);
            let q_next = last.q_row(0)[next_action];
            let delta = self.reward(outcome) + self.config.gamma * q_next - q;
            let signal = self.reference_signal(delta, last.q_row(0)[action]);
            self.apply(x, last.parts.hidden.clone(), action, signal);
            (state, action, q, x) = (next, next_action, q_next, last.x.clone());
            moves += 1;
        }
    }

    /// Listing 3 of the study (Q-learning).
    fn q_learning_reference(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (Outcome, u32) {
        let mut state = start;
        let mut moves = 1;
        loop {
            let current = self.forward(&[&state]);
            let action = Self::choose(current.q_row(0), &state, epsilon, rng);
            let q = current.q_row(0)[action];
            let (next, outcome) = state.step(Action::from_index(action), rng);
            if outcome.is_terminal() {
                let delta = self.reward(outcome) - q;
                let signal = self.reference_signal(delta, q);
                self.apply(current.x, current.parts.hidden, action, signal);
                return (outcome, moves);
            }
            if moves == max_moves {
                return (Outcome::Ongoing, moves);
            }
            let last = self.forward(&[&next]);
            let q_max = last
                .q_row(0)
                .iter()
                .copied()
                .fold(f32::NEG_INFINITY, f32::max);
            let delta = self.reward(outcome) + self.config.gamma * q_max - q;
            let signal = self.reference_signal(delta, last.q_row(0)[action]);
            self.apply(current.x, last.parts.hidden, action, signal);
            state = next;
            moves += 1;
        }
    }

    /// Semi-gradient SARSA: the next action is chosen and the current state is
    /// re-evaluated in one batched forward pass `[next, current]`.
    fn sarsa_semi_gradient(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (Outcome, u32) {
        let mut state = start;
        let first = self.forward(&[&state]);
        let mut action = Self::choose(first.q_row(0), &state, epsilon, rng);
        let mut moves = 1;
        loop {
            let (next, outcome) = state.step(Action::from_index(action), rng);
            if outcome.is_terminal() {
                let current = self.forward(&[&state]);
                self.semi_gradient_update(&current, 0, action, self.reward(outcome));
                return (outcome, moves);
            }
            if moves == max_moves {
                return (Outcome::Ongoing, moves);
            }
            let both = self.forward(&[&next, &state]);
            let next_action = Self::choose(both.q_row(0), &next, epsilon, rng);
            let target = self.reward(outcome) + self.config.gamma * both.q_row(0)[next_action];
            self.semi_gradient_update(&both, 1, action, target);
            (state, action) = (next, next_action);
            moves += 1;
        }
    }

    /// Semi-gradient Q-learning, bootstrapping from the best legal next action.
    fn q_learning_semi_gradient(
        &mut self,
        start: Position,
        epsilon: f64,
        max_moves: u32,
        rng: &mut impl Rng,
    ) -> (Outcome, u32) {
        let mut state = start;
        let mut moves = 1;
        loop {
            let current = self.forward(&[&state]);
            let action = Self::choose(current.q_row(0), &state, epsilon, rng);
            let (next, outcome) = state.step(Action::from_index(action), rng);
            if outcome.is_terminal() {
                self.semi_gradient_update(&current, 0, action, self.reward(outcome));
                return (outcome, moves);
            }
            if moves == max_moves {
                return (Outcome::Ongoing, moves);
            }
            let after = self.forward(&[&next]);
            let best = greedy(after.q_row(0), &next.legal_action_list());
            let target = self.reward(outcome) + self.config.gamma * after.q_row(0)[best];
            self.semi_gradient_update(&current, 0, action, target);
            state = next;
            moves += 1;
        }
    }
}
