//! PyTorch's Adam (`torch.optim.Adam` defaults: betas 0.9 and 0.999, epsilon 1e-8,
//! no weight decay) for a [`DeepMlp`]. Per parameter tensor, at its step `t`:
//!
//! ```text
//! m = b1 * m + (1 - b1) * g
//! v = b2 * v + (1 - b2) * g^2
//! p = p - lr * (m * c) / (sqrt(v) + eps * sqrt(1 - b2^t)),   c = sqrt(1 - b2^t) / (1 - b1^t)
//! ```
//!
//! in burn-optim's order of float operations, so runs keep burn's Adam's numbers bit
//! for bit. On a CPU backend the moments live in host memory and one fused loop updates
//! each tensor (burn's Adam runs 13 tensor ops per tensor: a third of a knight DQN
//! update on flex); on a GPU the same rule runs as tensor ops on the device.

use burn::module::Param;
use burn::nn::Linear;
use burn::optim::GradientsParams;
use burn::tensor::{Device, Tensor, TensorData};
use burnmate_models::DeepMlp;
use serde::{Deserialize, Serialize};

use crate::error::AgentError;
use crate::host_memory::{host, in_host_memory};

mod fused;

/// First-moment decay.
const BETA_1: f32 = 0.9;
/// Second-moment decay.
const BETA_2: f32 = 0.999;
/// Added to the denominator (PyTorch's default; burn's `AdamConfig` default is 1e-5).
const EPSILON: f32 = 1e-8;

/// The saved moments of one parameter tensor (weights then bias, layer by layer).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedMoments {
    /// Steps this tensor has taken.
    pub steps: u32,
    /// First moment `m`, one value per parameter.
    pub first: Vec<f32>,
    /// Second moment `v`, one value per parameter.
    pub second: Vec<f32>,
}

/// Where a tensor's moments live.
enum Moments {
    /// Host vectors, updated by one fused loop (CPU backends).
    Host { first: Vec<f32>, second: Vec<f32> },
    /// Flat device tensors, updated by tensor ops (GPU backends).
    Device {
        first: Box<Tensor<1>>,
        second: Box<Tensor<1>>,
    },
}

/// One parameter tensor's Adam state.
struct Slot {
    steps: u32,
    moments: Moments,
}

/// The scalars of one step: the learning rate and the bias corrections at step `t`.
struct StepScalars {
    lr: f32,
    correction: f32,
    epsilon: f32,
}

impl StepScalars {
    fn at(t: u32, lr: f64) -> StepScalars {
        let t = t as i32;
        let bias_correction2_sqrt = (1.0 - BETA_2.powi(t)).sqrt();
        StepScalars {
            lr: lr as f32,
            correction: bias_correction2_sqrt / (1.0 - BETA_1.powi(t)),
            epsilon: EPSILON * bias_correction2_sqrt,
        }
    }
}

/// One tensor's Adam state on the host: its steps and moments.
#[derive(Clone, Debug, Default)]
pub struct HostMoments {
    steps: u32,
    first: Vec<f32>,
    second: Vec<f32>,
}

impl HostMoments {
    /// Fresh moments (no steps) for `len` values.
    pub fn new(len: usize) -> HostMoments {
        HostMoments {
            steps: 0,
            first: vec![0.0; len],
            second: vec![0.0; len],
        }
    }

    /// One Adam step at rate `lr` of `values` with `gradient`, by the rule above,
    /// in chunks on the threads of the current rayon pool (element by element: the
    /// same bits on any number of threads).
    pub fn step(&mut self, lr: f64, values: &mut [f32], gradient: &[f32]) {
        use rayon::prelude::*;
        /// Values a thread updates at once.
        const CHUNK: usize = 16 * 1024;
        self.steps += 1;
        let scalars = StepScalars::at(self.steps, lr);
        if values.len() <= CHUNK {
            // One chunk: not worth waking the pool.
            let (m, v) = (&mut self.first, &mut self.second);
            return fused::adam_step(&scalars, values, gradient, m, v);
        }
        values
            .par_chunks_mut(CHUNK)
            .zip(gradient.par_chunks(CHUNK))
            .zip(self.first.par_chunks_mut(CHUNK))
            .zip(self.second.par_chunks_mut(CHUNK))
            .for_each(|(((p, g), m), v)| fused::adam_step(&scalars, p, g, m, v));
    }
}

/// Adam over every parameter of one [`DeepMlp`].
pub struct Adam {
    slots: Vec<Slot>,
}

impl Adam {
    /// Fresh state (zero moments, no steps) for `net` on `device`.
    pub fn new(net: &DeepMlp, device: &Device) -> Adam {
        let saved = parameter_sizes(net)
            .map(|n| SavedMoments {
                steps: 0,
                first: vec![0.0; n],
                second: vec![0.0; n],
            })
            .collect::<Vec<_>>();
        Adam::restore(net, &saved, device).expect("sizes taken from the network")
    }

