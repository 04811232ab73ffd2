//! A linear layer whose sums run in an order fixed by burnmate, not by the CPU.
//!
//! burn-flex multiplies matrices with the `gemm` crate, which splits a dot product
//! longer than 512 terms into blocks sized from the CPU's L1 cache (read from
//! `/sys/devices/system/cpu`): 512 terms on a 32 KiB 8-way L1, 1024 on a 48 KiB
//! 12-way one. Each block is summed separately, so the same weights give results
//! that differ in the last bits from one CPU to another. Up to 512 terms the
//! block is the whole sum on every CPU. [`forward`] therefore cuts longer inner
//! dimensions itself, at multiples of [`MAX_TERMS`], and adds the partial products
//! left to right: a seeded run then computes the same bits on any x86-64 CPU with
//! FMA, whatever its caches.

use burn::nn::Linear;
use burn::tensor::Tensor;

/// The most terms one matrix product sums; `gemm` never splits a sum this short.
pub const MAX_TERMS: usize = 512;

/// `x W + b` for a batch of rows `x: [batch, inputs]`, the inner dimension cut
/// into blocks of [`MAX_TERMS`] whose products are added in order.
pub fn forward(layer: &Linear, x: Tensor<2>) -> Tensor<2> {
    let [_, inputs] = x.dims();
    if inputs <= MAX_TERMS {
        return layer.forward(x);
    }
    let weight = layer.weight.val();
    let product = (0..inputs)
        .step_by(MAX_TERMS)
        .map(|start| {
            let end = (start + MAX_TERMS).min(inputs);
            x.clone()
                .slice([0..x.dims()[0], start..end])
                .matmul(weight.clone().slice([start..end, 0..weight.dims()[1]]))
        })
        .reduce(|sum, part| sum + part)
        .expect("inputs > MAX_TERMS > 0");
    match &layer.bias {
        Some(bias) => product + bias.val().unsqueeze(),
        None => product,
    }
}
