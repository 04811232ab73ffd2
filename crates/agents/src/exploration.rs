//! Action selection over a legal subset of a fixed action space.

use rand::{Rng, RngExt};

/// Index of the largest value among `legal` (the first one on ties, like numpy's
/// `argmax`). `legal` must not be empty.
pub fn greedy(values: &[f32], legal: &[usize]) -> usize {
    let mut best = legal[0];
    for &a in &legal[1..] {
        if values[a] > values[best] {
            best = a;
        }
    }
    best
}

/// Epsilon-greedy: with probability `epsilon` a uniformly random legal action,
/// otherwise [`greedy`].
pub fn epsilon_greedy(
    values: &[f32],
    legal: &[usize],
    epsilon: f64,
    rng: &mut (impl Rng + ?Sized),
) -> usize {
    if rng.random::<f64>() < epsilon {
        legal[rng.random_range(0..legal.len())]
    } else {
        greedy(values, legal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn greedy_ignores_illegal_actions_and_takes_the_first_maximum() {
        let values = [9.0, 1.0, 3.0, 3.0];
        assert_eq!(greedy(&values, &[1, 2, 3]), 2);
    }

    #[test]
    fn epsilon_one_spreads_over_legal_actions_only() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let values = [0.0; 5];
        let mut seen = [0; 5];
        for _ in 0..1000 {
            seen[epsilon_greedy(&values, &[1, 4], 1.0, &mut rng)] += 1;
        }
        assert_eq!(seen[0] + seen[2] + seen[3], 0);
        assert!(seen[1] > 400 && seen[4] > 400);
    }
}
