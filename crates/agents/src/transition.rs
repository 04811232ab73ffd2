//! One environment step as the neural learners store it: encoded rows, not states.

use burnmate_env::environment::{Encoder, Environment, Outcome, Step};

/// One step of an environment, both states encoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// Encoded state the action was taken in.
    pub state: Vec<f32>,
    /// Action index.
    pub action: usize,
    /// Reward received.
    pub reward: f32,
    /// Encoded state after the step.
    pub next_state: Vec<f32>,
    /// Whether the episode ended.
    pub done: bool,
}

impl Transition {
    /// Action `action` from `state`, which gave `step`, with both states encoded by
    /// `encoder`.
    pub fn from_step<E: Environment>(
        encoder: &impl Encoder<E::State>,
        state: &E::State,
        action: usize,
        step: &Step<E::State, E::Outcome>,
    ) -> Transition {
        let row = |state: &E::State| {
            let mut row = vec![0.0; encoder.width()];
            encoder.encode(state, &mut row);
            row
        };
        Transition {
            state: row(state),
            action,
            reward: step.reward,
            next_state: row(&step.state),
            done: step.outcome.is_terminal(),
        }
    }
}
