//! A first layer for input rows that are mostly zeros. An endgame's side-to-move
//! encoding sets about 6 of its 779 values, so `x W` is the sum of the weight rows of
//! the inputs that are set, each times its value: gathering those rows costs a few
//! hundred multiply-adds a row where the dense product costs `inputs x outputs`
//! (and its gradient is a scatter of the same rows instead of a second dense product).

use burn::nn::Linear;
use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor, TensorData};

/// The most inputs a row may set for the gathering layer to be the faster one. The
/// gathered rows are copied out and multiplied a row at a time, so the cost grows
/// with the inputs set: on flex (AMD EPYC, the search net's 779 x 256 first layer),
/// rows setting 4 inputs ran 1.1-1.7x faster than the dense product, rows setting 40
/// 1.7-4x slower; the two meet near 7-8.
pub const MAX_SPARSE_WIDTH: usize = 8;

/// The non-zero inputs of a batch of rows: `width` slots a row (the most any row
/// sets), each an input index and its value; a row with fewer fills the rest with
/// input 0 and value 0, which adds nothing and gets no gradient.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseRows {
    /// Rows in the batch.
    pub rows: usize,
    /// Slots a row.
    pub width: usize,
    /// Input index of each slot, row by row.
    pub indices: Vec<i64>,
    /// Value of each slot, row by row.
    pub values: Vec<f32>,
}

impl SparseRows {
    /// The most non-zero values in a row of `dense` (rows of `inputs` values).
    pub fn widest(dense: &[f32], inputs: usize) -> usize {
        let set = |row: &[f32]| row.iter().filter(|&&x| x != 0.0).count();
        dense.chunks_exact(inputs).map(set).max().unwrap_or(0)
    }

    /// The non-zero entries of `dense`, rows of `inputs` values each.
    pub fn from_dense(dense: &[f32], inputs: usize) -> SparseRows {
        let set = |row: &[f32]| row.iter().filter(|&&x| x != 0.0).count();
        let rows = dense.len() / inputs;
        let width = dense
            .chunks_exact(inputs)
            .map(set)
            .max()
            .unwrap_or(0)
            .max(1);
        let mut indices = vec![0; rows * width];
        let mut values = vec![0.0; rows * width];
        let slots = indices
            .chunks_exact_mut(width)
            .zip(values.chunks_exact_mut(width));
        for (row, (index, value)) in dense.chunks_exact(inputs).zip(slots) {
            let entries = row.iter().enumerate().filter(|&(_, &x)| x != 0.0);
            for (slot, (i, &x)) in entries.enumerate() {
                index[slot] = i as i64;
                value[slot] = x;
            }
        }
        SparseRows {
            rows,
            width,
            indices,
            values,
        }
    }
}

/// `x W + b` for the rows `x`: each row's weight rows gathered, weighted by their
/// values and summed slot by slot (a batched product of `[1, width]` by
/// `[width, outputs]` per row).
pub fn forward(layer: &Linear, x: &SparseRows) -> Tensor<2> {
    let weight = layer.weight.val();
    let device = weight.device();
    let [_, outputs] = weight.dims();
    let (n, width) = (x.rows, x.width);
    let indices =
        Tensor::<1, Int>::from_data(TensorData::new(x.indices.clone(), [n * width]), &device);
    let values = Tensor::<3>::from_data(TensorData::new(x.values.clone(), [n, 1, width]), &device);
    let rows = weight.select(0, indices).reshape([n, width, outputs]);
    let product = values.matmul(rows).reshape([n, outputs]);
    match &layer.bias {
        Some(bias) => product + bias.val().unsqueeze(),
        None => product,
    }
}

/// The dense `[rows, inputs]` matrix of `x`, built on `device` from its set entries
/// alone: a GPU's upload is the few slots a row, not every input (a 779-input
/// endgame row setting 6 is 48 bytes instead of 3 KB), and the dense product that
/// follows has a dense gradient (the gathering layer's gradient scatters rows, which
/// burn's GPU kernels do one index after another).
pub fn to_dense(x: &SparseRows, inputs: usize, device: &Device) -> Tensor<2> {
    let (n, width) = (x.rows, x.width);
    let indices =
        Tensor::<2, Int>::from_data(TensorData::new(x.indices.clone(), [n, width]), device);
    let values = Tensor::<2>::from_data(TensorData::new(x.values.clone(), [n, width]), device);
    Tensor::<2>::zeros([n, inputs], device).scatter(1, indices, values, IndexingUpdateOp::Add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::nn::LinearConfig;
    use burn::tensor::Device;

    #[test]
    fn rows_keep_their_non_zero_entries_and_pad_with_input_zero() {
        let dense = [0.0, 1.0, 0.0, 2.5, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0];
        let x = SparseRows::from_dense(&dense, 4);
        assert_eq!((x.rows, x.width), (3, 2));
        assert_eq!(x.indices, vec![1, 3, 0, 0, 0, 0]);
        assert_eq!(x.values, vec![1.0, 2.5, 0.0, 0.0, 3.0, 0.0]);
    }

    #[test]
    fn the_dense_matrix_built_from_the_set_entries_is_the_rows_themselves() {
        let dense = vec![0.0, 1.0, 0.0, 2.5, 0.0, 0.0, 0.0, 0.0, -3.0, 0.0, 0.0, 4.0];
        let device = Device::flex();
        let built = to_dense(&SparseRows::from_dense(&dense, 4), 4, &device);
        assert_eq!(built.dims(), [3, 4]);
        assert_eq!(built.into_data().try_into_vec::<f32>().unwrap(), dense);
    }

    #[test]
    fn the_sparse_product_equals_the_dense_one_with_its_gradient() {
        let device = Device::flex().autodiff();
        let layer = LinearConfig::new(6, 3).init(&device);
        let dense = vec![
            0.0, 1.0, 0.0, 0.0, 2.0, 0.0, //
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, //
            1.0, 0.0, 0.0, 1.0, 0.0, 0.5,
        ];
        let x = Tensor::<2>::from_data(TensorData::new(dense.clone(), [3, 6]), &device);
        let expected = layer.forward(x);
        let sparse = forward(&layer, &SparseRows::from_dense(&dense, 6));
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().unwrap();
        let gap = |a: Vec<f32>, b: Vec<f32>| {
            a.iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max)
        };
        assert!(gap(host(expected.clone()), host(sparse.clone())) < 1e-6);
        let weight_grad = |out: Tensor<2>| {
            let grads = (out.clone() * out).sum().backward();
            host(layer.weight.val().grad(&grads).expect("a weight gradient"))
        };
        assert!(gap(weight_grad(expected), weight_grad(sparse)) < 1e-5);
    }
}
