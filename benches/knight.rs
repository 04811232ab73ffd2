//! Throughput of the knight hot paths on flex: env steps, and DQN minibatch updates
//! (batch 64) and actor-critic updates, each including its forward passes.

#[path = "common/timing.rs"]
mod timing;

use burn::tensor::Device;
use burnmate_agents::actor_critic::{ActorCritic, ActorCriticConfig, CriticGradient};
use burnmate_agents::dqn::{Dqn, DqnConfig, TargetNetwork};
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
        lr: 1e-4,
        gamma: 0.99,
        replay_capacity: 1000,
        batch_size: 64,
        target: TargetNetwork::Periodic,
        target_sync_steps: 500,
    };
    let mut dqn = Dqn::new(config, device.clone(), &uniform_layers(&sizes, &mut rng)).unwrap();
    let batch: Vec<Transition> = (0..64).map(|_| transition(&mut rng)).collect();
    measure("knight DQN minibatch 64 (flex)", 1, || {
        let targets = dqn.targets(&batch);
        dqn.update(&batch, &targets).into_data()
    });
    let mut ac = ActorCritic::new(
        ActorCriticConfig {
            actor_lr: 1e-4,
            critic_lr: 1e-3,
            gamma: 0.99,
            critic_gradient: CriticGradient::SemiGradient,
        },
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

fn main() {
    println!("{HEADER}");
    env_steps();
    updates();
}
