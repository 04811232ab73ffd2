//! The net's weights as integers, the way NNUE engines evaluate (Stockfish, and the
//! engines bullet trains: the scales QA = 255 and QB = 64 are theirs): the trainer
//! learns in f32, the search reads 16-bit integers, so an accumulator is half the
//! bytes to copy a ply and integer sums are the same on every CPU in any order.
//!
//! ```text
//! W1q, b1q = round(QA W1), round(QA b1)          i16: acc_q = QA acc (to rounding)
//! c_i      = clamp(acc_q_i, 0, QA)               = QA clamp(acc_i, 0, 1)
//! W2q      = round(QB W2)                        i16 (SCReLU: clipped to ±127, as
//!                                                 bullet clips W2 to ±1.98)
//! CReLU:   out_q = sum c_i W2q_i        + b2q     b2q = round(QA QB b2)
//! SCReLU:  out_q = sum (c_i W2q_i) c_i / QA + b2q  (c_i W2q_i fits i16: bullet's trick)
//! logit    = out_q / (QA QB)
//! ```
//!
//! A net whose accumulator could leave i16 (bias plus its 32 largest weights of
//! some column, at QA) is refused with the column named: no silent wrap-around.

use burnmate_weights::{Activation, LayerWeights};

/// The transformer's scale: an activation of 1 is `QA`.
pub const QA: i32 = 255;

/// The output layer's scale.
pub const QB: i32 = 64;

/// Most inputs a perspective sets at once (every piece on the board).
const MOST_INPUTS_SET: usize = 32;

/// A net's weights in integers, laid out for the search.
#[derive(Debug)]
pub struct QuantisedNet {
    /// `[inputs, hidden]`, row-major: the column of an input is a row here.
    pub transformer: Vec<i16>,
    /// `[hidden]`.
    pub transformer_bias: Vec<i16>,
    /// Per output bucket `[2 hidden]`, the side to move's half first.
    output: Vec<Vec<i16>>,
    /// Per output bucket, at scale `QA QB`.
    output_bias: Vec<i32>,
    activation: Activation,
}

impl QuantisedNet {
    /// The integers of `[transformer, output]` (`inputs -> hidden`, `2 hidden -> B`).
    pub fn new(layers: &[LayerWeights; 2], activation: Activation) -> Result<QuantisedNet, String> {
        let [transformer, output] = layers;
        let (hidden, buckets) = (transformer.outputs, output.outputs);
        let to_i16 =
            |x: f32, scale: i32| (x * scale as f32).round().clamp(-32767.0, 32767.0) as i16;
        let transformer_q: Vec<i16> = transformer.weight.iter().map(|&w| to_i16(w, QA)).collect();
        let bias_q: Vec<i16> = transformer.bias.iter().map(|&b| to_i16(b, QA)).collect();
        for (column, &bias) in bias_q.iter().enumerate() {
            let mut magnitudes: Vec<i32> = transformer_q
                .iter()
                .skip(column)
                .step_by(hidden)
                .map(|&w| i32::from(w).abs())
                .collect();
            magnitudes.sort_unstable_by(|a, b| b.cmp(a));
            let bound =
                i32::from(bias).abs() + magnitudes.iter().take(MOST_INPUTS_SET).sum::<i32>();
            if bound > i32::from(i16::MAX) {
                return Err(format!(
                    "the net's transformer column {column} can sum to {:.3} (weights this large do not fit a 16-bit accumulator at scale {QA}; the most is {:.3})",
                    bound as f32 / QA as f32,
                    f32::from(i16::MAX) / QA as f32
                ));
            }
        }
        let output_limit = match activation {
            Activation::Crelu => i16::MAX,
            Activation::Screlu => 127,
        };
        // `[2 hidden, B]` row-major, a bucket a column: one row a bucket here.
        let bucket_row = |k: usize| {
            output
                .weight
                .iter()
                .skip(k)
                .step_by(buckets)
                .map(|&w| to_i16(w, QB).clamp(-output_limit, output_limit))
                .collect()
        };
        Ok(QuantisedNet {
            transformer: transformer_q,
            transformer_bias: bias_q,
            output: (0..buckets).map(bucket_row).collect(),
            output_bias: output
                .bias
                .iter()
                .map(|&b| (b * (QA * QB) as f32).round() as i32)
                .collect(),
            activation,
        })
    }

