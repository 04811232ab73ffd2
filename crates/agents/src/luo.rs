//! Luo's TD agents for the queen4x4 study: SARSA, Q-learning and the "impatient"
//! SARSA, each with one of two update rules, on any `Environment` with an `Encoder`
//! (`LuoAgent::train_episode_in`; `train_episode` plays the study's game).
//!
//! Both rules are one plain SGD step (learning rate `eta`) on the chosen action's
//! output only, written as tensor operations on a non-autodiff device. Autodiff and
//! `burn::rl` do not fit here: the study's reference rule is not a gradient at all,
//! and the clean rule's gradient touches one output column, which the manual form
//! computes without building a graph.
//!
//! - [`UpdateRule::SemiGradient`] (default): the gradient of `(target - Q(s,a))^2 / 2`
//!   with the target held fixed, evaluated at the current state with current weights
//!   (output activation derivative included). Q-learning bootstraps from the best
//!   *legal* next action.
//! - [`UpdateRule::Reference`]: the study's code, quirks included, to reproduce its
//!   numbers: the hidden error omits the output activation's derivative; the hidden
//!   activations come from the network's last forward pass (the *next* state in
//!   non-terminal updates); SARSA's `Q(S,A)` is the value saved when `A` was chosen;
//!   Q-learning bootstraps from the maximum over all 32 outputs.

mod agent;
mod config;
mod episode;
mod update;

pub use agent::LuoAgent;
pub use config::{LuoConfig, TdAlgorithm, UpdateRule};

#[cfg(test)]
mod tests;
