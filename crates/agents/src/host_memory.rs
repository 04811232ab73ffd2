//! Which devices keep tensors in host memory, and reading a tensor there.

use burn::tensor::{Device, Tensor};

/// Whether `device`'s tensors live in host memory: burn's CPU backends, flex and
/// ndarray (named by the device's `Debug` text; burn exposes the variant only behind
/// its per-backend features). There, work is cheapest as host loops and threads;
/// elsewhere (GPUs) it stays on the device.
pub fn in_host_memory(device: &Device) -> bool {
    let name = format!("{:?}", device.clone().without_autodiff());
    name.starts_with("Device<Flex") || name.starts_with("Device<NdArray")
}

/// A float tensor's values in host memory (a sync point on a GPU).
pub fn host<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32 tensors")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flex_is_in_host_memory_with_or_without_autodiff() {
        assert!(in_host_memory(&Device::flex()));
        assert!(in_host_memory(&Device::flex().autodiff()));
    }
}
