//! What a training loop drives: an agent that picks actions from encoded states and
//! learns from transitions, whatever the game.

use rand::{Rng, RngExt};

use crate::transition::Transition;

/// A learner over encoded states and a fixed action space.
pub trait Agent {
    /// Picks an action among `legal` for the encoded state `row`. `epsilon` is the
    /// exploration rate where the agent explores epsilon-greedily (DQN); `greedy`
    /// asks for evaluation behaviour.
    fn act(
        &mut self,
        row: &[f32],
        legal: &[usize],
        epsilon: f64,
        greedy: bool,
        rng: &mut dyn Rng,
    ) -> usize;

    /// Learns from one transition.
    fn learn(&mut self, transition: Transition, rng: &mut dyn Rng);

    /// Whether a network output has become non-finite (NaN or infinite): training
    /// diverged, usually from too high a learning rate.
    fn diverged(&self) -> bool;
}

/// Uniformly random legal actions (a baseline; learns nothing).
pub struct RandomAgent;

impl Agent for RandomAgent {
    fn act(&mut self, _: &[f32], legal: &[usize], _: f64, _: bool, rng: &mut dyn Rng) -> usize {
        legal[rng.random_range(0..legal.len())]
    }

    fn learn(&mut self, _: Transition, _: &mut dyn Rng) {}

    fn diverged(&self) -> bool {
        false
    }
}

/// The legal action indices of a mask.
pub fn legal_actions(mask: &[bool]) -> Vec<usize> {
    (0..mask.len()).filter(|&a| mask[a]).collect()
}
