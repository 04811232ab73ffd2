//! The policy-value network of the search learner: one MLP from a position seen from
//! its side to move to `actions` policy logits and one value. The last layer's
//! outputs are the logits, then the value's pre-activation (`v = tanh(o)`), so the
//! policy and value heads share the trunk (as AlphaZero's two heads share its tower)
//! and the network and its Adam are those of every MLP here.
//!
//! Loss per batch of positions `s` with visit-count targets `pi` and values `z`:
//!
//! ```text
//! L = mean_s [ (z - tanh(o_v(s)))^2  -  sum_{a legal in s} pi(a|s) * log softmax_legal(o_p(s))_a ]
//! ```
//!
//! The softmax runs over the legal moves of `s` only, as the search reads the priors
//! and as OpenSpiel's AlphaZero model masks its logits (pgx's example keeps the full
//! softmax): the loss gathers each position's legal logits (padded to the batch's
//! widest with shifted copies, [`ILLEGAL_LOGIT_SHIFT`]). A dense softmax over all
//! 4,168 logits with the illegal ones shifted spent a quarter of KRK's training time
//! in `expf`'s underflow path (perf, 2-core AMD EPYC). So the net
//! spends no gradient on pushing down the ~4,140 illegal moves of a position. No L2
//! term: Adam's steps are small and the replay is refreshed by self-play.
//!
//! The search needs the logits of a leaf's legal moves only (20-40 of 4168 in
//! chess): its evaluations run the hidden layers on the backend and the last layer
//! on the host, for the legal moves and the value alone, from a host copy of that
//! layer refreshed after each update (the last layer was 70 % of the search's
//! arithmetic; the sums are burnmate's own, in a fixed order).

use std::cell::RefCell;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use burnmate_env::environment::Encoder;
use burnmate_models::{DeepMlp, LayerWeights};
use rand::Rng;

use crate::adam::{Adam, SavedMoments};
use crate::search::{Evaluator, Leaf};

/// The network and its optimiser.
pub struct PolicyValueNet {
    net: DeepMlp,
    optimizer: Adam,
    device: Device,
    features: usize,
    actions: usize,
    /// The last layer on the host, one row of `hidden` weights per output, then
    /// the biases; `None` after an update until the next evaluation.
    head: RefCell<Option<HostHead>>,
}

/// The last layer transposed (one contiguous row per output) and its biases.
struct HostHead {
    rows: Vec<f32>,
    bias: Vec<f32>,
    hidden: usize,
}

/// Added to the logit of a padded slot before the softmax of the loss: its
/// probability is 0 in f32 and its log-probability finite (times a target of 0).
pub const ILLEGAL_LOGIT_SHIFT: f32 = -1e9;

/// One position's policy target: the policy indices of its legal moves and the
/// target share of each (summing to 1).
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyTarget {
    /// Policy indices of the legal moves.
    pub actions: Vec<usize>,
    /// Target share of each.
    pub shares: Vec<f32>,
}

/// What one update measured (before the step).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    /// Mean squared value error.
    pub value: f32,
    /// Mean cross-entropy of the policy against the visit targets.
    pub policy: f32,
}

impl PolicyValueNet {
    /// A fresh network `features -> hidden.. -> actions + 1` (PyTorch's default
    /// initialisation, drawn from `rng`); `device` must have autodiff enabled.
    pub fn new(
        features: usize,
        hidden: &[usize],
        actions: usize,
        device: Device,
        rng: &mut impl Rng,
    ) -> PolicyValueNet {
        let sizes: Vec<usize> = std::iter::once(features)
            .chain(hidden.iter().copied())
            .chain(std::iter::once(actions + 1))
            .collect();
        let layers = crate::init::uniform_layers(&sizes, rng);
        let net = DeepMlp::from_weights(&layers, &device).expect("consistent sizes");
        PolicyValueNet {
            optimizer: Adam::new(&net, &device),
            net,
            device,
            features,
            actions,
            head: RefCell::new(None),
        }
    }

    /// A network with the given layers (a snapshot of [`PolicyValueNet::weights`])
    /// and a fresh optimiser; its policy has `actions` outputs, the last the value.
    pub fn from_layers(layers: &[LayerWeights], device: Device) -> Result<PolicyValueNet, String> {
        let (Some(first), Some(last)) = (layers.first(), layers.last()) else {
            return Err("a policy-value net needs at least one layer".into());
        };
        let (features, actions) = (first.inputs, last.outputs - 1);
        let net = DeepMlp::from_weights(layers, &device)?;
        Ok(PolicyValueNet {
            optimizer: Adam::new(&net, &device),
            net,
            device,
            features,
            actions,
            head: RefCell::new(None),
        })
    }

