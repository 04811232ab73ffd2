//! The policy-value network of the search learner: one MLP from a position seen from
//! its side to move to `actions` policy logits, one value and, optionally, the plies
//! left to the game's end (Lc0's moves-left head). The last layer's outputs are the
//! logits, then the value's pre-activation (`v = tanh(o_v)`), then the moves left
//! in units of [`MOVES_LEFT_SCALE`] plies (`m = MOVES_LEFT_SCALE * max(o_m, 0)`), so
//! the heads share the trunk (as AlphaZero's two heads share its tower) and the
//! network and its Adam are those of every MLP here.
//!
//! Loss per batch of positions `s` with visit-count targets `pi`, values `z` and
//! plies left `d`:
//!
//! ```text
//! L = mean_s [ (z - tanh(o_v(s)))^2  -  sum_{a legal in s} pi(a|s) * log softmax_legal(o_p(s))_a
//!              + (d / MOVES_LEFT_SCALE - o_m(s))^2 ]        (the last term with the head)
//! ```
//!
//! The softmax runs over the legal moves of `s` only, as the search reads the priors
//! and as OpenSpiel's AlphaZero model masks its logits (pgx's example keeps the full
//! softmax): the loss gathers each position's legal logits (padded to the batch's
//! widest with shifted copies, [`ILLEGAL_LOGIT_SHIFT`]). A dense softmax over all
//! 4,168 logits with the illegal ones shifted spent a quarter of KRK's training time
//! in `expf`'s underflow path (perf, 2-core AMD EPYC). So the net
//! spends no gradient on pushing down the ~4,140 illegal moves of a position. No L2
//! term: Adam's steps are small and the replay is refreshed by self-play. On a GPU
//! the same loss comes from all logits with the illegal ones masked: burn's GPU
//! gradient of a gather walks the batch's indices one after another (4.45 ms a
//! launch on an H100; the update went from 21.6 to 8-9 ms without it).
//!
//! The search needs the logits of a leaf's legal moves only (20-40 of 4168 in
//! chess): its evaluations run the hidden layers on the backend and the last layer
//! on the host, for the legal moves and the value alone, from a host copy of that
//! layer refreshed after each update (the last layer was 70 % of the search's
//! arithmetic; the sums are burnmate's own, in a fixed order).
//!
//! In an endgame the first layer reads each row's non-zero inputs alone
//! ([`DeepMlp::hidden_of_rows`]): an endgame sets about 6 of the 779 inputs, and the
//! dense product with them was ~80 % of the update's multiply-adds.

use std::cell::RefCell;

use burn::module::Module;
use burn::optim::GradientsParams;
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, IndexingUpdateOp, Int, Tensor, TensorData};
use burnmate_env::environment::Encoder;
use burnmate_models::sparse_input::{self, SparseRows};
use burnmate_models::{DeepMlp, LayerWeights};
use rand::Rng;

use crate::adam::{Adam, SavedMoments};
use crate::error::AgentError;
use crate::host_memory::in_host_memory;
use crate::search::{Leaf, LeafEvaluation, LeafEvaluator};

/// The network and its optimiser.
pub struct PolicyValueNet {
    net: DeepMlp,
    optimizer: Adam,
    device: Device,
    features: usize,
    actions: usize,
    /// Whether the last output is the moves-left head.
    moves_left: bool,
    /// The last layer on the host, one row of `hidden` weights per output, then
    /// the biases; `None` after an update until the next evaluation.
    head: RefCell<Option<HostHead>>,
    /// Whether the update gathers the legal logits and the first layer's rows of the
    /// set inputs (in host memory), or masks all logits and takes dense products (on
    /// a GPU, where burn's gradient of a gather runs one index after another).
    gather_logits: bool,
}

/// The last layer transposed (one contiguous row per output) and its biases.
struct HostHead {
    rows: Vec<f32>,
    bias: Vec<f32>,
    hidden: usize,
}

