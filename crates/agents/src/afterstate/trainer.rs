//! Batched afterstate self-play: `envs` games side by side, every legal move of every
//! game valued in one forward pass per ply, then `updates_per_step` minibatch
//! updates from the replay buffer.

use burn::tensor::Tensor;
use burnmate_env::selfplay::{FullGame, GameEnd};
use rand::{Rng, RngExt};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position};

use super::rewards::{bootstraps, move_reward};
use super::value_net::ValueNet;
use crate::error::{AgentError, unit_interval};
use crate::host_memory::host;
use crate::optim::TrainedNet;
use crate::replay::ReplayBuffer;
use crate::selfplay::trainer::GameRecord;

/// Settings of afterstate self-play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AfterstateConfig {
    /// Discount of the opponent's value.
    pub gamma: f32,
    /// Exploration of the first game.
    pub epsilon_start: f64,
    /// Exploration once `epsilon_games` games are played (linear in between).
    pub epsilon_end: f64,
    /// Games over which exploration decays.
    pub epsilon_games: u64,
    /// Ply cap per game.
    pub max_plies: u32,
    /// Games played side by side.
    pub envs: usize,
    /// Positions per minibatch.
    pub batch_size: usize,
    /// Positions the replay buffer holds.
    pub replay_capacity: usize,
    /// Minibatch updates after each ply of all games.
    pub updates_per_step: usize,
}

impl AfterstateConfig {
    /// Checks the settings; the error names the setting. [`AfterstateLearner::new`]
    /// and [`AfterstateLearner::restore`] call it.
    pub fn check(&self) -> Result<(), AgentError> {
        let setting = |text: String| Err(AgentError::Setting(text));
        unit_interval("gamma", self.gamma)?;
        unit_interval("epsilon_start", self.epsilon_start)?;
        unit_interval("epsilon_end", self.epsilon_end)?;
        if self.envs == 0 || self.max_plies == 0 {
            return setting(format!(
                "envs ({}) and max_plies ({}) must be positive",
                self.envs, self.max_plies
            ));
        }
        if self.batch_size == 0 || self.replay_capacity < self.batch_size {
            return setting(format!(
                "replay_capacity ({}) must hold a positive batch_size ({})",
                self.replay_capacity, self.batch_size
            ));
        }
        Ok(())
    }

    /// Exploration of a game started after `games` games (`epsilon_end` from the
    /// first game when `epsilon_games` is 0).
    pub fn epsilon(&self, games: u64) -> f64 {
        if self.epsilon_games == 0 {
            return self.epsilon_end;
        }
        let left = 1.0 - games as f64 / self.epsilon_games as f64;
        self.epsilon_end + (self.epsilon_start - self.epsilon_end) * left.max(0.0)
    }
}

/// A legal move with its reward and its value `Q(s, a)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValuedMove {
    /// The move.
    pub mv: Move,
    /// Material it wins (or the mate reward).
    pub reward: f32,
    /// `r(a) - gamma V(s_a)`, or `r(a)` when the game ends.
    pub q: f32,
}

/// A position met in self-play and the target of its best move.
#[derive(Clone, Debug, PartialEq)]
pub struct AfterstateSample {
    /// The position (the side to move is the one valued).
    pub position: Chess,
    /// `max_a Q(s, a)` when it was played.
    pub target: f32,
}

/// Everything training has changed: to continue a run exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearnerState {
    /// The network and its Adam state.
    pub net: TrainedNet,
    /// The replay buffer in slot order: FEN and target.
    pub replay: Vec<(String, f32)>,
    /// The replay slot written next.
    pub replay_next: usize,
    /// Games played.
    pub games: u64,
}

/// The learner: its network, replay buffer and games played.
pub struct AfterstateLearner {
    config: AfterstateConfig,
    net: ValueNet,
    replay: ReplayBuffer<AfterstateSample>,
    games: u64,
    /// Left on the device: reading it every round would wait for each update.
    last_loss: Option<Tensor<1>>,
}

struct Slot {
    game: FullGame,
    epsilon: f64,
    moves: Vec<Move>,
    rewards: [f32; 2],
}

impl Slot {
    fn record(&self) -> GameRecord {
        GameRecord::of(&self.game, &self.moves, self.rewards)
    }
}

/// The index of the highest `q` (the first of equals).
pub fn best_index(moves: &[ValuedMove]) -> usize {
    let mut best = 0;
    for (i, m) in moves.iter().enumerate() {
        if m.q > moves[best].q {
            best = i;
        }
    }
    best
}