    /// The state of [`Adam::save`] for `net` on `device`; errors name a moment that
    /// does not fit the network.
    pub fn restore(
        net: &DeepMlp,
        saved: &[SavedMoments],
        device: &Device,
    ) -> Result<Adam, AgentError> {
        Adam::placed(net, saved, device, in_host_memory(device))
    }

    /// [`Adam::restore`] with the moments in host memory or on the device.
    fn placed(
        net: &DeepMlp,
        saved: &[SavedMoments],
        device: &Device,
        on_host: bool,
    ) -> Result<Adam, AgentError> {
        let sizes: Vec<usize> = parameter_sizes(net).collect();
        if saved.len() != sizes.len() {
            return Err(AgentError::Shape(format!(
                "the optimiser state holds {} parameter tensors, the network {}",
                saved.len(),
                sizes.len()
            )));
        }
        let inner = device.clone().without_autodiff();
        let slots = saved
            .iter()
            .zip(sizes)
            .enumerate()
            .map(|(i, (s, n))| {
                if s.first.len() != n || s.second.len() != n {
                    return Err(AgentError::Shape(format!(
                        "optimiser moments {i} do not hold {n} values"
                    )));
                }
                let moments = if on_host {
                    Moments::Host {
                        first: s.first.clone(),
                        second: s.second.clone(),
                    }
                } else {
                    let flat = |v: &Vec<f32>| {
                        Box::new(Tensor::from_data(TensorData::new(v.clone(), [n]), &inner))
                    };
                    Moments::Device {
                        first: flat(&s.first),
                        second: flat(&s.second),
                    }
                };
                Ok(Slot {
                    steps: s.steps,
                    moments,
                })
            })
            .collect::<Result<_, AgentError>>()?;
        Ok(Adam { slots })
    }

    /// Host copies of the moments (to continue exactly).
    pub fn save(&self) -> Vec<SavedMoments> {
        self.slots
            .iter()
            .map(|slot| {
                let (first, second) = match &slot.moments {
                    Moments::Host { first, second } => (first.clone(), second.clone()),
                    Moments::Device { first, second } => {
                        (host(*first.clone()), host(*second.clone()))
                    }
                };
                SavedMoments {
                    steps: slot.steps,
                    first,
                    second,
                }
            })
            .collect()
    }

    /// One step of every parameter of `net` with a gradient in `grads` (the others,
    /// like burn's optimisers, keep their value and moments). In place: a parameter
    /// nothing else holds is read without a copy.
    pub fn step(&mut self, lr: f64, net: &mut DeepMlp, mut grads: GradientsParams) {
        let mut slots = self.slots.iter_mut();
        let mut next = || slots.next().expect("one slot per parameter tensor");
        net.layers = std::mem::take(&mut net.layers)
            .into_iter()
            .map(|layer| Linear {
                weight: next().update(lr, layer.weight, &mut grads),
                bias: layer.bias.map(|bias| next().update(lr, bias, &mut grads)),
            })
            .collect();
    }
}

impl Slot {
    fn update<const D: usize>(
        &mut self,
        lr: f64,
        param: Param<Tensor<D>>,
        grads: &mut GradientsParams,
    ) -> Param<Tensor<D>> {
        let (id, value, mapper) = param.consume();
        let Some(grad) = grads.remove::<D>(id) else {
            return Param::from_mapped_value(id, value, mapper);
        };
        self.steps += 1;
        let scalars = StepScalars::at(self.steps, lr);
        let shape = value.shape();
        let value = value.inner();
        let updated = match &mut self.moments {
            Moments::Host { first, second } => {
                let device = value.device();
                let mut p = host(value);
                fused::adam_step(&scalars, &mut p, &host(grad), first, second);
                Tensor::<D>::from_data(TensorData::new(p, shape), &device)
            }
            Moments::Device { first, second } => {
                // ALGO: the same rule as tensor ops, in burn-optim's order.
                let n = shape.num_elements();
                let g: Tensor<1> = grad.reshape([n]);
                **first = (**first)
                    .clone()
                    .mul_scalar(BETA_1)
                    .add(g.clone().mul_scalar(1.0 - BETA_1));
                **second = (**second)
                    .clone()
                    .mul_scalar(BETA_2)
                    .add(g.square().mul_scalar(1.0 - BETA_2));
                let step = (**first)
                    .clone()
                    .mul_scalar(scalars.correction)
                    .div((**second).clone().sqrt().add_scalar(scalars.epsilon))
                    .mul_scalar(scalars.lr);
                (value.reshape([n]) - step).reshape(shape)
            }
        };
        Param::from_mapped_value(id, Tensor::from_inner(updated).require_grad(), mapper)
    }
}

