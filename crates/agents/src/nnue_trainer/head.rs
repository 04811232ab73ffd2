//! The output layer and the loss on the host: one bucket's row of `W2` a position,
//! chosen by its material, then the squared error of the win probability.
//!
//! ```text
//! out_i    = b2[k_i] + W2[., k_i] . a_i            a_i = [a_us, a_them], 2 hidden
//! L        = mean over i of (sigmoid(out_i) - t_i)²
//! dL/dout_i = 2 (σ_i - t_i) σ_i (1 - σ_i) / n       σ_i = sigmoid(out_i)
//! dL/dW2[j, k] = sum over i with k_i = k of dL/dout_i a_ij;  dL/db2[k] likewise
//! dL/da_ij = dL/dout_i W2[j, k_i]                   (the transformer's upstream)
//! ```

use burnmate_models::LayerWeights;
use rayon::prelude::*;

/// The output layer's gradients and the activations' gradient.
pub(super) struct HeadGradients {
    /// `dL/dW2`, `[2 hidden, buckets]` row-major like `W2`.
    pub weight: Vec<f32>,
    /// `dL/db2`.
    pub bias: Vec<f32>,
    /// `dL/da`, `[n, 2 hidden]`.
    pub upstream: Vec<f32>,
}

/// Rows of `W2`'s gradient a thread sums at once.
const ROWS_A_PART: usize = 32;

/// `W2`'s columns, one a bucket: `[buckets][2 hidden]`.
fn columns(output: &LayerWeights) -> Vec<Vec<f32>> {
    let buckets = output.outputs;
    (0..buckets)
        .map(|k| {
            output
                .weight
                .iter()
                .skip(k)
                .step_by(buckets)
                .copied()
                .collect()
        })
        .collect()
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Each position's out: `b2[k] + W2[., k] . a` (in parallel).
fn outs(output: &LayerWeights, activated: &[f32], buckets: &[usize]) -> Vec<f32> {
    let columns = columns(output);
    activated
        .par_chunks_exact(output.inputs)
        .zip(buckets.par_iter())
        .map(|(a, &k)| {
            let dot: f32 = a.iter().zip(&columns[k]).map(|(x, w)| x * w).sum();
            output.bias[k] + dot
        })
        .collect()
}

/// The mean loss of the positions whose activations are `activated` (`[n, 2
/// hidden]`), output buckets `buckets` and targets `targets`.
pub(super) fn loss(
    output: &LayerWeights,
    activated: &[f32],
    buckets: &[usize],
    targets: &[f32],
) -> f32 {
    let outs = outs(output, activated, buckets);
    let total: f32 = outs
        .iter()
        .zip(targets)
        .map(|(&o, &t)| (sigmoid(o) - t).powi(2))
        .sum();
    total / targets.len().max(1) as f32
}

/// The mean loss and its gradients (see the module's rule).
pub(super) fn gradients(
    output: &LayerWeights,
    activated: &[f32],
    buckets: &[usize],
    targets: &[f32],
) -> (f32, HeadGradients) {
    let (width, count) = (output.inputs, output.outputs);
    let n = targets.len().max(1) as f32;
    let outs = outs(output, activated, buckets);
    let (loss, douts): (Vec<f32>, Vec<f32>) = outs
        .iter()
        .zip(targets)
        .map(|(&o, &t)| {
            let p = sigmoid(o);
            ((p - t).powi(2), 2.0 * (p - t) * p * (1.0 - p) / n)
        })
        .unzip();
    let loss = loss.iter().sum::<f32>() / n;
    let columns = columns(output);
    let mut upstream = vec![0.0f32; activated.len()];
    upstream
        .par_chunks_exact_mut(width)
        .zip(douts.par_iter().zip(buckets.par_iter()))
        .for_each(|(row, (&d, &k))| {
            for (u, w) in row.iter_mut().zip(&columns[k]) {
                *u = d * w;
            }
        });
    // Each part of W2's rows sums its gradient over the positions in order: the same
    // bits on any number of threads.
    let mut weight = vec![0.0f32; width * count];
    weight
        .par_chunks_mut(ROWS_A_PART * count)
        .enumerate()
        .for_each(|(part, rows)| {
            let first = part * ROWS_A_PART;
            for ((a, &d), &k) in activated.chunks_exact(width).zip(&douts).zip(buckets) {
                for (j, row) in rows.chunks_exact_mut(count).enumerate() {
                    row[k] += d * a[first + j];
                }
            }
        });
    let mut bias = vec![0.0f32; count];
    for (&d, &k) in douts.iter().zip(buckets) {
        bias[k] += d;
    }
    (
        loss,
        HeadGradients {
            weight,
            bias,
            upstream,
        },
    )
}
