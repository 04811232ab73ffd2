//! The queen4x4 game as an [`Environment`].

use rand::Rng;

use super::action::{ACTIONS, Action};
use super::position::{Position, Queen4x4Outcome};
use super::start::random_start;
use crate::environment::{Environment, Step};

/// The study's reward for the mating move (every other move: 0). The impatient
/// variant's rewards (-1 a move) belong to its learner, not to the game.
pub const MATE_REWARD: f32 = 1.0;

/// King and queen against the randomly moving king: starts from the study's
/// generator, 32 actions under the study's mask, the black reply inside `step`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Queen4x4Game;

impl Environment for Queen4x4Game {
    type State = Position;
    type Outcome = Queen4x4Outcome;

    fn actions(&self) -> usize {
        ACTIONS
    }

    fn reset(&self, rng: &mut (impl Rng + ?Sized)) -> Position {
        random_start(rng)
    }

    fn step(
        &self,
        state: &Position,
        action: usize,
        rng: &mut (impl Rng + ?Sized),
    ) -> Step<Position, Queen4x4Outcome> {
        let (state, outcome) = state.step(Action::from_index(action), rng);
        let reward = if outcome == Queen4x4Outcome::Checkmate {
            MATE_REWARD
        } else {
            0.0
        };
        Step {
            state,
            reward,
            outcome,
        }
    }

    fn legal_mask(&self, state: &Position, mask: &mut [bool]) {
        let legal = state.legal_actions();
        for (action, allowed) in mask.iter_mut().enumerate() {
            *allowed = legal & (1 << action) != 0;
        }
    }
}