/// Plies per unit of the moves-left output (a target of 40 plies is 4.0).
pub const MOVES_LEFT_SCALE: f32 = 10.0;

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
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Mean squared value error.
    pub value: f32,
    /// Mean cross-entropy of the policy against the visit targets.
    pub policy: f32,
    /// Mean squared moves-left error in units of [`MOVES_LEFT_SCALE`] (0 without
    /// the head).
    pub moves_left: f32,
}

/// What the network learns from one position besides its policy: the value for
/// the side to move and the plies left to the game's end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ValueTarget {
    /// The value target in -1..=1.
    pub value: f32,
    /// The plies-left target (read only by a network with a moves-left head).
    pub moves_left: f32,
}

impl PolicyValueNet {
    /// A fresh network `features -> hidden.. -> actions + 1 (+ 1 with the
    /// moves-left head)` (PyTorch's default initialisation, drawn from `rng`);
    /// `device` must have autodiff enabled.
    ///
    /// # Panics
    /// If `hidden` is empty.
    pub fn new(
        features: usize,
        hidden: &[usize],
        actions: usize,
        moves_left: bool,
        device: Device,
        rng: &mut impl Rng,
    ) -> PolicyValueNet {
        assert!(
            !hidden.is_empty(),
            "a policy-value net needs a hidden layer"
        );
        let sizes: Vec<usize> = std::iter::once(features)
            .chain(hidden.iter().copied())
            .chain(std::iter::once(actions + 1 + usize::from(moves_left)))
            .collect();
        let layers = crate::init::uniform_layers(&sizes, rng);
        PolicyValueNet::from_layers(&layers, actions, device).expect("consistent sizes")
    }

    /// A network with the given layers (a snapshot of [`PolicyValueNet::weights`])
    /// and a fresh optimiser; its policy has `actions` outputs, then the value, then
    /// the moves left where the last layer has one more output.
    pub fn from_layers(
        layers: &[LayerWeights],
        actions: usize,
        device: Device,
    ) -> Result<PolicyValueNet, AgentError> {
        let [first, .., last] = layers else {
            return Err(AgentError::Shape(
                "a policy-value net needs a hidden layer".into(),
            ));
        };
        let moves_left = match last.outputs.checked_sub(actions) {
            Some(1) => false,
            Some(2) => true,
            _ => {
                return Err(AgentError::Shape(format!(
                    "a policy-value net over {actions} moves has {} or {} outputs, not {}",
                    actions + 1,
                    actions + 2,
                    last.outputs
                )));
            }
        };
        let features = first.inputs;
        let net = DeepMlp::from_weights(layers, &device).map_err(AgentError::Shape)?;
        Ok(PolicyValueNet {
            gather_logits: in_host_memory(&device),
            optimizer: Adam::new(&net, &device),
            net,
            device,
            features,
            actions,
            moves_left,
            head: RefCell::new(None),
        })
    }

