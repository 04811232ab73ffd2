//! The search learner (ours; `configs/search-*.toml`, and the matrix's `mcts`
//! cells): AlphaZero's PUCT search over a policy-value net, trained by self-play on
//! a lone-king endgame from starts grown backwards from mate (rules only; the
//! tablebase only evaluates). [`training`] is the resumable loop, [`evaluation`]
//! plays a net against the perfect defender, [`net_file`] is the net a run serves.

pub mod curriculum;
pub mod evaluation;
pub mod frontier;
pub mod net_file;
pub mod settings;
pub mod training;
