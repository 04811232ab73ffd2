//! The feature transformer on the host as a sparse layer (bullet's sparse affine
//! op): its sums add the weight rows of a position's set features, its weight
//! gradient adds each row's gradient to the rows of its set features, in two groups
//! of positions each summed whole, the hidden columns split over the rest of the
//! rayon pool's threads.
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

use super::widest::widest;

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

/// Groups of positions `dW1` is summed in, each into a whole `[inputs, hidden]`
/// partial on threads of its own, the partials then added in group order (the
/// split of early bullet's CPU trainer: a thread's share of a batch into a whole
/// gradient). A fixed count, so a step gives the same bits on any number of threads.
const POSITION_GROUPS: usize = 2;

/// The ranges of hidden columns one group's weight gradient is split into, one a
/// thread of `threads` (at most `hidden / 16`). Every column's gradient is summed
/// whole by one part, position after position, as one thread sums it: the same
/// bits on any number of threads.
pub(super) fn column_parts(hidden: usize, threads: usize) -> Vec<Range<usize>> {
    let parts = threads.min(hidden / MIN_PART_COLUMNS).max(1);
    (0..parts)
        .map(|p| p * hidden / parts..(p + 1) * hidden / parts)
        .collect()
}

impl HostTransformer<'_> {
    /// `b1` plus the rows of each set's features, `[sets, hidden]` (`sets`
    /// alternating the side to move's and the other side's of each position, so the
    /// sums lie `[positions, 2 hidden]`), on the calling thread.
    pub(super) fn sums(&self, sets: &[Vec<u16>]) -> Vec<f32> {
        let hidden = self.bias.len();
        let mut sums = vec![0.0f32; hidden * sets.len()];
        widest(
            #[inline(always)]
            || {
                for (row, set) in sums.chunks_exact_mut(hidden).zip(sets) {
                    row.copy_from_slice(self.bias);
                    for &f in set {
                        let column = &self.weight[usize::from(f) * hidden..][..hidden];
                        for (s, w) in row.iter_mut().zip(column) {
                            *s += w;
                        }
                    }
                }
            },
        );
        sums
    }
}

/// The sums' gradients `dL/ds = dL/da σ'(s)`, written over the activations'
/// gradients `upstream` (the same layout as `sums`).
pub(super) fn sum_gradients(activation: Activation, sums: &[f32], upstream: &mut [f32]) {
    for (u, s) in upstream.iter_mut().zip(sums) {
        *u *= activation.slope(*s);
    }
}

/// `dW1` (`[inputs, hidden]`) from the sums' gradients `gradients[i]` (`[rows,
/// hidden]`) of the feature sets `sets[i]` (a row a set): the parts of the batch in
/// [`POSITION_GROUPS`] groups, each group's partial on its share of the rayon pool's
/// threads ([`group_gradient`]), the partials added in group order.
pub(super) fn weight_gradient(
    shape: [usize; 2],
    sets: &[&[Vec<u16>]],
    gradients: &[&[f32]],
) -> Vec<f32> {
    let groups = POSITION_GROUPS.min(sets.len()).max(1);
    let threads = (rayon::current_num_threads() / groups).max(1);
    let bounds = |g: usize| g * sets.len() / groups..(g + 1) * sets.len() / groups;
    let mut partials: Vec<Vec<f32>> = (0..groups)
        .into_par_iter()
        .map(|g| group_gradient(shape, &sets[bounds(g)], &gradients[bounds(g)], threads))
        .collect();
    if groups == 1 {
        return partials.swap_remove(0);
    }
    let (total, rest) = partials.split_first_mut().expect("one group at least");
    let hidden = shape[1];
    total
        .par_chunks_exact_mut(hidden)
        .enumerate()
        .for_each(|(f, row)| {
            for partial in rest.iter() {
                for (t, p) in row.iter_mut().zip(&partial[f * hidden..][..hidden]) {
                    *t += p;
                }
            }
        });
    partials.swap_remove(0)
}

/// One group's `dW1`: each set's gradient row added to the rows of its set's
/// features, row after row in order; each part of the hidden columns
/// ([`column_parts`] of `threads`) on a thread of its own.
fn group_gradient(
    [inputs, hidden]: [usize; 2],
    sets: &[&[Vec<u16>]],
    gradients: &[&[f32]],
    threads: usize,
) -> Vec<f32> {
    let parts = column_parts(hidden, threads);
    let computed: Vec<Vec<f32>> = parts
        .par_iter()
        .map(|columns| {
            let width = columns.len();
            let mut weight = vec![0.0f32; inputs * width];
            widest(
                #[inline(always)]
                || {
                    for (sets, gradients) in sets.iter().zip(gradients) {
                        for (set, gradient) in sets.iter().zip(gradients.chunks_exact(hidden)) {
                            let gradient = &gradient[columns.clone()];
                            for &f in set {
                                let row = &mut weight[usize::from(f) * width..][..width];
                                for (w, g) in row.iter_mut().zip(gradient) {
                                    *w += g;
                                }
                            }
                        }
                    }
                },
            );
            weight
        })
        .collect();
    if parts.len() == 1 {
        return computed.into_iter().next().expect("one part");
    }
    let mut weight = vec![0.0f32; inputs * hidden];
    weight
        .par_chunks_exact_mut(hidden)
        .enumerate()
        .for_each(|(f, row)| {
            for (columns, part) in parts.iter().zip(&computed) {
                let width = columns.len();
                row[columns.clone()].copy_from_slice(&part[f * width..][..width]);
            }
        });
    weight
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

/// The inputs of each position of `positions`, the side to move's then the other
/// side's: each set feature placed by its perspective's king ([`KingBuckets`]).
pub(super) fn placed_sets(
    positions: &[&PackedPosition],
    king_buckets: KingBuckets,
) -> Vec<Vec<u16>> {
    let place = |position: &PackedPosition, perspective: Perspective| -> Vec<u16> {
        let set: Vec<u16> = position.features(perspective).collect();
        let view = king_buckets.view_of_set(&set);
        set.iter()
            .map(|&f| view.input(usize::from(f)) as u16)
            .collect()
    };
    positions
        .iter()
        .flat_map(|p| [place(p, Perspective::Us), place(p, Perspective::Them)])
        .collect()
}
