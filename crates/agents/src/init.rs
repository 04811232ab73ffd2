//! Seeded weight initialisation on the host, so that the same seed gives the same
//! network on every backend.

use rand::{Rng, RngExt};

/// A standard normal sample (Box-Muller).
pub fn standard_normal(rng: &mut impl Rng) -> f32 {
    let u1 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2 = rng.random::<f64>();
    ((-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
}

/// `count` samples of `N(0, 1) * sqrt(1 / fan_in)`, the study's initialisation.
pub fn scaled_normal(count: usize, fan_in: usize, rng: &mut impl Rng) -> Vec<f32> {
    let scale = (1.0 / fan_in as f32).sqrt();
    (0..count).map(|_| standard_normal(rng) * scale).collect()
}

/// Layers for `sizes = [inputs, hidden.., outputs]` with PyTorch's default
/// initialisation: weights and biases `U(-1/sqrt(fan_in), 1/sqrt(fan_in))`.
pub fn uniform_layers(sizes: &[usize], rng: &mut impl Rng) -> Vec<burnmate_models::LayerWeights> {
    sizes
        .windows(2)
        .map(|w| {
            let (inputs, outputs) = (w[0], w[1]);
            let bound = 1.0 / (inputs as f32).sqrt();
            let mut draw = |n: usize| -> Vec<f32> {
                (0..n)
                    .map(|_| (rng.random::<f32>() * 2.0 - 1.0) * bound)
                    .collect()
            };
            let weight = draw(inputs * outputs);
            let bias = draw(outputs);
            burnmate_models::LayerWeights {
                inputs,
                outputs,
                weight,
                bias,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn scaled_normal_has_the_requested_spread() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let xs = scaled_normal(100_000, 4, &mut rng);
        let mean = xs.iter().sum::<f32>() / xs.len() as f32;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / xs.len() as f32;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((var - 0.25).abs() < 0.01, "{var}");
    }
}
