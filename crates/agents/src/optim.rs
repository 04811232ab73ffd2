//! The optimiser every neural study's original code uses.

use burn::optim::{AdamConfig, ModuleOptimizer, OptimizerRecord};
use burn::tensor::{Bytes, Device};
use burnmate_models::{DeepMlp, LayerWeights};
use serde::{Deserialize, Serialize};

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
    /// The parameters' ids, which key the optimiser state.
    pub param_ids: Vec<u64>,
    /// The optimiser state: burn's burnpack record, as hex.
    pub optimizer: String,
}

impl TrainedNet {
    /// The state of `net` and its optimiser.
    pub fn of(net: &DeepMlp, optimizer: &ModuleOptimizer) -> Result<TrainedNet, String> {
        let bytes = optimizer
            .to_record()
            .into_bytes()
            .map_err(|e| format!("cannot save the optimiser state: {e:?}"))?;
        Ok(TrainedNet {
            layers: net.weights(),
            param_ids: net.param_ids(),
            optimizer: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        })
    }

    /// The network and its optimiser back on `device`.
    pub fn restore(&self, device: &Device) -> Result<(DeepMlp, ModuleOptimizer), String> {
        let net = DeepMlp::from_weights(&self.layers, device)?.with_param_ids(&self.param_ids)?;
        let text = &self.optimizer;
        if !text.len().is_multiple_of(2) {
            return Err("odd-length optimiser state".into());
        }
        let bytes = (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16))
            .collect::<Result<Vec<u8>, _>>()
            .map_err(|_| "optimiser state is not hex".to_string())?;
        let record = OptimizerRecord::from_bytes(Bytes::from_bytes_vec(bytes))
            .map_err(|e| format!("optimiser state is not a burnpack record: {e:?}"))?;
        Ok((net, pytorch_adam().load_record(record)))
    }
}
