#![warn(missing_docs)]
//! Burn modules used by burnmate's agents. They know nothing of chess: inputs are
//! feature rows, outputs are one value per action.

pub mod conv_selector;
pub mod deep_mlp;
pub mod fixed_order;
pub mod mlp;
pub mod nnue;
pub mod param_ids;
pub mod sparse_input;

pub use conv_selector::{ConvSelector, ConvWeights, SelectorPadding, SelectorWeights};
pub use deep_mlp::{DeepMlp, LayerWeights};
pub use mlp::{MlpWeights, OutputActivation, TwoLayerMlp, TwoLayerMlpConfig, TwoLayerOutput};
pub use nnue::{Activation, Nnue};
