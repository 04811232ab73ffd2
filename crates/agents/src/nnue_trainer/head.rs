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

/// One part of the positions' share of the output layer's gradients, and the
/// activations' gradient.
pub(super) struct HeadGradients {
    /// Their part of `dL/dW2`, `[2 hidden, buckets]` row-major like `W2`.
    pub weight: Vec<f32>,
    /// Their part of `dL/db2`.
    pub bias: Vec<f32>,
    /// `dL/da`, `[n, 2 hidden]`.
    pub upstream: Vec<f32>,
    /// Their squared errors summed.
    pub squared_errors: f32,
}

/// `W2`'s columns, one a bucket: `[buckets][2 hidden]`.
pub(super) fn columns(output: &LayerWeights) -> Vec<Vec<f32>> {
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

/// Each position's out: `b2[k] + W2[., k] . a`.
fn outs<'a>(
    output: &'a LayerWeights,
    columns: &'a [Vec<f32>],
    activated: &'a [f32],
    buckets: &'a [usize],
) -> impl Iterator<Item = f32> + 'a {
    activated
        .chunks_exact(output.inputs)
        .zip(buckets)
        .map(|(a, &k)| {
            let dot: f32 = a.iter().zip(&columns[k]).map(|(x, w)| x * w).sum();
            output.bias[k] + dot
        })
}

/// The squared errors, summed, of the positions whose activations are `activated`
/// (`[n, 2 hidden]`), output buckets `buckets` and targets `targets`; `columns` are
/// `W2`'s ([`columns`]).
pub(super) fn squared_errors(
    output: &LayerWeights,
    columns: &[Vec<f32>],
    activated: &[f32],
    buckets: &[usize],
    targets: &[f32],
) -> f32 {
    outs(output, columns, activated, buckets)
        .zip(targets)
        .map(|(o, &t)| (sigmoid(o) - t).powi(2))
        .sum()
}

/// The gradients of the mean loss over a batch of `batch` positions (see the
/// module's rule) from these of its positions, summed over them in order.
pub(super) fn gradients(
    output: &LayerWeights,
    columns: &[Vec<f32>],
    activated: &[f32],
    buckets: &[usize],
    targets: &[f32],
    batch: usize,
) -> HeadGradients {
    let (width, count) = (output.inputs, output.outputs);
    let n = batch.max(1) as f32;
    let mut gradients = HeadGradients {
        weight: vec![0.0f32; width * count],
        bias: vec![0.0f32; count],
        upstream: vec![0.0f32; activated.len()],
        squared_errors: 0.0,
    };
    let outs = outs(output, columns, activated, buckets);
    let rows = activated
        .chunks_exact(width)
        .zip(gradients.upstream.chunks_exact_mut(width));
    for ((o, &t), ((a, upstream), &k)) in outs.zip(targets).zip(rows.zip(buckets)) {
        let p = sigmoid(o);
        gradients.squared_errors += (p - t).powi(2);
        let d = 2.0 * (p - t) * p * (1.0 - p) / n;
        for (u, w) in upstream.iter_mut().zip(&columns[k]) {
            *u = d * w;
        }
        for (row, x) in gradients.weight.chunks_exact_mut(count).zip(a) {
            row[k] += d * x;
        }
        gradients.bias[k] += d;
    }
    gradients
}