    /// A network with the given layers and Adam moments (a snapshot of
    /// [`PolicyValueNet::weights`] and [`PolicyValueNet::moments`]): training goes
    /// on exactly where it stood.
    pub fn restore(
        layers: &[LayerWeights],
        moments: &[SavedMoments],
        device: Device,
    ) -> Result<PolicyValueNet, String> {
        let mut net = PolicyValueNet::from_layers(layers, device)?;
        net.optimizer = Adam::restore(&net.net, moments, &net.device)?;
        Ok(net)
    }

    /// The device the network lives on (with autodiff).
    pub fn device(&self) -> Device {
        self.device.clone()
    }

    /// Host copies of Adam's moments.
    pub fn moments(&self) -> Vec<SavedMoments> {
        self.optimizer.save()
    }

    /// Host copies of the layers.
    pub fn weights(&self) -> Vec<LayerWeights> {
        self.net.weights()
    }

    /// Floats per encoded position.
    pub fn features(&self) -> usize {
        self.features
    }

    /// Policy indices.
    pub fn actions(&self) -> usize {
        self.actions
    }

    /// For each row of `rows` and its `legal` policy indices: the softmax of their
    /// logits and the value `tanh(o_v)`, computed as described in the module doc.
    pub fn priors_and_values(&self, rows: Vec<f32>, legal: &[&[usize]]) -> Vec<(Vec<f32>, f32)> {
        let n = legal.len();
        if n == 0 {
            return Vec::new();
        }
        let inference = self.device.clone().without_autodiff();
        let x = Tensor::from_data(TensorData::new(rows, [n, self.features]), &inference);
        let hidden = self
            .net
            .valid()
            .hidden(x)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 activations");
        let mut head = self.head.borrow_mut();
        let head = head.get_or_insert_with(|| self.host_head());
        hidden
            .chunks(head.hidden)
            .zip(legal)
            .map(|(h, actions)| {
                let logit = |a: usize| {
                    let w = &head.rows[a * head.hidden..(a + 1) * head.hidden];
                    h.iter()
                        .zip(w)
                        .fold(head.bias[a], |sum, (x, w)| sum + x * w)
                };
                let logits: Vec<f32> = actions.iter().map(|&a| logit(a)).collect();
                (softmax(&logits), logit(self.actions).tanh())
            })
            .collect()
    }

    /// A host copy of the last layer, transposed.
    fn host_head(&self) -> HostHead {
        let last = self.net.weights().pop().expect("a network has layers");
        let (hidden, outputs) = (last.inputs, last.outputs);
        let mut rows = vec![0.0; hidden * outputs];
        for (j, row) in last.weight.chunks(outputs).enumerate() {
            for (a, &w) in row.iter().enumerate() {
                rows[a * hidden + j] = w;
            }
        }
        HostHead {
            rows,
            bias: last.bias,
            hidden,
        }
    }

    /// ALGO: one Adam step on the loss above for `rows` (`features` floats each),
    /// their policy `targets` and `values`.
    pub fn update(
        &mut self,
        lr: f64,
        rows: Vec<f32>,
        targets: &[PolicyTarget],
        values: Vec<f32>,
    ) -> Losses {
        let n = values.len();
        // Each position's legal moves side by side, padded to the widest: a padded
        // slot repeats a legal move with target 0 and the shift (no probability).
        let width = targets.iter().map(|t| t.actions.len()).max().unwrap_or(1);
        let mut indices = Vec::with_capacity(n * width);
        let mut policy = Vec::with_capacity(n * width);
        let mut shift = Vec::with_capacity(n * width);
        for target in targets {
            for slot in 0..width {
                let real = slot < target.actions.len();
                indices.push(target.actions[if real { slot } else { 0 }] as i64);
                policy.push(if real { target.shares[slot] } else { 0.0 });
                shift.push(if real { 0.0 } else { ILLEGAL_LOGIT_SHIFT });
            }
        }
        let dense = |data: Vec<f32>, width: usize| {
            Tensor::<2>::from_data(TensorData::new(data, [n, width]), &self.device)
        };
        let indices =
            Tensor::<2, Int>::from_data(TensorData::new(indices, [n, width]), &self.device);
        let (x, pi) = (dense(rows, self.features), dense(policy, width));
        let (shift, z) = (dense(shift, width), dense(values, 1));
        let out = self.net.forward(x);
        let logits = out
            .clone()
            .slice([0..n, 0..self.actions])
            .gather(1, indices)
            + shift;
        let v = out.slice([0..n, self.actions..self.actions + 1]).tanh();
        let value_loss = (v - z).powf_scalar(2.0).mean();
        let policy_loss = (pi * log_softmax(logits, 1)).sum_dim(1).mean().neg();
        let loss = value_loss.clone() + policy_loss.clone();
        let read = |t: Tensor<1>| t.detach().into_data().try_into_vec::<f32>().expect("f32")[0];
        let losses = Losses {
            value: read(value_loss),
            policy: read(policy_loss),
        };
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        self.optimizer.step(lr, &mut self.net, grads);
        self.head.replace(None);
        losses
    }
}

