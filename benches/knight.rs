//! Throughput of the knight hot paths on flex: env steps, and DQN minibatch updates
//! (batch 64) and actor-critic updates, each including its forward passes.

#[path = "common/timing.rs"]
mod timing;

use burn::tensor::Device;
use burnmate_agents::actor_critic::{ActorCritic, ActorCriticConfig};
use burnmate_agents::agent::Agent as _;
use burnmate_agents::dqn::{Dqn, DqnConfig};
use burnmate_agents::init::uniform_layers;
use burnmate_agents::transition::Transition;
use burnmate_env::environment::Outcome as _;
use burnmate_env::knight::{ACTIONS, random_start};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use timing::{HEADER, measure};

fn env_steps() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let mut state = random_start(&mut rng);
    measure("knight env random step", 1, || {
        let step = state.step(rng.random_range(0..ACTIONS));
        state = if step.outcome.is_terminal() {
            random_start(&mut rng)
        } else {
            step.state
        };
    });
}

fn transition(rng: &mut ChaCha8Rng) -> Transition {
    let mut coord = || rng.random_range(0..8) as f32;
    Transition {
        state: vec![coord(), coord(), coord(), coord()],
        action: 3,
        reward: -1.0,
        next_state: vec![coord(), coord(), coord(), coord()],
        done: false,
        legal: Vec::new(),
        next_legal: Vec::new(),
    }
}

fn updates() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let device = Device::flex().autodiff();
    let sizes = [4, 128, 128, ACTIONS];
    let config = DqnConfig {
        sizes: sizes.to_vec(),
        ..DqnConfig::default()
    };
    let mut dqn = Dqn::new(config, device.clone(), &uniform_layers(&sizes, &mut rng)).unwrap();
    let batch: Vec<Transition> = (0..64).map(|_| transition(&mut rng)).collect();
    measure("knight DQN minibatch 64 (flex)", 1, || {
        let targets = dqn.targets(&batch);
        dqn.update(&batch, &targets).into_data()
    });
    for t in &batch {
        dqn.learn(t.clone(), &mut rng);
    }
    let mut next = batch.iter().cycle();
    measure(
        "knight DQN learn: store + sample + minibatch, targets beside",
        1,
        || dqn.learn(next.next().unwrap().clone(), &mut rng),
    );
    let mut ac = ActorCritic::new(
        ActorCriticConfig::default(),
        device,
        &uniform_layers(&sizes, &mut rng),
        &uniform_layers(&[4, 128, 128, 1], &mut rng),
    )
    .unwrap();
    let t = transition(&mut rng);
    measure("knight actor-critic step (flex)", 1, || {
        ac.update(&t).read()
    });
}

/// Where a DQN minibatch update's time goes: the same 4-128-128-8 network at batch
/// 64, timed cumulatively (inference; tracked forward + loss + backward; + Adam, burn's
/// and burnmate's). A
/// tracked forward pass alone is not timed: without its backward pass the autodiff
/// graph grows with every call.
fn update_profile() {
    use burn::module::Module;
    use burn::optim::GradientsParams;
    use burn::tensor::{Tensor, TensorData};
    use burnmate_agents::adam::Adam;
    use burnmate_agents::optim::pytorch_adam;
    use burnmate_models::DeepMlp;

    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let device = Device::flex().autodiff();
    let sizes = [4, 128, 128, ACTIONS];
    let mut net = DeepMlp::from_weights(&uniform_layers(&sizes, &mut rng), &device).unwrap();
    let mut burn_adam = pytorch_adam();
    let rows: Vec<f32> = (0..64 * 4).map(|_| rng.random_range(0..8) as f32).collect();
    let input =
        |device: &Device| Tensor::<2>::from_data(TensorData::new(rows.clone(), [64, 4]), device);
    let inference = device.clone().without_autodiff();
    measure("knight DQN part: inference forward, batch 64", 1, || {
        net.valid().forward(input(&inference)).into_data()
    });
    let loss = |net: &DeepMlp| net.forward(input(&device)).powf_scalar(2.0).mean();
    measure(
        "knight DQN part: tracked forward + loss + backward",
        1,
        || {
            let grads = loss(&net).backward();
            GradientsParams::from_grads(grads, &net).len()
        },
    );
    measure("knight DQN part: + burn-optim's Adam step", 1, || {
        let grads = GradientsParams::from_grads(loss(&net).backward(), &net);
        net = burn_adam.step(1e-4, net.clone(), grads);
    });
    let mut adam = Adam::new(&net, &device);
    measure("knight DQN part: + burnmate's fused Adam step", 1, || {
        let grads = GradientsParams::from_grads(loss(&net).backward(), &net);
        adam.step(1e-4, &mut net, grads);
    });
}

fn main() {
    println!("{HEADER}");
    env_steps();
    updates();
    update_profile();
}