/// A legal move, its reward, and the index of what it leads to when the game goes on.
type Pending = (Move, f32, Option<usize>);

/// Every legal move of every game, with `next(game, move)` (what the move leads to,
/// and the ending) kept for the moves after which the game goes on; the games are
/// expanded on all cores when `parallel`.
fn expand<T: Send>(
    games: &[&FullGame],
    parallel: bool,
    next: impl Fn(&FullGame, &Move) -> (T, Option<GameEnd>) + Sync,
) -> (Vec<T>, Vec<Vec<Pending>>) {
    let one_move = |game: &FullGame, mv: Move| -> (Move, f32, Option<T>) {
        let (after, end) = next(game, &mv);
        (mv, move_reward(&mv, end), bootstraps(end).then_some(after))
    };
    let mut kept = Vec::new();
    let mut keep = |(mv, reward, after): (Move, f32, Option<T>)| -> Pending {
        let row = after.map(|after| {
            kept.push(after);
            kept.len() - 1
        });
        (mv, reward, row)
    };
    let legal = |game: &FullGame| game.position().legal_moves().into_iter();
    let pending = if parallel {
        let expanded: Vec<Vec<_>> = games
            .par_iter()
            .map(|game| legal(game).map(|mv| one_move(game, mv)).collect())
            .collect();
        let keep_all = |list: Vec<_>| list.into_iter().map(&mut keep).collect();
        expanded.into_iter().map(keep_all).collect()
    } else {
        // Each position moves once, straight into `kept` (a second move per position
        // cost ~2 % of a 2-core run).
        games
            .iter()
            .map(|game| legal(game).map(|mv| keep(one_move(game, mv))).collect())
            .collect()
    };
    (kept, pending)
}

/// `Q(s, a) = r(a) - gamma * value(row of a)`, or `r(a)` when `a` ends the game.
fn valued(
    pending: Vec<Vec<Pending>>,
    gamma: f32,
    value: impl Fn(usize) -> f32,
) -> Vec<Vec<ValuedMove>> {
    pending
        .into_iter()
        .map(|list| {
            list.into_iter()
                .map(|(mv, reward, row)| ValuedMove {
                    mv,
                    reward,
                    q: reward - row.map_or(0.0, |i| gamma * value(i)),
                })
                .collect()
        })
        .collect()
}

impl AfterstateLearner {
    /// A learner that has played no game.
    pub fn new(config: AfterstateConfig, net: ValueNet) -> Result<AfterstateLearner, AgentError> {
        config.check()?;
        Ok(AfterstateLearner {
            replay: ReplayBuffer::new(config.replay_capacity),
            config,
            net,
            games: 0,
            last_loss: None,
        })
    }

    /// The learner of a [`AfterstateLearner::snapshot`].
    pub fn restore(
        config: AfterstateConfig,
        net: ValueNet,
        state: &LearnerState,
    ) -> Result<AfterstateLearner, AgentError> {
        config.check()?;
        let samples = state
            .replay
            .iter()
            .map(|(fen, target)| {
                let position = fen
                    .parse::<Fen>()
                    .map_err(|e| AgentError::Saved(format!("replay position '{fen}': {e}")))?
                    .into_position(CastlingMode::Standard)
                    .map_err(|e| AgentError::Saved(format!("replay position '{fen}': {e}")))?;
                Ok(AfterstateSample {
                    position,
                    target: *target,
                })
            })
            .collect::<Result<Vec<_>, AgentError>>()?;
        Ok(AfterstateLearner {
            replay: ReplayBuffer::from_parts(config.replay_capacity, samples, state.replay_next)?,
            config,
            net,
            games: state.games,
            last_loss: None,
        })
    }

    /// The network, Adam state, replay buffer and games played.
    pub fn snapshot(&self) -> Result<LearnerState, AgentError> {
        let (samples, next) = self.replay.parts();
        Ok(LearnerState {
            net: self.net.snapshot(),
            replay: samples
                .iter()
                .map(|s| {
                    let fen = Fen::from_position(&s.position, EnPassantMode::Legal);
                    (fen.to_string(), s.target)
                })
                .collect(),
            replay_next: next,
            games: self.games,
        })
    }

    /// Its settings.
    pub fn config(&self) -> &AfterstateConfig {
        &self.config
    }

    /// The value network.
    pub fn net(&self) -> &ValueNet {
        &self.net
    }

