//! Agents of the knight study (Solime): DQN, one-step actor-critic and a uniformly
//! random baseline. Each sees the 4-number state and picks one of 8 jumps without
//! being told which are legal.
//!
//! `burn::rl`'s replay buffer and learners are not used: the study's DQN updates
//! once per environment step from a 1000-transition buffer, which a plain ring of
//! host rows (one tensor upload per minibatch) expresses in a few lines.

mod actor_critic;
mod dqn;
mod replay;
mod schedule;

pub use actor_critic::{ActorCritic, ActorCriticConfig, CriticGradient};
pub use dqn::{Dqn, DqnConfig, TargetNetwork};
pub use replay::{ReplayBuffer, Transition};
pub use schedule::EpsilonSchedule;

use burnmate_env::knight::{ACTIONS, KnightState};
use rand::{Rng, RngExt};

/// A knight agent the training loop drives.
pub trait KnightAgent {
    /// Picks a jump. `epsilon` is the exploration rate where the agent explores
    /// epsilon-greedily (DQN); `greedy` asks for evaluation behaviour.
    fn act(
        &mut self,
        state: &KnightState,
        epsilon: f64,
        greedy: bool,
        rng: &mut dyn rand::Rng,
    ) -> usize;

    /// Learns from one transition.
    fn learn(&mut self, transition: Transition, rng: &mut dyn rand::Rng);
}

/// The uniformly random baseline.
pub struct RandomAgent;

impl KnightAgent for RandomAgent {
    fn act(&mut self, _: &KnightState, _: f64, _: bool, rng: &mut dyn Rng) -> usize {
        rng.random_range(0..ACTIONS)
    }

    fn learn(&mut self, _: Transition, _: &mut dyn Rng) {}
}

#[cfg(test)]
mod tests;
