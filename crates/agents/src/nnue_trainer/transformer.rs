//! The feature transformer on the host as a sparse layer (bullet's sparse affine
//! op): its sums add the weight rows of a position's set features, its weight
//! gradient adds each row's gradient to the rows of its set features, the hidden
//! columns split over the threads of the rayon pool.
//!
//! ```text
//! s_p      = b1 + sum of W1's rows f set from p's side, a_p = σ(s_p)
//! dL/ds_p  = dL/da_p σ'(s_p): σ' = 1 (CReLU) or 2 s_p (SCReLU) on [0, 1], else 0
//! dL/dW1_f = sum over positions and sides with f set of dL/ds_p
//! dL/db1   = sum over positions and sides of dL/ds_p
//! ```

use std::ops::Range;

use burnmate_encode::nnue::KingBuckets;
use burnmate_engine::packed::{PackedPosition, Perspective};
use burnmate_models::Activation;
use rayon::prelude::*;

/// The feature transformer's weights (the factoriser merged in).
pub(super) struct HostTransformer<'a> {
    /// `[inputs, hidden]` row-major: row `f` is input `f`'s column of `W1`.
    pub weight: &'a [f32],
    /// `b1`.
    pub bias: &'a [f32],
}

/// Fewest hidden columns a part of the transformer's work takes: below it a thread's
/// share is not worth its start.
const MIN_PART_COLUMNS: usize = 16;

/// The ranges of hidden columns the transformer's work is split into, one a thread
/// of the current rayon pool (at most `hidden / 16`). Every column's sums and
/// gradients are computed whole by one part, position after position, as one
/// thread computes them: the result is the same bits on any number of threads.
pub(super) fn column_parts(hidden: usize) -> Vec<Range<usize>> {
    let parts = rayon::current_num_threads()
        .min(hidden / MIN_PART_COLUMNS)
        .max(1);
    (0..parts)
        .map(|p| p * hidden / parts..(p + 1) * hidden / parts)
        .collect()
}

/// The transformer's sums of one part of the columns: `[sets, width]`.
pub(super) struct PartSums {
    columns: Range<usize>,
    sums: Vec<f32>,
}

impl HostTransformer<'_> {
    /// `b1` plus the rows of each set's features, `sets` alternating the side to
    /// move's and the other side's of each position, in column parts (on every
    /// thread of the pool).
    pub(super) fn sums(&self, sets: &[&[u16]]) -> Vec<PartSums> {
        let hidden = self.bias.len();
        column_parts(hidden)
            .into_par_iter()
            .map(|columns| {
                let width = columns.len();
                let mut sums = vec![0.0f32; width * sets.len()];
                for (row, set) in sums.chunks_exact_mut(width).zip(sets) {
                    row.copy_from_slice(&self.bias[columns.clone()]);
                    for &f in *set {
                        let column =
                            &self.weight[usize::from(f) * hidden + columns.start..][..width];
                        for (s, w) in row.iter_mut().zip(column) {
                            *s += w;
                        }
                    }
                }
                PartSums { columns, sums }
            })
            .collect()
    }
}

/// `σ` of the parts' sums, laid out `[n, 2 hidden]`: each position's two halves
/// side by side (rows in parallel).
pub(super) fn activated(
    parts: &[PartSums],
    activation: Activation,
    hidden: usize,
    sets: usize,
) -> Vec<f32> {
    let mut out = vec![0.0f32; sets * hidden];
    out.par_chunks_exact_mut(hidden)
        .enumerate()
        .for_each(|(i, row)| {
            for part in parts {
                let width = part.columns.len();
                let sums = &part.sums[i * width..][..width];
                for (o, s) in row[part.columns.clone()].iter_mut().zip(sums) {
                    *o = activation.apply(*s);
                }
            }
        });
    out
}

/// The transformer's gradients `(dW1 [inputs, hidden], db1 [hidden])` from the
/// activations' gradients `[n, 2 hidden]` and the sums `activation` took them of
/// (in parts) of the sets of features `sets` (alternating the side to move's and
/// the other side's): each half row's gradient times the activation's slope at its
/// sum (zero where the sum was clamped), added to the rows of its set features and
/// to the bias, set after set; each part of the columns on a thread of its own.
pub(super) fn transformer_gradients(
    [inputs, hidden]: [usize; 2],
    activation: Activation,
    sets: &[&[u16]],
    parts: &[PartSums],
    activation_gradients: &[f32],
) -> (Vec<f32>, Vec<f32>) {
    let computed: Vec<(Vec<f32>, Vec<f32>)> = parts
        .par_iter()
        .map(|part| {
            let width = part.columns.len();
            let mut weight = vec![0.0f32; inputs * width];
            let mut bias = vec![0.0f32; width];
            let mut gradient = vec![0.0f32; width];
            let rows = part
                .sums
                .chunks_exact(width)
                .zip(activation_gradients.chunks_exact(hidden));
            for ((sum, upstream), set) in rows.zip(sets) {
                let upstream = &upstream[part.columns.clone()];
                for ((g, s), u) in gradient.iter_mut().zip(sum).zip(upstream) {
                    *g = *u * activation.slope(*s);
                }
                for &f in *set {
                    let row = &mut weight[usize::from(f) * width..][..width];
                    for (w, g) in row.iter_mut().zip(&gradient) {
                        *w += g;
                    }
                }
                for (b, g) in bias.iter_mut().zip(&gradient) {
                    *b += g;
                }
            }
            (weight, bias)
        })
        .collect();
    let mut weight = vec![0.0f32; inputs * hidden];
    let mut bias = vec![0.0f32; hidden];
    for (part, (part_weight, part_bias)) in parts.iter().zip(computed) {
        let width = part.columns.len();
        for (row, from) in weight
            .chunks_exact_mut(hidden)
            .zip(part_weight.chunks_exact(width))
        {
            row[part.columns.clone()].copy_from_slice(from);
        }
        bias[part.columns.clone()].copy_from_slice(&part_bias);
    }
    (weight, bias)
}

/// The factoriser's gradient from the transformer's `weight` gradient: the shared
/// rows (`len` values) are in every block, so theirs is the blocks' sum.
pub(super) fn shared_gradient(weight: &[f32], len: usize) -> Vec<f32> {
    let mut shared = vec![0.0f32; len];
    for block in weight.chunks_exact(len) {
        for (s, g) in shared.iter_mut().zip(block) {
            *s += g;
        }
    }
    shared
}

/// The side to move's and the other side's inputs of `batch`: each set feature
/// placed by its perspective's king ([`KingBuckets`]).
pub(super) fn placed_sets(
    batch: &[&PackedPosition],
    king_buckets: KingBuckets,
) -> [Vec<Vec<u16>>; 2] {
    let place = |position: &PackedPosition, perspective: Perspective| -> Vec<u16> {
        let set: Vec<u16> = position.features(perspective).collect();
        let view = king_buckets.view_of_set(&set);
        set.iter()
            .map(|&f| view.input(usize::from(f)) as u16)
            .collect()
    };
    [
        batch
            .par_iter()
            .map(|p| place(p, Perspective::Us))
            .collect(),
        batch
            .par_iter()
            .map(|p| place(p, Perspective::Them))
            .collect(),
    ]
}

/// The sets of `placed` alternating the side to move's and the other side's of each
/// position, as the transformer's rows lie.
pub(super) fn interleaved(placed: &[Vec<Vec<u16>>; 2]) -> Vec<&[u16]> {
    placed[0]
        .iter()
        .zip(&placed[1])
        .flat_map(|(us, them)| [us.as_slice(), them.as_slice()])
        .collect()
}
