#![warn(missing_docs)]
//! Learning algorithms of burnmate, generic over the Burn device: the backend is a
//! runtime [`burn::tensor::Device`], chosen once by the caller.
//!
//! The neural learners ([`dqn`], [`actor_critic`]) are game-agnostic: they see rows
//! written by an [`burnmate_env::environment::Encoder`] and action indices of an
//! [`burnmate_env::environment::Environment`]. `burn::rl`'s replay buffer and
//! learners are not used: its buffer samples with the device's RNG (breaking
//! seeded reproducibility across backends), and the study's DQN updates once per
//! environment step from a small buffer, which a plain ring of host rows (one tensor
//! upload per minibatch) expresses in a few lines.

pub mod actor_critic;
pub mod adam;
pub mod afterstate;
pub mod agent;
pub mod beside;
pub mod dqn;
pub mod endgame;
pub mod episode;
pub mod error;
pub mod exploration;
pub mod host_memory;
pub mod init;
pub mod luo;
pub mod nnue_trainer;
pub mod optim;
pub mod policy_value;
pub mod replay;
pub mod schedule;
pub mod search;
pub mod search_learner;
pub mod selfplay;
pub mod transition;
pub mod vector;

#[cfg(test)]
mod neural_tests;
#[cfg(test)]
mod nnue_agreement_tests;
