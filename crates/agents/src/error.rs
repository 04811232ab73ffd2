//! The one error of the learning algorithms: every constructor, `check`, snapshot
//! and restore of this crate returns it, and its message is a one-line sentence
//! naming the setting or the part that is wrong.

use thiserror::Error;

/// Why a learner could not be built, saved or restored.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum AgentError {
    /// A setting out of range (the message names it and its value).
    #[error("{0}")]
    Setting(String),
    /// Weights, optimiser moments or a saved learner that do not fit the network
    /// (the message says which part).
    #[error("{0}")]
    Shape(String),
    /// Saved state that cannot be written or read back.
    #[error("{0}")]
    Saved(String),
}

/// Checks that the setting `name` lies in [0, 1] (a discount, an exploration rate,
/// a mixing weight); the error names it and its value.
pub fn unit_interval<T: Into<f64> + std::fmt::Display + Copy>(
    name: &str,
    value: T,
) -> Result<(), AgentError> {
    if (0.0..=1.0).contains(&value.into()) {
        Ok(())
    } else {
        Err(AgentError::Setting(format!(
            "{name} must lie in [0, 1], not {value}"
        )))
    }
}
