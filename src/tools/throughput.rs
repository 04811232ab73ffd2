//! Model throughput on any backend: forward passes and training steps (MSE, backward,
//! Adam) of each study's network at several batch sizes. Shared by `burnmate bench`
//! (what a user runs on their GPU) and `cargo bench --bench models`.
//!
//! Each measurement warms up (wgpu compiles and autotunes kernels on first use), then
//! repeats the operation for at least `min_seconds` and syncs once at the end by
//! reading one value back, so queued GPU work is counted. `synced` measurements read
//! the output back after every call instead: the latency an online (batch 1)
//! learner sees, one sync per step.

use std::time::Instant;

use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Gradients, Tensor, TensorData};
use burnmate_agents::init::uniform_layers;
use burnmate_agents::selfplay::net::initial_weights;
use burnmate_models::{
    ConvSelector, DeepMlp, MlpWeights, OutputActivation, SelectorPadding, TwoLayerMlp,
    TwoLayerMlpConfig,
};
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The networks measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// queen4x4: 58 -> 200 -> 32.
    Queen4x4,
    /// knight: 4 -> 128 -> 128 -> 8.
    Knight,
    /// selfplay selector: 6x8x8 -> conv 32/128/32 -> 128 -> 64.
    Selector,
}

impl ModelKind {
    /// All models, smallest first.
    pub const ALL: [ModelKind; 3] = [ModelKind::Queen4x4, ModelKind::Knight, ModelKind::Selector];

    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            ModelKind::Queen4x4 => "queen4x4 mlp 58-200-32",
            ModelKind::Knight => "knight mlp 4-128-128-8",
            ModelKind::Selector => "selfplay conv selector",
        }
    }

    fn inputs(self) -> usize {
        match self {
            ModelKind::Queen4x4 => 58,
            ModelKind::Knight => 4,
            ModelKind::Selector => 384,
        }
    }

    fn outputs(self) -> usize {
        match self {
            ModelKind::Queen4x4 => 32,
            ModelKind::Knight => 8,
            ModelKind::Selector => 64,
        }
    }
}

/// What is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// Forward passes without autodiff, one sync at the end.
    Forward,
    /// Forward passes without autodiff, each output read back (one sync per call).
    ForwardSynced,
    /// Forward + MSE + backward + Adam step, one sync at the end.
    TrainStep,
    /// A training step whose loss is read back every step.
    TrainStepSynced,
}

impl Operation {
    /// Name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Forward => "forward",
            Operation::ForwardSynced => "forward, synced",
            Operation::TrainStep => "train step",
            Operation::TrainStepSynced => "train step, synced",
        }
    }
}

/// One measured cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Calls timed.
    pub calls: u64,
    /// Seconds per call.
    pub seconds_per_call: f64,
    /// Samples per second (`batch / seconds_per_call`).
    pub samples_per_second: f64,
}

enum Net {
    Mlp(TwoLayerMlp),
    Deep(DeepMlp),
    Conv(ConvSelector),
}

fn random(n: usize, rng: &mut impl Rng) -> Vec<f32> {
    (0..n).map(|_| rng.random::<f32>() * 2.0 - 1.0).collect()
}

fn build(kind: ModelKind, device: &Device, rng: &mut ChaCha8Rng) -> Net {
    match kind {
        ModelKind::Queen4x4 => {
            let config = TwoLayerMlpConfig::new(58, 200, 32, OutputActivation::Relu);
            let weights = MlpWeights {
                w1: random(58 * 200, rng).iter().map(|w| w * 0.1).collect(),
                b1: vec![0.0; 200],
                w2: random(200 * 32, rng).iter().map(|w| w * 0.1).collect(),
                b2: vec![0.0; 32],
            };
            Net::Mlp(config.init_with(&weights, device).expect("shapes match"))
        }
        ModelKind::Knight => Net::Deep(
            DeepMlp::from_weights(&uniform_layers(&[4, 128, 128, 8], rng), device)
                .expect("shapes match"),
        ),
        ModelKind::Selector => Net::Conv(
            ConvSelector::from_weights(&initial_weights(SelectorPadding::Valid, rng), device)
                .expect("shapes match"),
        ),
    }
}

fn forward(net: &Net, x: Tensor<2>) -> Tensor<2> {
    match net {
        Net::Mlp(m) => m.forward(x),
        Net::Deep(m) => m.forward(x),
        Net::Conv(m) => {
            let [batch, _] = x.dims();
            m.forward(x.reshape([batch, 6, 8, 8]))
        }
    }
}

fn valid(net: &Net) -> Net {
    match net {
        Net::Mlp(m) => Net::Mlp(m.valid()),
        Net::Deep(m) => Net::Deep(m.valid()),
        Net::Conv(m) => Net::Conv(m.valid()),
    }
}

fn adam_step(net: Net, grads: Gradients, optimizer: &mut ModuleOptimizer) -> Net {
    match net {
        Net::Mlp(m) => {
            let g = GradientsParams::from_grads(grads, &m);
            Net::Mlp(optimizer.step(1e-4, m, g))
        }
        Net::Deep(m) => {
            let g = GradientsParams::from_grads(grads, &m);
            Net::Deep(optimizer.step(1e-4, m, g))
        }
        Net::Conv(m) => {
            let g = GradientsParams::from_grads(grads, &m);
            Net::Conv(optimizer.step(1e-4, m, g))
        }
    }
}

