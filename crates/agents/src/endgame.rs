//! Tabular Q-learning with the "least best move" target (Boar 2022) and the
//! study's reward formulas. A table needs no device; `burn::rl` does not apply.

mod qtable;
mod reward;

pub use qtable::{LeastBestQ, QEntry, position_key};
pub use reward::{MateFormula, engine_value, heuristic_value, win_reward};
