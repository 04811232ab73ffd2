//! One environment step as the neural learners store it: encoded rows, not states.

use burnmate_env::environment::{Encoder, Environment, Outcome, Step};

/// One step of an environment, both states encoded.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// Legal actions at `state` as a mask; empty when every action is legal.
    pub legal: Vec<bool>,
    /// Legal actions at `next_state` as a mask; empty when every action is legal.
    pub next_legal: Vec<bool>,
}

impl Transition {
    /// Action `action` from `state`, which gave `step`, with both states encoded by
    /// `encoder` and their legal actions from `env`.
    pub fn from_step<E: Environment>(
        env: &E,
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
            legal: legal_mask(env, state),
            // A final state has no moves to bootstrap from (and may not be the
            // learner's to move).
            next_legal: if step.outcome.is_terminal() {
                Vec::new()
            } else {
                legal_mask(env, &step.state)
            },
        }
    }
}

/// The legal actions of `state` as a mask, or an empty one when all are legal.
fn legal_mask<E: Environment>(env: &E, state: &E::State) -> Vec<bool> {
    let mut mask = vec![false; env.actions()];
    env.legal_mask(state, &mut mask);
    if mask.iter().all(|&legal| legal) {
        Vec::new()
    } else {
        mask
    }
}

/// Whether `action` is legal under `mask` (empty: every action is).
pub fn is_legal(mask: &[bool], action: usize) -> bool {
    mask.is_empty() || mask[action]
}
