//! The one-output SGD step shared by both update rules.

use burn::tensor::Tensor;
use burnmate_models::TwoLayerMlp;

/// Errors of the chosen output and of the hidden layer for one update.
pub(crate) struct StepSignal {
    /// Error at the chosen output (already multiplied by any activation derivative).
    pub output_error: f32,
    /// Factor of `W2[:, a] * relu'(h)` that gives the hidden error.
    pub hidden_scale: f32,
}

/// One SGD step on output `action` only, as in the study's `backpropagation`:
///
/// ```text
/// dz1     = hidden_scale * W2[:, a] * relu'(h)      (W2 before this step)
/// W2[:,a] += eta * output_error * h
/// b2[a]   += eta * output_error
/// W1      += eta * x^T dz1
/// b1      += eta * dz1
/// ```
///
/// `x` is the `[1, inputs]` row of the state being updated and `h` the `[1, hidden]`
/// hidden activations the rule uses.
pub(crate) fn step_chosen_output(
    net: TwoLayerMlp,
    x: Tensor<2>,
    h: Tensor<2>,
    action: usize,
    signal: StepSignal,
    eta: f32,
) -> TwoLayerMlp {
    let TwoLayerMlp {
        hidden: mut layer1,
        output: mut layer2,
        activation,
    } = net;
    let units = h.dims()[1];
    let column = [0..units, action..action + 1];

    // eta * dz1, with relu'(h) as the mask h > 0.
    let mut dz1_step = None;
    layer2.weight = layer2.weight.map(|w2| {
        let w2_column = w2.clone().slice(column.clone());
        dz1_step = Some(
            w2_column
                .clone()
                .transpose()
                .mul(h.clone().greater_elem(0.0).float())
                .mul_scalar(eta * signal.hidden_scale),
        );
        let new_column = w2_column + h.transpose().mul_scalar(eta * signal.output_error);
        w2.slice_assign(column, new_column)
    });
    let dz1_step = dz1_step.expect("the weight map ran");
    layer2.bias = layer2.bias.map(|b2| {
        b2.map(|b| {
            let cell = b.clone().slice(action..action + 1);
            b.slice_assign(
                action..action + 1,
                cell.add_scalar(eta * signal.output_error),
            )
        })
    });

    let w1_step = x.transpose().matmul(dz1_step.clone());
    layer1.weight = layer1.weight.map(|w1| w1 + w1_step);
    let b1_step = dz1_step.reshape([units]);
    layer1.bias = layer1.bias.map(|b1| b1.map(|b| b + b1_step));

    TwoLayerMlp {
        hidden: layer1,
        output: layer2,
        activation,
    }
}
