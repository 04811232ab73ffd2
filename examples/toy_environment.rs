// A game of your own, trained with burnmate's DQN: implement `Environment` (rules)
// and `Encoder` (state -> floats), then drive the agent with `play_episode`.
// `cargo run --release --example toy_environment`.

use burn::tensor::Device;
use burnmate_agents::dqn::{Dqn, DqnConfig, TargetNetwork};
use burnmate_agents::episode::{Mode, Play, play_episode};
use burnmate_agents::init::uniform_layers;
use burnmate_env::environment::{Encoder, Environment, Outcome, Step};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A corridor of `CELLS` cells: step left (0) or right (1) from cell 0; the last
/// cell pays 1 and ends the episode. The best policy needs `CELLS - 1` steps.
struct Corridor;

const CELLS: u8 = 6;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Walk {
    Walking,
    Arrived,
}

impl Outcome for Walk {
    fn is_terminal(self) -> bool {
        self == Walk::Arrived
    }

    fn name(self) -> &'static str {
        match self {
            Walk::Walking => "walking",
            Walk::Arrived => "arrived",
        }
    }
}

impl Environment for Corridor {
    type State = u8;
    type Outcome = Walk;

    fn actions(&self) -> usize {
        2
    }

    fn reset(&self, _: &mut (impl Rng + ?Sized)) -> u8 {
        0
    }

    fn step(&self, cell: &u8, action: usize, _: &mut (impl Rng + ?Sized)) -> Step<u8, Walk> {
        let cell = if action == 1 {
            cell + 1
        } else {
            cell.saturating_sub(1)
        };
        let arrived = cell == CELLS - 1;
        Step {
            state: cell,
            reward: if arrived { 1.0 } else { 0.0 },
            outcome: if arrived {
                Walk::Arrived
            } else {
                Walk::Walking
            },
        }
    }

    fn legal_mask(&self, _: &u8, mask: &mut [bool]) {
        mask.fill(true);
    }
}

/// The cell, one-hot.
struct OneHot;

impl Encoder<u8> for OneHot {
    fn width(&self) -> usize {
        usize::from(CELLS)
    }

    fn encode(&self, cell: &u8, row: &mut [f32]) {
        row.fill(0.0);
        row[usize::from(*cell)] = 1.0;
    }
}

fn main() -> anyhow::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let sizes = vec![OneHot.width(), 32, Corridor.actions()];
    let layers = uniform_layers(&sizes, &mut rng);
    let config = DqnConfig {
        sizes,
        lr: 1e-3,
        gamma: 0.9,
        replay_capacity: 1000,
        batch_size: 32,
        target: TargetNetwork::Periodic,
        target_sync_steps: 50,
    };
    let mut dqn =
        Dqn::new(config, Device::flex().autodiff(), &layers).map_err(anyhow::Error::msg)?;
    let cap = 50;
    for episode in 0..300 {
        let epsilon = (1.0 - f64::from(episode) / 200.0).max(0.05);
        let play = Play {
            mode: Mode::Train { epsilon },
            max_steps: cap,
        };
        play_episode(
            &Corridor,
            &OneHot,
            &mut dqn,
            0,
            play,
            &mut rng,
            |_, _, _| {},
        );
    }
    let play = Play {
        mode: Mode::Evaluate,
        max_steps: cap,
    };
    let greedy = play_episode(
        &Corridor,
        &OneHot,
        &mut dqn,
        0,
        play,
        &mut rng,
        |_, _, _| {},
    );
    println!(
        "greedy walk: {} steps, {:?} (best: {})",
        greedy.steps,
        greedy.outcome,
        CELLS - 1
    );
    anyhow::ensure!(
        greedy.outcome == Walk::Arrived && greedy.steps == u32::from(CELLS - 1),
        "DQN did not learn the corridor"
    );
    Ok(())
}