    /// A network with the given layers and Adam moments (a snapshot of
    /// [`PolicyValueNet::weights`] and [`PolicyValueNet::moments`]): training goes
    /// on exactly where it stood.
    pub fn restore(
        layers: &[LayerWeights],
        moments: &[SavedMoments],
        actions: usize,
        device: Device,
    ) -> Result<PolicyValueNet, AgentError> {
        let mut net = PolicyValueNet::from_layers(layers, actions, device)?;
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

    /// Whether the network predicts the plies left to the game's end.
    pub fn has_moves_left(&self) -> bool {
        self.moves_left
    }

    /// For each row of `rows` and its `legal` policy indices: the softmax of their
    /// logits, the value `tanh(o_v)` and the moves left (0 without the head),
    /// computed as described in the module doc.
    pub fn evaluate_rows(&self, rows: Vec<f32>, legal: &[&[usize]]) -> Vec<LeafEvaluation> {
        let n = legal.len();
        if n == 0 {
            return Vec::new();
        }
        let hidden = self
            .net
            .valid()
            .hidden_of_rows(rows)
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
                LeafEvaluation {
                    priors: softmax(&logits),
                    value: logit(self.actions).tanh(),
                    moves_left: if self.moves_left {
                        MOVES_LEFT_SCALE * logit(self.actions + 1).max(0.0)
                    } else {
                        0.0
                    },
                }
            })
            .collect()
    }

    /// A host copy of the last layer, transposed (one download of its weights and
    /// one of its biases; the other layers stay where they are). Each output's row
    /// is written in order, reading one column of the stored weight (whose cache
    /// lines serve the next outputs' rows too).
    fn host_head(&self) -> HostHead {
        let last = self.net.layers.last().expect("a network has layers");
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().expect("f32 weights");
        let [hidden, outputs] = last.weight.dims();
        let weight = host(last.weight.val());
        let mut rows = vec![0.0; hidden * outputs];
        for (a, row) in rows.chunks_exact_mut(hidden).enumerate() {
            for (j, w) in row.iter_mut().enumerate() {
                *w = weight[j * outputs + a];
            }
        }
        let bias = last.bias.as_ref().expect("layers have biases").val();
        HostHead {
            rows,
            bias: host(bias.unsqueeze()),
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
        values: &[ValueTarget],
    ) -> Losses {
        let n = values.len();
        let dense = |data: Vec<f32>, width: usize| {
            Tensor::<2>::from_data(TensorData::new(data, [n, width]), &self.device)
        };
        let z = dense(values.iter().map(|t| t.value).collect(), 1);
        let (hidden, policy_loss) = self.hidden_and_policy_loss(rows, targets);
        let (weight, bias) = self.last_layer();
        let [units, outputs] = weight.dims();
        let out = hidden.matmul(weight.slice([0..units, self.actions..outputs]))
            + bias.slice(self.actions..outputs).unsqueeze();
        let v = out.clone().slice([0..n, 0..1]).tanh();
        let value_loss = (v - z).powf_scalar(2.0).mean();
        let mut parts = vec![value_loss, policy_loss];
        if self.moves_left {
            let d = values
                .iter()
                .map(|t| t.moves_left / MOVES_LEFT_SCALE)
                .collect();
            let m = out.slice([0..n, 1..2]);
            parts.push((m - dense(d, 1)).powf_scalar(2.0).mean());
        }
        // The parts' values in one download (each download waits for the device).
        let read: Vec<f32> = Tensor::cat(parts.iter().map(|t| t.clone().detach()).collect(), 0)
            .into_data()
            .try_into_vec()
            .expect("f32 losses");
        let losses = Losses {
            value: read[0],
            policy: read[1],
            moves_left: read.get(2).copied().unwrap_or(0.0),
        };
        let loss = parts
            .into_iter()
            .reduce(|sum, part| sum + part)
            .expect("two parts at least");
        let grads = GradientsParams::from_grads(loss.backward(), &self.net);
        self.optimizer.step(lr, &mut self.net, grads);
        self.head.replace(None);
        losses
    }

    /// The hidden activations of `rows` and the policy cross-entropy against
    /// `targets` over the legal moves alone: gathered on the host, masked on a GPU
    /// (same loss, same step; see `gather_logits`).
    fn hidden_and_policy_loss(
        &self,
        rows: Vec<f32>,
        targets: &[PolicyTarget],
    ) -> (Tensor<2>, Tensor<1>) {
        let slots = LegalSlots::of(targets);
        if self.gather_logits {
            let hidden = self.net.hidden_of_rows(rows);
            (hidden.clone(), self.gathered_policy_loss(hidden, &slots))
        } else {
            // A GPU gets each row's set entries and takes the dense product: the
            // gathering first layer's gradient would go through `select_assign` too.
            let sparse = SparseRows::from_dense(&rows, self.features);
            let dense = sparse_input::to_dense(&sparse, self.features, &self.device);
            let hidden = self.net.hidden(dense);
            (hidden.clone(), self.masked_policy_loss(hidden, &slots))
        }
    }

    /// The last layer's weight and bias.
    fn last_layer(&self) -> (Tensor<2>, Tensor<1>) {
        let last = self.net.layers.last().expect("a network has layers");
        let bias = last.bias.as_ref().expect("layers have biases").val();
        (last.weight.val(), bias)
    }

    /// The policy loss from the legal logits alone: each slot's column of the last
    /// layer times its row's hidden activations (the other ~4,130 logits of a chess
    /// position would get no gradient anyway; computing all of them was most of the
    /// update's arithmetic on the CPU). The columns are gathered as rows of the
    /// transposed weight: whole rows copy faster than columns of the stored one.
    fn gathered_policy_loss(&self, hidden: Tensor<2>, slots: &LegalSlots) -> Tensor<1> {
        let (n, width) = (slots.rows, slots.width);
        let (weight, bias) = self.last_layer();
        let units = weight.dims()[0];
        let indices = Tensor::<1, Int>::from_data(
            TensorData::new(slots.indices.clone(), [n * width]),
            &self.device,
        );
        let slot_values = |data: &[f32]| {
            Tensor::<2>::from_data(TensorData::new(data.to_vec(), [n, width]), &self.device)
        };
        let columns = weight
            .transpose()
            .select(0, indices.clone())
            .reshape([n, width, units])
            .swap_dims(1, 2);
        let logits = hidden
            .unsqueeze_dim::<3>(1)
            .matmul(columns)
            .reshape([n, width])
            + bias.select(0, indices).reshape([n, width])
            + slot_values(&slots.shift);
        let pi = slot_values(&slots.shares);
        (pi * log_softmax(logits, 1)).sum_dim(1).mean().neg()
    }

    /// The same loss from all the logits, the illegal ones masked to
    /// [`ILLEGAL_LOGIT_SHIFT`], the targets scattered onto the move axis on the
    /// device. On a GPU the dense product is cheap, while the gathered loss's
    /// gradient scatters back into the last layer with burn's `select_assign`
    /// kernel, which walks all of the batch's slots one after another in one thread
    /// per hidden unit (one thread for the bias).
    fn masked_policy_loss(&self, hidden: Tensor<2>, slots: &LegalSlots) -> Tensor<1> {
        let (n, width) = (slots.rows, slots.width);
        let (weight, bias) = self.last_layer();
        let units = weight.dims()[0];
        let indices = Tensor::<2, Int>::from_data(
            TensorData::new(slots.indices.clone(), [n, width]),
            &self.device,
        );
        let on_moves = |data: Vec<f32>| {
            let values = Tensor::<2>::from_data(TensorData::new(data, [n, width]), &self.device);
            Tensor::<2>::zeros([n, self.actions], &self.device).scatter(
                1,
                indices.clone(),
                values,
                IndexingUpdateOp::Add,
            )
        };
        let legal = on_moves(slots.shift.iter().map(|&s| f32::from(s == 0.0)).collect());
        let pi = on_moves(slots.shares.clone());
        let logits = (hidden.matmul(weight.slice([0..units, 0..self.actions]))
            + bias.slice(0..self.actions).unsqueeze())
        .mask_fill(legal.equal_elem(0.0), ILLEGAL_LOGIT_SHIFT);
        (pi * log_softmax(logits, 1)).sum_dim(1).mean().neg()
    }
}