    /// Output buckets.
    pub fn buckets(&self) -> usize {
        self.output.len()
    }

    /// `out_q` of bucket `k` for the side to move's sums `us` and the other side's
    /// `them`: the logit times `QA QB`.
    pub fn output(&self, us: &[i16], them: &[i16], k: usize) -> i32 {
        let (w_us, w_them) = self.output[k].split_at(us.len());
        let dot = |acc: &[i16], w: &[i16]| match self.activation {
            Activation::Crelu => crelu_dot(acc, w),
            Activation::Screlu => screlu_dot(acc, w) / QA,
        };
        self.output_bias[k] + dot(us, w_us) + dot(them, w_them)
    }
}

/// `sum clamp(a_i, 0, QA) w_i` (each product within i16 x i16, the sum in i32).
fn crelu_dot(acc: &[i16], w: &[i16]) -> i32 {
    acc.iter()
        .zip(w)
        .map(|(&a, &w)| i32::from(a.clamp(0, QA as i16)) * i32::from(w))
        .sum()
}

/// `sum (c_i w_i) c_i`, `c_i = clamp(a_i, 0, QA)`: `c_i w_i` fits i16 (`|w_i| <= 127`).
fn screlu_dot(acc: &[i16], w: &[i16]) -> i32 {
    acc.iter()
        .zip(w)
        .map(|(&a, &w)| {
            let c = a.clamp(0, QA as i16);
            i32::from(c.wrapping_mul(w)) * i32::from(c)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layers(w1: Vec<f32>, b1: Vec<f32>, w2: Vec<f32>, b2: Vec<f32>) -> [LayerWeights; 2] {
        let (hidden, buckets) = (b1.len(), b2.len());
        [
            LayerWeights {
                inputs: w1.len() / hidden,
                outputs: hidden,
                weight: w1,
                bias: b1,
            },
            LayerWeights {
                inputs: 2 * hidden,
                outputs: buckets,
                weight: w2,
                bias: b2,
            },
        ]
    }

    #[test]
    fn weights_round_to_their_scales_and_the_dots_follow_the_activation() {
        // Two inputs, two hidden, one bucket.
        let net = |b1: f32, b2: f32, activation| {
            let (w1, w2) = (vec![0.5, -0.25, 0.1, 1.0], vec![1.0, -0.5, 0.25, 2.5]);
            QuantisedNet::new(&layers(w1, vec![b1, 0.0], w2, vec![b2]), activation).unwrap()
        };
        let crelu = net(0.002, 0.01, Activation::Crelu);
        assert_eq!(crelu.transformer, [128, -64, 26, 255]);
        assert_eq!(crelu.transformer_bias, [1, 0]);
        assert_eq!(crelu.output, [vec![64, -32, 16, 160]]);
        assert_eq!(crelu.output_bias, [163]); // 0.01 x 16320
        // us = [300 -> 255, 100], them = [-5 -> 0, 255]:
        // 255 x 64 - 100 x 32 + 0 + 255 x 160 + 163.
        assert_eq!(
            crelu.output(&[300, 100], &[-5, 255], 0),
            16320 - 3200 + 40800 + 163
        );
        // SCReLU clips W2 to ±127: 2.5 x 64 = 160 -> 127.
        let screlu = net(0.0, 0.0, Activation::Screlu);
        assert_eq!(screlu.output[0], [64, -32, 16, 127]);
        // Each side's dot over QA: (255² x 64 - 100² x 32) / 255 + 255² x 127 / 255.
        assert_eq!(
            screlu.output(&[255, 100], &[0, 255], 0),
            (4_161_600 - 320_000) / 255 + 8_258_175 / 255
        );
    }

    #[test]
    fn a_net_whose_accumulator_could_overflow_is_refused_by_column() {
        // Column 1: 33 inputs of weight 4 -> 32 x 4 x 255 = 32640 plus a bias of 0.5.
        let inputs = 33;
        let w1: Vec<f32> = (0..inputs).flat_map(|_| [0.1, 4.0]).collect();
        let net = |bias: f32| {
            QuantisedNet::new(
                &layers(w1.clone(), vec![0.0, bias], vec![0.0; 4], vec![0.0]),
                Activation::Crelu,
            )
        };
        assert!(net(0.4).is_ok());
        let error = net(0.5).unwrap_err();
        assert!(error.contains("column 1 can sum to 128.502"), "{error}");
    }
}