/// The network as the search's evaluator: positions encoded by `encoder`, priors the
/// softmax of the logits over each leaf's legal moves, values `tanh` of the last output.
pub struct NetEvaluator<'a, X> {
    /// The network.
    pub net: &'a PolicyValueNet,
    /// Its input encoding.
    pub encoder: &'a X,
}

impl<P, X: Encoder<P>> Evaluator<P> for NetEvaluator<'_, X> {
    fn evaluate(&mut self, leaves: &[Leaf<'_, P>]) -> Vec<(Vec<f32>, f32)> {
        let width = self.net.features;
        let mut rows = vec![0.0; leaves.len() * width];
        for (leaf, row) in leaves.iter().zip(rows.chunks_mut(width)) {
            self.encoder.encode(leaf.position, row);
        }
        let legal: Vec<&[usize]> = leaves.iter().map(|leaf| leaf.actions).collect();
        self.net.priors_and_values(rows, &legal)
    }
}

/// The softmax of `logits`.
fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exps: Vec<f32> = logits.iter().map(|&l| (l - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The outputs (`actions` logits, then the value's pre-activation) of each row of
    /// `rows`: one forward pass without autodiff and one download.
    fn outputs(net: &PolicyValueNet, rows: Vec<f32>) -> Vec<f32> {
        let n = rows.len() / net.features;
        if n == 0 {
            return Vec::new();
        }
        let inference = net.device.clone().without_autodiff();
        let x = Tensor::from_data(TensorData::new(rows, [n, net.features]), &inference);
        net.net
            .valid()
            .forward(x)
            .into_data()
            .try_into_vec::<f32>()
            .expect("f32 outputs")
    }

    /// The softmax of `logits` restricted to `actions`, in their order.
    fn legal_softmax(logits: &[f32], actions: &[usize]) -> Vec<f32> {
        softmax(&actions.iter().map(|&a| logits[a]).collect::<Vec<f32>>())
    }

    fn net(seed: u64) -> PolicyValueNet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        PolicyValueNet::new(6, &[8, 5], 4, Device::flex().autodiff(), &mut rng)
    }

    fn rows() -> Vec<f32> {
        (0..12).map(|i| (i as f32 * 0.37).sin()).collect()
    }

    #[test]
    fn the_host_head_gives_the_full_networks_priors_and_value() {
        let net = net(1);
        let outputs = outputs(&net, rows());
        let legal: [&[usize]; 2] = [&[0, 2, 3], &[1]];
        let got = net.priors_and_values(rows(), &legal);
        for (k, (priors, value)) in got.iter().enumerate() {
            let out = &outputs[k * 5..(k + 1) * 5];
            let want = legal_softmax(out, legal[k]);
            for (p, w) in priors.iter().zip(&want) {
                assert!((p - w).abs() < 1e-6, "{priors:?} vs {want:?}");
            }
            assert!((value - out[4].tanh()).abs() < 1e-6);
        }
        assert_eq!(got[1].0, vec![1.0]);
    }

    #[test]
    fn the_policy_loss_is_the_cross_entropy_over_the_legal_moves_alone() {
        let mut net = net(3);
        let row: Vec<f32> = rows()[..6].to_vec();
        let out = outputs(&net, row.clone());
        let target = PolicyTarget {
            actions: vec![2, 0],
            shares: vec![0.75, 0.25],
        };
        let legal = legal_softmax(&out, &target.actions);
        let want_policy = -(0.75 * legal[0].ln() + 0.25 * legal[1].ln());
        let want_value = (0.3 - out[4].tanh()).powi(2);
        let losses = net.update(1e-3, row, &[target], vec![0.3]);
        assert!(
            (losses.policy - want_policy).abs() < 1e-5,
            "{losses:?} vs {want_policy}"
        );
        assert!((losses.value - want_value).abs() < 1e-6);
    }

    #[test]
    fn updates_move_the_policy_to_the_visits_and_the_value_to_its_target() {
        let mut net = net(2);
        let row: Vec<f32> = rows()[..6].to_vec();
        let policy = [PolicyTarget {
            actions: vec![0, 1, 2, 3],
            shares: vec![0.0, 0.0, 1.0, 0.0],
        }];
        let first = net.update(1e-2, row.clone(), &policy, vec![-0.5]);
        let mut last = first;
        for _ in 0..300 {
            last = net.update(1e-2, row.clone(), &policy, vec![-0.5]);
        }
        assert!(
            last.policy < 0.05 && last.value < 1e-3,
            "{first:?} -> {last:?}"
        );
        let (priors, value) = net.priors_and_values(row, &[&[0, 1, 2, 3]]).remove(0);
        assert!(
            priors[2] > 0.95 && (value + 0.5).abs() < 0.05,
            "{priors:?} {value}"
        );
    }
}
