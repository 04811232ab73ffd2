//! Vectorised DQN training: `envs` knight puzzles stepped together, their actions
//! from one batched forward pass, one minibatch update per vector step. Metrics stay
//! per episode, numbered in the order episodes finish.

use anyhow::Result;
use burnmate_agents::dqn::Dqn;
use burnmate_agents::exploration::epsilon_greedy;
use burnmate_agents::transition::Transition;
use burnmate_encode::knight::{KnightEncoding, row};
use burnmate_env::environment::Outcome as _;
use burnmate_env::knight::{
    ACTIONS, EVERY_JUMP, KnightGame, KnightOutcome, KnightState, random_start,
};
use rand_chacha::ChaCha8Rng;

use crate::knight::config::KnightConfig;
use crate::metrics::{EpisodeRow, MetricsRecorder};
use crate::progress::Progress;

struct Running {
    state: KnightState,
    reward: f64,
    legal: u32,
    illegal: u32,
}

impl Running {
    fn start(rng: &mut ChaCha8Rng) -> Running {
        Running {
            state: random_start(rng),
            reward: 0.0,
            legal: 0,
            illegal: 0,
        }
    }
}

/// Trains `dqn` for `config.episodes` episodes over `config.envs` environments.
pub fn train_vectorised(
    config: &KnightConfig,
    dqn: &mut Dqn,
    rng: &mut ChaCha8Rng,
    metrics: &mut MetricsRecorder,
    progress: &dyn Progress,
) -> Result<()> {
    let mut envs: Vec<Running> = (0..config.envs.min(config.episodes as usize))
        .map(|_| Running::start(rng))
        .collect();
    let (mut finished, mut started) = (0u64, envs.len() as u64);
    while !envs.is_empty() {
        let epsilon = config.epsilon.at(finished);
        let rows: Vec<f32> = envs.iter().flat_map(|e| row(&e.state)).collect();
        let q = dqn.q_values(&rows);
        let mut transitions = Vec::with_capacity(envs.len());
        let mut running = Vec::with_capacity(envs.len());
        for (i, mut env) in std::mem::take(&mut envs).into_iter().enumerate() {
            let action = epsilon_greedy(
                &q[i * ACTIONS..(i + 1) * ACTIONS],
                &EVERY_JUMP,
                epsilon,
                rng,
            );
            let step = env.state.step(action);
            env.reward += f64::from(step.reward);
            if step.legal {
                env.legal += 1;
            } else {
                env.illegal += 1;
            }
            let done = step.outcome.is_terminal();
            transitions.push(Transition::from_step::<KnightGame>(
                &KnightEncoding,
                &env.state,
                action,
                &step.as_step(),
            ));
            env.state = step.state;
            if !done {
                running.push(env);
                continue;
            }
            metrics.record(
                EpisodeRow {
                    episode: finished,
                    reward: env.reward,
                    moves: env.legal + env.illegal,
                    outcome: step.outcome.name(),
                    epsilon,
                    won: step.outcome == KnightOutcome::Check,
                },
                &[f64::from(env.legal), f64::from(env.illegal)],
            )?;
            finished += 1;
            progress.advance(1);
            if started < config.episodes {
                running.push(Running::start(rng));
                started += 1;
            }
        }
        envs = running;
        dqn.learn_vector_step(transitions, rng);
    }
    Ok(())
}
