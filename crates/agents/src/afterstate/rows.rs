//! Positions encoded as the value network's input (the side-to-move encoding), in one
//! of two forms:
//! - dense rows of `FEATURES` floats, for devices whose tensors live in host memory
//!   (built on one thread: the cores are the tensor work's);
//! - the values each position sets (about 32 of the 779), for a GPU, built on all
//!   cores: the upload is their slots alone (a sixth of the dense rows' bytes) and the
//!   device scatters them into dense rows ([`sparse_input::to_dense`]).

use burn::tensor::{Device, Tensor, TensorData};
use burnmate_encode::side_to_move::{FEATURES, MOST_SET, encode, set_entries};
use burnmate_models::sparse_input::{self, SparseRows};
use rayon::prelude::*;
use shakmaty::Chess;

/// Encoded positions, row by row.
#[derive(Clone, Debug, PartialEq)]
pub enum EncodedRows {
    /// `FEATURES` floats a row.
    Dense(Vec<f32>),
    /// Each row's set values.
    SetEntries(SparseRows),
}

impl EncodedRows {
    /// `positions` as dense rows.
    pub fn dense(positions: &[&Chess]) -> EncodedRows {
        let mut rows = vec![0.0f32; positions.len() * FEATURES];
        rows.chunks_exact_mut(FEATURES)
            .zip(positions)
            .for_each(|(row, position)| encode(position, row));
        EncodedRows::Dense(rows)
    }

    /// `positions` as their set values, as many slots a row as the most any of
    /// them sets.
    pub fn set_entries(positions: &[&Chess]) -> EncodedRows {
        let entries: Vec<(usize, [(i64, f32); MOST_SET])> = positions
            .par_iter()
            .map(|position| {
                let mut slots = [(0, 0.0); MOST_SET];
                let mut count = 0;
                set_entries(position, |index, value| {
                    slots[count] = (index as i64, value);
                    count += 1;
                });
                (count, slots)
            })
            .collect();
        let width = entries.iter().map(|(count, _)| *count).max().unwrap_or(0);
        let width = width.max(1);
        let mut indices = vec![0; positions.len() * width];
        let mut values = vec![0.0; positions.len() * width];
        let rows = indices
            .chunks_exact_mut(width)
            .zip(values.chunks_exact_mut(width));
        for ((index, value), (count, slots)) in rows.zip(&entries) {
            for (slot, &(i, x)) in slots[..*count].iter().enumerate() {
                index[slot] = i;
                value[slot] = x;
            }
        }
        EncodedRows::SetEntries(SparseRows {
            rows: positions.len(),
            width,
            indices,
            values,
        })
    }

    /// Rows encoded.
    pub fn len(&self) -> usize {
        match self {
            EncodedRows::Dense(rows) => rows.len() / FEATURES,
            EncodedRows::SetEntries(x) => x.rows,
        }
    }

    /// Whether no row is encoded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `[rows, FEATURES]` input on `device`.
    pub fn tensor(self, device: &Device) -> Tensor<2> {
        match self {
            EncodedRows::Dense(rows) => {
                let n = rows.len() / FEATURES;
                Tensor::from_data(TensorData::new(rows, [n, FEATURES]), device)
            }
            EncodedRows::SetEntries(x) => sparse_input::to_dense(&x, FEATURES, device),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Position;

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).unwrap()
    }

    #[test]
    fn both_forms_give_the_same_input_tensor() {
        let positions = [
            Chess::default(),
            position("4k3/8/8/n2q2p1/1P2P2R/P7/8/4K3 w - - 0 1"),
            position("4k3/8/8/8/8/8/8/4K2r w - - 0 1"),
            position("8/8/8/3k4/8/8/2R5/4K3 b - - 0 1"),
        ];
        let refs: Vec<&Chess> = positions.iter().collect();
        let sparse = EncodedRows::set_entries(&refs);
        let EncodedRows::SetEntries(x) = &sparse else {
            unreachable!("set_entries builds set entries")
        };
        assert_eq!((x.rows, x.width), (4, 32), "the start sets 32 values");
        let host = |rows: EncodedRows| {
            let tensor = rows.tensor(&Device::flex());
            assert_eq!(tensor.dims(), [4, FEATURES]);
            tensor.into_data().try_into_vec::<f32>().unwrap()
        };
        let dense = host(EncodedRows::dense(&refs));
        assert_eq!(host(sparse), dense);
        assert!(refs[2].is_check());
        let third = &dense[2 * FEATURES..3 * FEATURES];
        assert_eq!(third.iter().sum::<f32>(), 4.0, "two kings, a rook, check");
    }
}