/// Values per parameter tensor, weights then bias, layer by layer.
fn parameter_sizes(net: &DeepMlp) -> impl Iterator<Item = usize> + '_ {
    net.layers.iter().flat_map(|layer| {
        let [inputs, outputs] = layer.weight.dims();
        std::iter::once(inputs * outputs).chain(layer.bias.as_ref().map(|_| outputs))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::pytorch_adam;
    use burn::tensor::Tensor;
    use burnmate_models::LayerWeights;

    fn layer(inputs: usize, outputs: usize, seed: f32) -> LayerWeights {
        let values = |n: usize, k: f32| {
            (0..n)
                .map(|i| ((i as f32 + k) * 0.37).sin() * 0.5)
                .collect()
        };
        LayerWeights {
            inputs,
            outputs,
            weight: values(inputs * outputs, seed),
            bias: values(outputs, seed + 1.0),
        }
    }

    fn device() -> Device {
        Device::flex().autodiff()
    }

    fn net() -> DeepMlp {
        DeepMlp::from_weights(&[layer(3, 5, 0.0), layer(5, 2, 7.0)], &device()).unwrap()
    }

    fn grads(net: &DeepMlp, step: usize) -> GradientsParams {
        let x = Tensor::<2>::from_data(
            TensorData::new(vec![0.5, -1.0, 2.0 + step as f32, 1.5, 0.25, -0.75], [2, 3]),
            &device(),
        );
        let loss = net.forward(x).powf_scalar(2.0).mean();
        GradientsParams::from_grads(loss.backward(), net)
    }

    /// `steps` updates of `net` by `step`, each on the loss's gradient at the current weights.
    fn train(
        mut net: DeepMlp,
        steps: usize,
        mut step: impl FnMut(&mut DeepMlp, GradientsParams),
    ) -> DeepMlp {
        for i in 0..steps {
            let g = grads(&net, i);
            step(&mut net, g);
        }
        net
    }

    fn on_device(net: &DeepMlp) -> Adam {
        let fresh = Adam::new(net, &device()).save();
        Adam::placed(net, &fresh, &device(), false).unwrap()
    }

    #[test]
    fn host_and_device_steps_give_burns_adam_bit_for_bit() {
        let mut burn_adam = pytorch_adam();
        let by_burn = train(net(), 6, |n, g| *n = burn_adam.step(1e-2, n.clone(), g)).weights();
        let mut host = Adam::new(&net(), &device());
        assert!(
            matches!(host.slots[0].moments, Moments::Host { .. }),
            "flex keeps moments on the host"
        );
        let by_host = train(net(), 6, |n, g| host.step(1e-2, n, g)).weights();
        let mut tensors = on_device(&net());
        let by_tensor_ops = train(net(), 6, |n, g| tensors.step(1e-2, n, g)).weights();
        assert_ne!(by_burn, net().weights(), "the weights moved");
        assert_eq!(by_host, by_burn);
        assert_eq!(by_tensor_ops, by_burn);
        assert_eq!(host.save(), tensors.save(), "the same moments either way");
    }

    #[test]
    fn the_first_step_moves_by_lr_against_the_gradients_sign() {
        // t = 1: m = 0.1 g, v = 0.001 g^2, so (m c) / sqrt(v) = sign(g) up to epsilon.
        let before = net().weights();
        let mut adam = Adam::new(&net(), &device());
        let after = train(net(), 1, |n, g| adam.step(0.25, n, g)).weights();
        let saved = adam.save();
        for (i, (b, a)) in before.iter().zip(&after).enumerate() {
            let g = &saved[2 * i].first;
            for ((&w0, &w1), &m) in b.weight.iter().zip(&a.weight).zip(g) {
                assert!(
                    (w0 - w1 - 0.25 * m.signum()).abs() < 1e-6,
                    "{w0} -> {w1} with m {m}"
                );
            }
        }
        assert!(saved.iter().all(|s| s.steps == 1));
    }

    #[test]
    fn saved_moments_continue_exactly() {
        let mut straight = Adam::new(&net(), &device());
        let five = train(net(), 5, |n, g| straight.step(1e-2, n, g)).weights();
        let mut first = Adam::new(&net(), &device());
        let three = train(net(), 3, |n, g| first.step(1e-2, n, g));
        let mut resumed = Adam::restore(&three, &first.save(), &device()).unwrap();
        let mut i = 3;
        let two_more = train(three, 2, |n, _| {
            let g = grads(n, i);
            i += 1;
            resumed.step(1e-2, n, g)
        });
        assert_eq!(two_more.weights(), five);
    }

    #[test]
    fn moments_that_do_not_fit_the_network_are_refused() {
        let mut saved = Adam::new(&net(), &device()).save();
        saved[1].second.pop();
        let err = Adam::restore(&net(), &saved, &device()).err().unwrap();
        assert_eq!(
            err,
            AgentError::Shape("optimiser moments 1 do not hold 5 values".into())
        );
        let err = Adam::restore(&net(), &saved[..3], &device()).err().unwrap();
        assert_eq!(
            err.to_string(),
            "the optimiser state holds 3 parameter tensors, the network 4"
        );
    }
}
