//! The 32 white actions: queen `3 * d + (k - 1)` for direction `d` and distance
//! `k` in 1..=3 (indices 0-23), white king `24 + d` (indices 24-31).

/// Size of the action space.
pub const ACTIONS: usize = 32;
/// First king action index.
pub const KING_ACTIONS_START: usize = 24;

/// A white action, decoded from its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Queen moves `distance` (1..=3) squares in `direction`.
    Queen {
        /// Direction index 0..8.
        direction: usize,
        /// Distance 1..=3.
        distance: i8,
    },
    /// White king steps one square in `direction`.
    King {
        /// Direction index 0..8.
        direction: usize,
    },
}

impl Action {
    /// Decodes an action index (0..32).
    pub fn from_index(index: usize) -> Action {
        assert!(index < ACTIONS, "action index {index} out of range");
        if index < KING_ACTIONS_START {
            Action::Queen {
                direction: index / 3,
                distance: (index % 3) as i8 + 1,
            }
        } else {
            Action::King {
                direction: index - KING_ACTIONS_START,
            }
        }
    }

    /// The action's index (0..32).
    pub fn index(self) -> usize {
        match self {
            Action::Queen {
                direction,
                distance,
            } => 3 * direction + (distance as usize - 1),
            Action::King { direction } => KING_ACTIONS_START + direction,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_round_trip() {
        for i in 0..ACTIONS {
            assert_eq!(Action::from_index(i).index(), i);
        }
        assert_eq!(
            Action::from_index(5),
            Action::Queen {
                direction: 1,
                distance: 3
            }
        );
        assert_eq!(Action::from_index(31), Action::King { direction: 7 });
    }
}
