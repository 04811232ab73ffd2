//! The optimiser every neural study's original code uses: burn's Adam with PyTorch's
//! defaults for the selfplay selectors, [`Adam`] for the MLPs, and their saved states.

use burn::optim::{AdamConfig, ModuleOptimizer, OptimizerRecord};
use burn::tensor::{Bytes, Device};
use burnmate_models::{DeepMlp, LayerWeights};
use serde::{Deserialize, Serialize};

use crate::adam::{Adam, SavedMoments};
use crate::error::AgentError;

/// PyTorch's `torch.optim.Adam` defaults: betas (0.9, 0.999), epsilon 1e-8, no weight
/// decay (burn's `AdamConfig::new()` has epsilon 1e-5, which damps small gradients).
pub fn pytorch_adam() -> ModuleOptimizer {
    AdamConfig::new().with_epsilon(1e-8).init()
}

/// A trained network with its Adam state: everything an exact continuation needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainedNet {
    /// The layers.
    pub layers: Vec<LayerWeights>,
    /// Adam's moments, one entry per parameter tensor.
    pub adam: Vec<SavedMoments>,
}

impl TrainedNet {
    /// The state of `net` and its optimiser.
    pub fn of(net: &DeepMlp, optimizer: &Adam) -> TrainedNet {
        TrainedNet {
            layers: net.weights(),
            adam: optimizer.save(),
        }
    }

    /// The network and its optimiser back on `device`.
    pub fn restore(&self, device: &Device) -> Result<(DeepMlp, Adam), AgentError> {
        let net = DeepMlp::from_weights(&self.layers, device).map_err(AgentError::Shape)?;
        let optimizer = Adam::restore(&net, &self.adam, device)?;
        Ok((net, optimizer))
    }
}

/// An optimiser's state as hex text of burn's burnpack record (for JSON checkpoints).
pub fn optimizer_hex(optimizer: &ModuleOptimizer) -> Result<String, AgentError> {
    let bytes = optimizer
        .to_record()
        .into_bytes()
        .map_err(|e| AgentError::Saved(format!("cannot save the optimiser state: {e:?}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// [`pytorch_adam`] with the state saved by [`optimizer_hex`].
pub fn adam_from_hex(text: &str) -> Result<ModuleOptimizer, AgentError> {
    if !text.len().is_multiple_of(2) {
        return Err(AgentError::Saved("odd-length optimiser state".into()));
    }
    let bytes = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| AgentError::Saved("optimiser state is not hex".into()))?;
    let record = OptimizerRecord::from_bytes(Bytes::from_bytes_vec(bytes)).map_err(|e| {
        AgentError::Saved(format!("optimiser state is not a burnpack record: {e:?}"))
    })?;
    Ok(pytorch_adam().load_record(record))
}
