#![warn(missing_docs)]
//! The plain weight types burnmate's Burn modules write and its engine reads: a
//! linear layer's host copy and the feature transformer's activation. Plain data in
//! a crate of their own, so the engine builds without Burn and the models know
//! nothing of chess.

use serde::{Deserialize, Serialize};

/// Host copy of one linear layer, weight row-major `[inputs, outputs]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerWeights {
    /// Inputs.
    pub inputs: usize,
    /// Outputs.
    pub outputs: usize,
    /// Weights, `inputs * outputs` values.
    pub weight: Vec<f32>,
    /// Biases, `outputs` values.
    pub bias: Vec<f32>,
}

impl LayerWeights {
    /// Whether every weight and bias is a finite number (not NaN or infinite).
    pub fn is_finite(&self) -> bool {
        self.weight.iter().chain(&self.bias).all(|w| w.is_finite())
    }
}

/// The activation of the feature transformer's sums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// `clamp(s, 0, 1)`.
    #[default]
    Crelu,
    /// `clamp(s, 0, 1)²`.
    Screlu,
}

impl Activation {
    /// `σ(s)`.
    #[inline]
    pub fn apply(self, s: f32) -> f32 {
        let c = s.clamp(0.0, 1.0);
        match self {
            Activation::Crelu => c,
            Activation::Screlu => c * c,
        }
    }

    /// `dσ/ds` (0 outside `[0, 1]`; 1, or `2s`, inside, the ends included).
    #[inline]
    pub fn slope(self, s: f32) -> f32 {
        if !(0.0..=1.0).contains(&s) {
            return 0.0;
        }
        match self {
            Activation::Crelu => 1.0,
            Activation::Screlu => 2.0 * s,
        }
    }
}