/// A batch's policy targets side by side, each position's legal moves padded to the
/// widest: a padded slot repeats the position's first move with target 0 and
/// [`ILLEGAL_LOGIT_SHIFT`] (no probability).
struct LegalSlots {
    rows: usize,
    width: usize,
    indices: Vec<i64>,
    shares: Vec<f32>,
    /// 0 for a legal move, [`ILLEGAL_LOGIT_SHIFT`] for a padded slot.
    shift: Vec<f32>,
}

impl LegalSlots {
    fn of(targets: &[PolicyTarget]) -> LegalSlots {
        let width = targets.iter().map(|t| t.actions.len()).max().unwrap_or(1);
        let mut slots = LegalSlots {
            rows: targets.len(),
            width,
            indices: Vec::with_capacity(targets.len() * width),
            shares: Vec::with_capacity(targets.len() * width),
            shift: Vec::with_capacity(targets.len() * width),
        };
        for target in targets {
            for slot in 0..width {
                let real = slot < target.actions.len();
                let at = if real { slot } else { 0 };
                slots.indices.push(target.actions[at] as i64);
                slots
                    .shares
                    .push(if real { target.shares[slot] } else { 0.0 });
                slots
                    .shift
                    .push(if real { 0.0 } else { ILLEGAL_LOGIT_SHIFT });
            }
        }
        slots
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

impl<P, X: Encoder<P>> LeafEvaluator<P> for NetEvaluator<'_, X> {
    fn evaluate(&mut self, leaves: &[Leaf<'_, P>]) -> Vec<LeafEvaluation> {
        let width = self.net.features;
        let mut rows = vec![0.0; leaves.len() * width];
        for (leaf, row) in leaves.iter().zip(rows.chunks_mut(width)) {
            self.encoder.encode(leaf.position, row);
        }
        let legal: Vec<&[usize]> = leaves.iter().map(|leaf| leaf.actions).collect();
        self.net.evaluate_rows(rows, &legal)
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
        PolicyValueNet::new(6, &[8, 5], 4, false, Device::flex().autodiff(), &mut rng)
    }

    fn net_with_moves_left(seed: u64) -> PolicyValueNet {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        PolicyValueNet::new(6, &[8, 5], 4, true, Device::flex().autodiff(), &mut rng)
    }

    fn target(value: f32) -> ValueTarget {
        ValueTarget {
            value,
            moves_left: 0.0,
        }
    }

    fn rows() -> Vec<f32> {
        (0..12).map(|i| (i as f32 * 0.37).sin()).collect()
    }

    #[test]
    fn the_host_head_gives_the_full_networks_priors_and_value() {
        let net = net(1);
        let outputs = outputs(&net, rows());
        let legal: [&[usize]; 2] = [&[0, 2, 3], &[1]];
        let got = net.evaluate_rows(rows(), &legal);
        for (k, evaluation) in got.iter().enumerate() {
            let out = &outputs[k * 5..(k + 1) * 5];
            let want = legal_softmax(out, legal[k]);
            for (p, w) in evaluation.priors.iter().zip(&want) {
                assert!((p - w).abs() < 1e-6, "{evaluation:?} vs {want:?}");
            }
            assert!((evaluation.value - out[4].tanh()).abs() < 1e-6);
            assert_eq!(evaluation.moves_left, 0.0);
        }
        assert_eq!(got[1].priors, vec![1.0]);
    }

    #[test]
    fn the_moves_left_head_is_the_last_output_scaled_and_learns_its_squared_error() {
        let mut net = net_with_moves_left(4);
        let row: Vec<f32> = rows()[..6].to_vec();
        let out = outputs(&net, row.clone());
        assert_eq!(out.len(), 6, "4 logits, the value, the moves left");
        let got = net.evaluate_rows(row.clone(), &[&[0, 1]]).remove(0);
        assert!((got.moves_left - MOVES_LEFT_SCALE * out[5].max(0.0)).abs() < 1e-5);
        let policy = [PolicyTarget {
            actions: vec![0, 1],
            shares: vec![0.5, 0.5],
        }];
        let want = ValueTarget {
            value: 0.2,
            moves_left: 13.0,
        };
        let first = net.update(1e-3, row.clone(), &policy, &[want]);
        let expected = (13.0 / MOVES_LEFT_SCALE - out[5]).powi(2);
        assert!(
            (first.moves_left - expected).abs() < 1e-5,
            "{first:?} vs {expected}"
        );
        for _ in 0..300 {
            net.update(1e-2, row.clone(), &policy, &[want]);
        }
        let learned = net.evaluate_rows(row, &[&[0, 1]]).remove(0).moves_left;
        assert!((learned - 13.0).abs() < 0.5, "{learned}");
    }

    #[test]
    fn a_net_is_rebuilt_from_its_layers_with_or_without_the_moves_left_head() {
        let device = Device::flex().autodiff();
        let plain = PolicyValueNet::from_layers(&net(1).weights(), 4, device.clone()).unwrap();
        let with =
            PolicyValueNet::from_layers(&net_with_moves_left(1).weights(), 4, device.clone())
                .unwrap();
        assert!(!plain.has_moves_left() && with.has_moves_left());
        let err = PolicyValueNet::from_layers(&net(1).weights(), 2, device)
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "a policy-value net over 2 moves has 3 or 4 outputs, not 5"
        );
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
        let losses = net.update(
            1e-3,
            row,
            &[target],
            &[ValueTarget {
                value: 0.3,
                moves_left: 0.0,
            }],
        );
        assert!(
            (losses.policy - want_policy).abs() < 1e-5,
            "{losses:?} vs {want_policy}"
        );
        assert!((losses.value - want_value).abs() < 1e-6);
    }

    #[test]
    fn the_masked_policy_loss_of_a_gpu_equals_the_gathered_one_and_so_does_its_step() {
        let (mut gathered, mut masked) = (net_with_moves_left(5), net_with_moves_left(5));
        masked.gather_logits = false;
        let targets = [
            PolicyTarget {
                actions: vec![3, 0, 2],
                shares: vec![0.5, 0.25, 0.25],
            },
            PolicyTarget {
                actions: vec![1],
                shares: vec![1.0],
            },
        ];
        let values = [target(0.4), target(-0.7)];
        for step in 0..3 {
            let a = gathered.update(1e-2, rows(), &targets, &values);
            let b = masked.update(1e-2, rows(), &targets, &values);
            for (x, y) in [(a.policy, b.policy), (a.value, b.value)] {
                assert!((x - y).abs() < 1e-6, "step {step}: {a:?} vs {b:?}");
            }
        }
        let flat = |net: &PolicyValueNet| -> Vec<f32> {
            net.weights()
                .into_iter()
                .flat_map(|l| l.weight.into_iter().chain(l.bias))
                .collect()
        };
        let (a, b) = (flat(&gathered), flat(&masked));
        let gap = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max);
        assert!(gap < 1e-6, "weights differ by {gap} after three steps");
        assert_ne!(a, flat(&net_with_moves_left(5)), "the steps moved the net");
    }

    #[test]
    fn updates_move_the_policy_to_the_visits_and_the_value_to_its_target() {
        let mut net = net(2);
        let row: Vec<f32> = rows()[..6].to_vec();
        let policy = [PolicyTarget {
            actions: vec![0, 1, 2, 3],
            shares: vec![0.0, 0.0, 1.0, 0.0],
        }];
        let first = net.update(1e-2, row.clone(), &policy, &[target(-0.5)]);
        let mut last = first;
        for _ in 0..300 {
            last = net.update(1e-2, row.clone(), &policy, &[target(-0.5)]);
        }
        assert!(
            last.policy < 0.05 && last.value < 1e-3,
            "{first:?} -> {last:?}"
        );
        let got = net.evaluate_rows(row, &[&[0, 1, 2, 3]]).remove(0);
        assert!(
            got.priors[2] > 0.95 && (got.value + 0.5).abs() < 0.05,
            "{got:?}"
        );
    }
}
