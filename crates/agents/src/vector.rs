//! Vectorised DQN over any [`Environment`]: `envs` copies stepped together, every
//! copy's action from one batched forward pass, one minibatch update per vector step.
//! Episodes are numbered in the order they finish.

use burnmate_env::environment::{Encoder, Environment, Outcome, Step};
use rand::Rng;

use crate::agent::legal_actions;
use crate::dqn::Dqn;
use crate::episode::Episode;
use crate::exploration::epsilon_greedy;
use crate::transition::Transition;

/// Copies of one environment trained together.
pub struct Vectorised<'a, E, X> {
    /// The game.
    pub env: &'a E,
    /// Its encoder.
    pub encoder: &'a X,
    /// Copies stepped together.
    pub envs: usize,
    /// Episodes to finish in all.
    pub episodes: u64,
}

struct Running<S, T> {
    state: S,
    reward: f64,
    steps: u32,
    tally: T,
}

impl<E: Environment, X: Encoder<E::State>> Vectorised<'_, E, X> {
    fn start<T: Default>(&self, rng: &mut dyn Rng) -> Running<E::State, T> {
        Running {
            state: self.env.reset(rng),
            reward: 0.0,
            steps: 0,
            tally: T::default(),
        }
    }

    /// Trains `dqn`; `epsilon(finished)` is the exploration rate of a vector step
    /// given the episodes finished so far. `tally` adds each step to its episode's
    /// own record; `on_episode(n, episode, tally, epsilon)` sees every finished one.
    pub fn train<T: Default, Err>(
        &self,
        dqn: &mut Dqn,
        epsilon: impl Fn(u64) -> f64,
        rng: &mut dyn Rng,
        mut tally: impl FnMut(&mut T, &E::State, usize, &Step<E::State, E::Outcome>),
        mut on_episode: impl FnMut(u64, Episode<E::Outcome>, T, f64) -> Result<(), Err>,
    ) -> Result<(), Err> {
        let width = self.encoder.width();
        let actions = self.env.actions();
        let mut running: Vec<Running<E::State, T>> = (0..self.envs.min(self.episodes as usize))
            .map(|_| self.start(rng))
            .collect();
        let (mut finished, mut started) = (0u64, running.len() as u64);
        let mut mask = vec![false; actions];
        while !running.is_empty() {
            let epsilon = epsilon(finished);
            let mut rows = vec![0.0; running.len() * width];
            for (env, row) in running.iter().zip(rows.chunks_exact_mut(width)) {
                self.encoder.encode(&env.state, row);
            }
            let q = dqn.q_values(&rows);
            let mut transitions = Vec::with_capacity(running.len());
            let mut next = Vec::with_capacity(running.len());
            for (i, mut env) in std::mem::take(&mut running).into_iter().enumerate() {
                self.env.legal_mask(&env.state, &mut mask);
                let legal = legal_actions(&mask);
                let action =
                    epsilon_greedy(&q[i * actions..(i + 1) * actions], &legal, epsilon, rng);
                let step = self.env.step(&env.state, action, rng);
                env.reward += f64::from(step.reward);
                env.steps += 1;
                tally(&mut env.tally, &env.state, action, &step);
                transitions.push(Transition::from_step(
                    self.env,
                    self.encoder,
                    &env.state,
                    action,
                    &step,
                ));
                let done = step.outcome.is_terminal();
                env.state = step.state;
                if !done {
                    next.push(env);
                    continue;
                }
                let episode = Episode {
                    reward: env.reward,
                    steps: env.steps,
                    outcome: step.outcome,
                };
                on_episode(finished, episode, env.tally, epsilon)?;
                finished += 1;
                if started < self.episodes {
                    next.push(self.start(rng));
                    started += 1;
                }
            }
            running = next;
            dqn.learn_vector_step(transitions, rng);
        }
        Ok(())
    }
}
