//! A fixed-capacity replay buffer that overwrites its oldest item (DQN's
//! transitions, the afterstate learner's positions and targets).

use rand::{Rng, RngExt};

use crate::error::AgentError;
use crate::transition::Transition;

/// Ring buffer of transitions (or any other items).
pub struct ReplayBuffer<T = Transition> {
    items: Vec<T>,
    capacity: usize,
    next: usize,
}

impl<T: Clone> ReplayBuffer<T> {
    /// An empty buffer holding at most `capacity` transitions.
    pub fn new(capacity: usize) -> ReplayBuffer<T> {
        assert!(capacity > 0, "replay capacity must be positive");
        ReplayBuffer {
            // Grown as filled: a large capacity costs nothing until it is used.
            items: Vec::with_capacity(capacity.min(1 << 16)),
            capacity,
            next: 0,
        }
    }

    /// The stored transitions in slot order and the slot written next.
    pub fn parts(&self) -> (&[T], usize) {
        (&self.items, self.next)
    }

    /// A buffer of `capacity` holding `items` (from [`ReplayBuffer::parts`]).
    pub fn from_parts(
        capacity: usize,
        items: Vec<T>,
        next: usize,
    ) -> Result<ReplayBuffer<T>, AgentError> {
        if capacity == 0 || items.len() > capacity || next >= capacity {
            return Err(AgentError::Shape(format!(
                "replay state of {} items (next {next}) does not fit capacity {capacity}",
                items.len()
            )));
        }
        Ok(ReplayBuffer {
            items,
            capacity,
            next,
        })
    }

    /// Stored transitions.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Stores a transition, overwriting the oldest once full.
    pub fn push(&mut self, t: T) {
        if self.items.len() < self.capacity {
            self.items.push(t);
        } else {
            self.items[self.next] = t;
        }
        self.next = (self.next + 1) % self.capacity;
    }

    /// `n` distinct transitions drawn uniformly (partial Fisher-Yates), `n <= len`.
    pub fn sample(&self, n: usize, rng: &mut (impl Rng + ?Sized)) -> Vec<T> {
        let mut index: Vec<usize> = (0..self.items.len()).collect();
        (0..n)
            .map(|i| {
                let j = rng.random_range(i..index.len());
                index.swap(i, j);
                self.items[index[i]].clone()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn t(reward: f32) -> Transition {
        Transition {
            state: vec![0.0; 4],
            action: 0,
            reward,
            next_state: vec![0.0; 4],
            done: false,
            legal: Vec::new(),
            next_legal: Vec::new(),
        }
    }

    #[test]
    fn a_full_buffer_overwrites_the_oldest_first() {
        let mut buffer = ReplayBuffer::new(3);
        for r in 0..5 {
            buffer.push(t(r as f32));
        }
        assert_eq!(buffer.len(), 3);
        let rewards: Vec<f32> = buffer.items.iter().map(|t| t.reward).collect();
        assert_eq!(rewards, vec![3.0, 4.0, 2.0]);
    }

    #[test]
    fn samples_are_distinct_stored_transitions() {
        let mut buffer = ReplayBuffer::new(100);
        for r in 0..100 {
            buffer.push(t(r as f32));
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let mut rewards: Vec<f32> = buffer
            .sample(64, &mut rng)
            .iter()
            .map(|t| t.reward)
            .collect();
        rewards.sort_by(f32::total_cmp);
        rewards.dedup();
        assert_eq!(rewards.len(), 64);
    }
}
