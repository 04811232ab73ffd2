//! The seam between a game and a learning algorithm.
//!
//! A game is an [`Environment`]: a fixed set of action indices, `reset` and `step`
//! taking the caller's random number generator, the legal actions of a state and an
//! [`Outcome`]. An [`Encoder`] writes a state into one row of floats, so a batch of
//! states is one buffer and one tensor upload. Algorithms see only these two traits.
//!
//! `burn::rl`'s `Environment` is not used: it has no legal-action mask and samples
//! with the device's RNG, which breaks reproducibility across backends.

use rand::Rng;

/// How an episode stands after a step.
pub trait Outcome: Copy + PartialEq + std::fmt::Debug {
    /// Whether the episode is over.
    fn is_terminal(self) -> bool;

    /// Short lowercase name, as written in metrics files.
    fn name(self) -> &'static str;
}

/// What one action did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step<S, O> {
    /// The state the learner acts in next (or the final state).
    pub state: S,
    /// The action's reward.
    pub reward: f32,
    /// How the episode stands.
    pub outcome: O,
}

/// A single-agent game as a learner sees it; an opponent, if any, moves inside `step`.
pub trait Environment {
    /// A state the learner acts in.
    type State: Clone;
    /// How an episode stands.
    type Outcome: Outcome;

    /// Number of action indices; actions are `0..actions()`.
    fn actions(&self) -> usize;

    /// A start state.
    fn reset(&self, rng: &mut (impl Rng + ?Sized)) -> Self::State;

    /// Plays `action` in `state` (and the opponent's reply, if any).
    fn step(
        &self,
        state: &Self::State,
        action: usize,
        rng: &mut (impl Rng + ?Sized),
    ) -> Step<Self::State, Self::Outcome>;

    /// Writes into `mask` (`actions()` long) which actions `step` accepts in `state`.
    fn legal_mask(&self, state: &Self::State, mask: &mut [bool]);
}

/// Writes a state into one row of floats.
pub trait Encoder<S> {
    /// Floats per row.
    fn width(&self) -> usize;

    /// Writes `state` into `row` (`width()` long).
    fn encode(&self, state: &S, row: &mut [f32]);
}
