//! The selfplay study (Dias): full chess, two sides of convolutional piece and move
//! selectors learning from material rewards by playing each other.

pub mod afterstate;
pub mod afterstate_eval;
pub mod config;
pub mod model_file;
pub mod stockfish;
pub mod train;