fn first_value(t: Tensor<2>) -> f32 {
    t.slice([0..1, 0..1])
        .into_data()
        .try_into_vec::<f32>()
        .expect("f32")[0]
}

/// Times `call` for at least `min_seconds` after `warmup` untimed calls; `finish`
/// syncs once at the end.
fn time_calls(
    warmup: u64,
    min_seconds: f64,
    mut call: impl FnMut() -> Option<Tensor<2>>,
    batch: usize,
) -> Measurement {
    let mut last = None;
    for _ in 0..warmup {
        last = call().or(last);
    }
    if let Some(t) = last.take() {
        first_value(t);
    }
    let started = Instant::now();
    let mut calls = 0u64;
    loop {
        last = call().or(last);
        calls += 1;
        if calls.is_multiple_of(8) || calls < 8 {
            // Check the clock without syncing; queued GPU work finishes below.
            if started.elapsed().as_secs_f64() >= min_seconds && calls >= 3 {
                break;
            }
        }
    }
    if let Some(t) = last {
        first_value(t);
    }
    let seconds = started.elapsed().as_secs_f64();
    Measurement {
        calls,
        seconds_per_call: seconds / calls as f64,
        samples_per_second: calls as f64 * batch as f64 / seconds,
    }
}

/// Measures `operation` of `kind` on `device` (a plain device: autodiff is added
/// for training steps) at `batch`.
pub fn measure(
    kind: ModelKind,
    operation: Operation,
    device: &Device,
    batch: usize,
    min_seconds: f64,
) -> Measurement {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let x_host = random(batch * kind.inputs(), &mut rng);
    let y_host = random(batch * kind.outputs(), &mut rng);
    match operation {
        Operation::Forward | Operation::ForwardSynced => {
            let net = valid(&build(kind, device, &mut rng));
            let x: Tensor<2> =
                Tensor::from_data(TensorData::new(x_host, [batch, kind.inputs()]), device);
            let synced = operation == Operation::ForwardSynced;
            time_calls(
                3,
                min_seconds,
                || {
                    let y = forward(&net, x.clone());
                    if synced {
                        first_value(y);
                        None
                    } else {
                        Some(y)
                    }
                },
                batch,
            )
        }
        Operation::TrainStep | Operation::TrainStepSynced => {
            let autodiff = device.clone().autodiff();
            let mut net = Some(build(kind, &autodiff, &mut rng));
            let mut optimizer = AdamConfig::new().init();
            let x: Tensor<2> =
                Tensor::from_data(TensorData::new(x_host, [batch, kind.inputs()]), &autodiff);
            let y: Tensor<2> =
                Tensor::from_data(TensorData::new(y_host, [batch, kind.outputs()]), &autodiff);
            let synced = operation == Operation::TrainStepSynced;
            time_calls(
                3,
                min_seconds,
                || {
                    let current = net.take().expect("put back after every step");
                    let loss = (forward(&current, x.clone()) - y.clone())
                        .powf_scalar(2.0)
                        .mean();
                    net = Some(adam_step(current, loss.backward(), &mut optimizer));
                    let loss: Tensor<2> = loss.detach().reshape([1, 1]);
                    if synced {
                        first_value(loss);
                        None
                    } else {
                        Some(loss)
                    }
                },
                batch,
            )
        }
    }
}

/// One markdown table row per (model, operation, batch) on `device`, each handed to
/// `emit` as soon as it is measured (a bench stopped early keeps what it measured).
pub fn table(
    backend: &str,
    device: &Device,
    models: &[ModelKind],
    batches: &[usize],
    min_seconds: f64,
    mut emit: impl FnMut(String),
) {
    for &kind in models {
        for operation in [
            Operation::Forward,
            Operation::ForwardSynced,
            Operation::TrainStep,
            Operation::TrainStepSynced,
        ] {
            for &batch in batches {
                let synced = matches!(
                    operation,
                    Operation::ForwardSynced | Operation::TrainStepSynced
                );
                if synced && batch != 1 {
                    continue;
                }
                let m = measure(kind, operation, device, batch, min_seconds);
                emit(row(
                    kind.name(),
                    operation.name(),
                    backend,
                    batch,
                    m.seconds_per_call,
                ));
            }
        }
    }
}

/// One row under [`TABLE_HEADER`]: `batch` samples in `seconds_per_call`.
pub fn row(
    model: &str,
    operation: &str,
    backend: &str,
    batch: usize,
    seconds_per_call: f64,
) -> String {
    format!(
        "| {model} | {operation} | {backend} | {batch} | {:.0} | {:.1} |",
        batch as f64 / seconds_per_call,
        seconds_per_call * 1e6
    )
}

/// The header of [`table`]'s rows.
pub const TABLE_HEADER: &str =
    "| model | operation | backend | batch | samples/s | us per call |\n|---|---|---|---|---|---|";
