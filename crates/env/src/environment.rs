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
///
/// ```
/// use burnmate_env::environment::{Environment, Outcome, Step};
/// use rand::Rng;
///
/// /// Walk right along a line of 5 cells; reaching the end pays 1.
/// struct Line;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// enum End { Running, Home }
///
/// impl Outcome for End {
///     fn is_terminal(self) -> bool { self == End::Home }
///     fn name(self) -> &'static str { if self == End::Home { "home" } else { "running" } }
/// }
///
/// impl Environment for Line {
///     type State = u8;
///     type Outcome = End;
///     fn actions(&self) -> usize { 2 } // 0 left, 1 right
///     fn reset(&self, _: &mut (impl Rng + ?Sized)) -> u8 { 0 }
///     fn step(&self, cell: &u8, action: usize, _: &mut (impl Rng + ?Sized)) -> Step<u8, End> {
///         let cell = if action == 1 { cell + 1 } else { cell.saturating_sub(1) };
///         let home = cell == 4;
///         Step { state: cell, reward: f32::from(u8::from(home)), outcome: if home { End::Home } else { End::Running } }
///     }
///     fn legal_mask(&self, _: &u8, mask: &mut [bool]) { mask.fill(true); }
/// }
///
/// use rand::SeedableRng;
/// let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
/// let mut cell = Line.reset(&mut rng);
/// let mut steps = 0;
/// loop {
///     let step = Line.step(&cell, 1, &mut rng);
///     steps += 1;
///     if step.outcome.is_terminal() { assert_eq!(step.reward, 1.0); break; }
///     cell = step.state;
/// }
/// assert_eq!(steps, 4);
/// ```
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
