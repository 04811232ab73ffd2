//! The optimiser every neural study's original code uses.

use burn::optim::{AdamConfig, ModuleOptimizer};

/// PyTorch's `torch.optim.Adam` defaults: betas (0.9, 0.999), epsilon 1e-8, no weight
/// decay (burn's `AdamConfig::new()` has epsilon 1e-5, which damps small gradients).
pub fn pytorch_adam() -> ModuleOptimizer {
    AdamConfig::new().with_epsilon(1e-8).init()
}
