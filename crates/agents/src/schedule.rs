//! The study's three exploration schedules, over the episode number `t`.

use serde::{Deserialize, Serialize};

use crate::error::AgentError;

/// How epsilon decays with the episode number.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum EpsilonSchedule {
    /// `max(min, max * beta^t)` (the study's "hybrid", its best; default).
    Hybrid {
        /// Starting value.
        max: f64,
        /// Floor.
        min: f64,
        /// Decay factor per episode.
        beta: f64,
    },
    /// `min + (max - min) * exp(-k t)`.
    Exponential {
        /// Starting value.
        max: f64,
        /// Floor.
        min: f64,
        /// Decay rate per episode.
        k: f64,
    },
    /// `max(min, max - k t)`.
    Linear {
        /// Starting value.
        max: f64,
        /// Floor.
        min: f64,
        /// Decrease per episode.
        k: f64,
    },
}

impl Default for EpsilonSchedule {
    fn default() -> EpsilonSchedule {
        EpsilonSchedule::Hybrid {
            max: 0.9,
            min: 0.1,
            beta: 0.9995,
        }
    }
}

impl EpsilonSchedule {
    /// Checks the schedule: `0 <= min <= max <= 1`, a decay factor `beta` in (0, 1],
    /// a rate `k >= 0`; the error names the field.
    pub fn validate(&self) -> Result<(), AgentError> {
        let (max, min) = match *self {
            EpsilonSchedule::Hybrid { max, min, beta } => {
                if !(beta > 0.0 && beta <= 1.0) {
                    return Err(AgentError::Setting(format!(
                        "epsilon.beta must lie in (0, 1], not {beta}"
                    )));
                }
                (max, min)
            }
            EpsilonSchedule::Exponential { max, min, k }
            | EpsilonSchedule::Linear { max, min, k } => {
                if !(k >= 0.0 && k.is_finite()) {
                    return Err(AgentError::Setting(format!(
                        "epsilon.k must be a finite number >= 0, not {k}"
                    )));
                }
                (max, min)
            }
        };
        if !(0.0 <= min && min <= max && max <= 1.0) {
            return Err(AgentError::Setting(format!(
                "epsilon needs 0 <= min <= max <= 1, not min = {min}, max = {max}"
            )));
        }
        Ok(())
    }

    /// Epsilon at episode `t` (0-based).
    pub fn at(&self, t: u64) -> f64 {
        let t = t as f64;
        match *self {
            EpsilonSchedule::Hybrid { max, min, beta } => (max * beta.powf(t)).max(min),
            EpsilonSchedule::Exponential { max, min, k } => min + (max - min) * (-k * t).exp(),
            EpsilonSchedule::Linear { max, min, k } => (max - k * t).max(min),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_schedules_name_the_field() {
        let bad = EpsilonSchedule::Hybrid {
            max: -1.0,
            min: 2.0,
            beta: f64::NAN,
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("epsilon.beta")
        );
        let bad = EpsilonSchedule::Hybrid {
            max: -1.0,
            min: 2.0,
            beta: 0.9,
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("min <= max")
        );
        let bad = EpsilonSchedule::Linear {
            max: 0.5,
            min: 0.1,
            k: -1.0,
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .contains("epsilon.k")
        );
        assert!(EpsilonSchedule::default().validate().is_ok());
    }

    #[test]
    fn schedules_follow_their_equations() {
        let hybrid = EpsilonSchedule::default();
        assert_eq!(hybrid.at(0), 0.9);
        assert!((hybrid.at(1000) - 0.9 * 0.9995f64.powi(1000)).abs() < 1e-12);
        assert_eq!(hybrid.at(20_000), 0.1);
        let exp = EpsilonSchedule::Exponential {
            max: 1.0,
            min: 0.1,
            k: 0.001,
        };
        assert!((exp.at(1000) - (0.1 + 0.9 * (-1.0f64).exp())).abs() < 1e-12);
        let lin = EpsilonSchedule::Linear {
            max: 0.9,
            min: 0.1,
            k: 1e-4,
        };
        assert!((lin.at(4000) - 0.5).abs() < 1e-12);
        assert_eq!(lin.at(100_000), 0.1);
    }
}