    /// Training games played.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// The loss of the latest update, if any (a sync point on a GPU).
    pub fn last_loss(&self) -> Option<f32> {
        self.last_loss.clone().map(|loss| host(loss)[0])
    }

    /// The legal moves of each game (not over) with their values: one forward pass
    /// over the positions they lead to.
    pub fn move_values(&self, games: &[&FullGame]) -> Vec<Vec<ValuedMove>> {
        let parallel = !self.net.in_host_memory();
        let (afters, pending) = expand(games, parallel, |game, mv| game.after(mv));
        let values = self
            .net
            .values(self.net.encode(&afters.iter().collect::<Vec<_>>()));
        valued(pending, self.config.gamma, |i| values[i])
    }

    /// Every legal move of every game valued by a full-width search of `plies` plies
    /// on the learned values (`plies <= 1`: [`AfterstateLearner::move_values`]):
    /// ```text
    /// Q_k(s, a) = r(a) - gamma * max_b Q_{k-1}(s_a, b)    (r(a) when a ends the game)
    /// ```
    /// each level of the tree valued in one batched forward pass over its leaves.
    pub fn search_values(&self, games: &[&FullGame], plies: u32) -> Vec<Vec<ValuedMove>> {
        if plies <= 1 {
            return self.move_values(games);
        }
        let parallel = !self.net.in_host_memory();
        let (children, pending) = expand(games, parallel, |game, mv| {
            let mut child = game.clone();
            let end = child.play(*mv);
            (child, end)
        });
        let replies = self.search_values(&children.iter().collect::<Vec<_>>(), plies - 1);
        valued(pending, self.config.gamma, |i| {
            replies[i].iter().map(|m| m.q).fold(f32::MIN, f32::max)
        })
    }

    /// The greedy move in `game` with its reward and value, or `None` when it is over.
    pub fn best_move(&self, game: &FullGame) -> Option<ValuedMove> {
        let mut moves = self.move_values(&[game]).pop()?;
        if moves.is_empty() {
            return None;
        }
        let best = best_index(&moves);
        Some(moves.swap_remove(best))
    }

    /// Plays `games` training games (`envs` at a time), calling `on_game` as each
    /// ends.
    pub fn train(&mut self, games: u64, rng: &mut impl Rng, mut on_game: impl FnMut(GameRecord)) {
        let config = self.config;
        let first = self.games;
        let mut started = 0u64;
        let mut slots: Vec<Slot> = Vec::new();
        let new_slot = |n: u64| Slot {
            game: FullGame::new(config.max_plies),
            epsilon: config.epsilon(n),
            moves: Vec::new(),
            rewards: [0.0; 2],
        };
        while started < games && slots.len() < config.envs {
            slots.push(new_slot(first + started));
            started += 1;
        }
        while !slots.is_empty() {
            let valued = self.move_values(&slots.iter().map(|s| &s.game).collect::<Vec<_>>());
            let mut finished = Vec::new();
            for (i, (slot, moves)) in slots.iter_mut().zip(valued).enumerate() {
                let best = best_index(&moves);
                self.replay.push(AfterstateSample {
                    position: slot.game.position().clone(),
                    target: moves[best].q,
                });
                let k = if rng.random::<f64>() < slot.epsilon {
                    rng.random_range(0..moves.len())
                } else {
                    best
                };
                let side = usize::from(slot.game.position().turn() == Color::Black);
                slot.rewards[side] += moves[k].reward;
                slot.moves.push(moves[k].mv);
                if slot.game.play(moves[k].mv).is_some() {
                    finished.push(i);
                }
            }
            self.learn(rng);
            for i in finished.into_iter().rev() {
                on_game(slots[i].record());
                self.games += 1;
                if started < games {
                    slots[i] = new_slot(first + started);
                    started += 1;
                } else {
                    slots.swap_remove(i);
                }
            }
        }
    }

    /// `updates_per_step` minibatch updates, once the buffer holds a minibatch.
    fn learn(&mut self, rng: &mut impl Rng) {
        if self.replay.len() < self.config.batch_size {
            return;
        }
        for _ in 0..self.config.updates_per_step {
            let batch = self.replay.sample(self.config.batch_size, rng);
            let positions: Vec<&Chess> = batch.iter().map(|s| &s.position).collect();
            let targets = batch.iter().map(|s| s.target).collect();
            self.last_loss = Some(self.net.update(self.net.encode(&positions), targets));
        }
    }
}
