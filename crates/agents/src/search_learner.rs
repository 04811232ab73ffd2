//! ALGO: the policy-value search learner (AlphaZero's self-play, for any
//! [`TwoPlayerGame`]). The learner plays both sides; `parallel` games run side by
//! side, every ply one batched search over all of them:
//!
//! ```text
//! each ply of each game:  search (PUCT, root noise) -> visit counts N(a)
//!                         record (s, pi(a) = N(a) / sum N, side to move);
//!                         pi = the proof move alone where the search proved s
//!                         play a ~ N(a)^(1/T): T = 1 for the first `temperature_plies`
//!                         plies of a game, then the most visited move
//! at the game's end:      z = -(-discount)^d for a position d plies before a mate
//!                         (the mated side's -1 carried back with the search's
//!                         discount), 0 after a draw by the rules;
//!                         value target = (1 - w) z + w q, q the root's search
//!                         value (exact where proven), w = `search_value_weight`;
//!                         moves-left target (a net with that head) =
//!                         (1 - w) d + w m, d the plies to the game's end,
//!                         m the root's search estimate;
//!                         a game stopped by the ply cap has no result (it was
//!                         cut, not drawn): its targets are q and m alone
//! with a playout cap:     a `full_share` of moves (drawn per move) is searched at
//!                         `full_simulations` with root noise and recorded; the
//!                         rest at `search.simulations` without noise, played and
//!                         not recorded (KataGo's playout-cap randomisation)
//! a deeper side:          with `first_player_simulations` or
//!                         `second_player_simulations`, that player's moves are
//!                         searched at that many simulations (at least the learner's)
//! every ply round:        `updates` Adam steps on minibatches drawn from the replay
//!                         of the most recent `replay_capacity` positions, each
//!                         symmetric position under a random board symmetry when the
//!                         learner has an [`Augmentation`]
//! ```
//!
//! The discount makes the value target of a position prefer the shorter mate, the
//! same rule the search backs up, so the learner mates fast, not just surely. A net
//! with a moves-left head (Lc0's) also learns the plies to the end, which the search
//! weighs by `moves_left_slope`: one ply is worth 0.03-0.06 of value under the
//! discount, finer than the value head resolves, and the head ranks it directly.

use std::collections::VecDeque;

use burnmate_env::environment::Encoder;
use burnmate_env::two_player::TwoPlayerGame;
use rand::{Rng, RngExt};

use burnmate_models::LayerWeights;
use serde::{Deserialize, Serialize};

use crate::adam::SavedMoments;
use crate::error::{AgentError, unit_interval};
use crate::policy_value::{Losses, NetEvaluator, PolicyTarget, PolicyValueNet, ValueTarget};
use crate::search::{SearchConfig, SearchResult, search};

/// The learner's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchLearnerConfig {
    /// The search of every self-play move (with root noise).
    pub search: SearchConfig,
    /// Plies of a game played at temperature 1 (visit-proportional), then greedy.
    pub temperature_plies: u32,
    /// Games played side by side (one batched search per ply).
    pub parallel: usize,
    /// Positions kept for training.
    pub replay_capacity: usize,
    /// Positions per minibatch.
    pub batch_size: usize,
    /// Adam steps per ply round once the replay holds a minibatch.
    pub updates: u32,
    /// Adam's learning rate.
    pub lr: f64,
    /// Weight of the root's search value in the value target, against the game's
    /// result (0: AlphaZero's result alone; Lc0 and KataGo blend in the search's
    /// value to lower the target's variance).
    pub search_value_weight: f32,
    /// KataGo's playout-cap randomisation; none: every move is searched alike and
    /// recorded.
    pub playout_cap: Option<PlayoutCap>,
    /// Simulations of the first player's (the endgames' attacker's) searches, when
    /// more than `search.simulations`: a stronger attacker for the defender to learn
    /// against, and deeper policy targets for the attack. None: the search's.
    pub first_player_simulations: Option<u32>,
    /// Simulations of the second player's (the endgames' defender's) searches, when
    /// more than `search.simulations`: a stronger opponent to learn against. None:
    /// the search's.
    pub second_player_simulations: Option<u32>,
}

/// KataGo's playout-cap randomisation (Wu 2019, "Accelerating Self-Play Learning in
/// Go"): a share of self-play moves gets a full search and becomes a training
/// position; the others get a fast search without root noise, which plays the game
/// on and is not recorded. Policy targets then come from deep searches at a
/// fraction of their cost.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayoutCap {
    /// Share of moves searched in full (drawn per move).
    pub full_share: f32,
    /// Simulations of a full search (a fast one has the learner's `search.simulations`).
    pub full_simulations: u32,
}

impl SearchLearnerConfig {
    /// The search of a move: `recorded` (a full search under a playout cap) or
    /// not, by the `second_player` or the first.
    fn search_of(&self, recorded: bool, second_player: bool) -> SearchConfig {
        let mut search = self.search;
        if let Some(cap) = self.playout_cap {
            if recorded {
                search.simulations = cap.full_simulations;
            } else {
                search.noise = 0.0;
            }
        }
        let deeper = if second_player {
            self.second_player_simulations
        } else {
            self.first_player_simulations
        };
        if let Some(n) = deeper {
            search.simulations = search.simulations.max(n);
        }
        search
    }

    /// Whether one player searches deeper than the other, so a ply's searches split
    /// by the player to move.
    fn players_differ(&self) -> bool {
        self.first_player_simulations.is_some() || self.second_player_simulations.is_some()
    }

    /// Checks the settings (the search's too); the error names the setting.
    pub fn check(&self) -> Result<(), AgentError> {
        self.search.check()?;
        let setting = |text: String| Err(AgentError::Setting(text));
        if self.parallel == 0 || self.batch_size == 0 || self.updates == 0 {
            return setting(format!(
                "parallel ({}), batch_size ({}) and updates ({}) must be positive",
                self.parallel, self.batch_size, self.updates
            ));
        }
        if self.replay_capacity < self.batch_size {
            return setting(format!(
                "replay_capacity ({}) must hold a batch_size ({})",
                self.replay_capacity, self.batch_size
            ));
        }
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return setting(format!("lr must be a positive number, not {}", self.lr));
        }
        unit_interval("search_value_weight", self.search_value_weight)?;
        if self.first_player_simulations == Some(0) {
            return setting("first_player_simulations must be positive".into());
        }
        if self.second_player_simulations == Some(0) {
            return setting("second_player_simulations must be positive".into());
        }
        if let Some(cap) = self.playout_cap {
            if !(cap.full_share > 0.0 && cap.full_share <= 1.0) {
                return setting(format!(
                    "playout_cap.full_share must lie in (0, 1], not {}",
                    cap.full_share
                ));
            }
            if cap.full_simulations < self.search.simulations {
                return setting(format!(
                    "playout_cap.full_simulations ({}) must be at least the search's \
                     simulations ({})",
                    cap.full_simulations, self.search.simulations
                ));
            }
        }
        Ok(())
    }
}

/// How a self-play game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfPlayEnd {
    /// The side to move was mated; `first_won` says whether white mated.
    Mate {
        /// Whether the first player (white) gave the mate.
        first_won: bool,
    },
    /// A draw by the rules.
    Draw,
    /// The ply cap.
    Cap,
}

/// One finished self-play game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SelfPlayGame {
    /// Which start it was played from: the n-th the start function gave (from 0).
    pub start: usize,
    /// Plies played.
    pub plies: u32,
    /// How it ended.
    pub end: SelfPlayEnd,
}

/// One training position: its encoding, its visit-count policy (sparse) and value.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSample {
    /// The encoded position.
    pub row: Vec<f32>,
    /// Policy indices of the searched moves.
    pub actions: Vec<usize>,
    /// Their visit shares.
    pub policy: Vec<f32>,
    /// The root's search value for the side to move.
    pub search_value: f32,
    /// The root's search estimate of the plies left.
    pub search_moves_left: f32,
    /// Whether the position keeps its value and moves under the board symmetries.
    pub symmetric: bool,
    /// The value target for the side to move.
    pub value: f32,
    /// The plies-left target.
    pub moves_left: f32,
}

/// A game in progress: its position, plies, ply cap, and its positions awaiting a
/// value.
struct Running<P> {
    start: usize,
    position: P,
    plies: u32,
    max_plies: u32,
    /// The recorded positions, each with its ply.
    history: Vec<(u32, SearchSample)>,
}

/// The value target of a position `plies_before_end` plies before the end, for its
/// side to move: `-(-discount)^d` before a mate, 0 before a draw.
pub fn value_target(plies_before_end: u32, mate: bool, discount: f32) -> f32 {
    if mate {
        -(-discount).powi(plies_before_end as i32)
    } else {
        0.0
    }
}

/// The value and plies-left targets of `sample`, `plies_left` plies before its
/// game's `end`: the game's [`value_target`] and `plies_left`, each blended with
/// the root's search estimate at `search_weight`; after the ply cap the search's
/// estimates alone (a cut game has no result: pgx's AlphaZero masks such positions
/// out of the value loss, Pardo et al. 2018 bootstrap them).
pub fn blended_target(
    plies_left: u32,
    end: SelfPlayEnd,
    sample: &SearchSample,
    discount: f32,
    search_weight: f32,
) -> ValueTarget {
    let mate = matches!(end, SelfPlayEnd::Mate { .. });
    let w = if end == SelfPlayEnd::Cap {
        1.0
    } else {
        search_weight
    };
    ValueTarget {
        value: (1.0 - w) * value_target(plies_left, mate, discount) + w * sample.search_value,
        moves_left: (1.0 - w) * plies_left as f32 + w * sample.search_moves_left,
    }
}

/// The policy target of a searched position: the proof move alone where the search
/// proved the root, else the visit shares.
pub fn policy_target(visits: &[u32], proof: Option<usize>) -> Vec<f32> {
    match proof {
        Some(p) => (0..visits.len())
            .map(|i| f32::from(u8::from(i == p)))
            .collect(),
        None => {
            let total = visits.iter().sum::<u32>().max(1) as f32;
            visits.iter().map(|&v| v as f32 / total).collect()
        }
    }
}

/// " with a moves-left head" where `has` says so.
fn moves_left_label(has: bool) -> &'static str {
    if has { " with a moves-left head" } else { "" }
}

/// How a training sample of a symmetric position is mapped by a board symmetry:
/// its encoded row and its policy indices (AlphaZero's augmentation for Go).
#[derive(Clone, Copy, Debug)]
pub struct Augmentation {
    /// The number of symmetries (the identity is symmetry 0).
    pub symmetries: u8,
    /// Maps an encoded row in place.
    pub row: fn(&mut [f32], u8),
    /// Maps a policy index.
    pub action: fn(usize, u8) -> usize,
}

/// A replay position stored compactly: its encoded row's non-zero entries.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SavedSample {
    /// Width of the encoded row.
    pub width: u32,
    /// (index, value) of each non-zero entry of the row.
    pub nonzero: Vec<(u32, f32)>,
    /// Policy indices of the searched moves.
    pub actions: Vec<u32>,
    /// Their visit shares.
    pub policy: Vec<f32>,
    /// The root's search value.
    pub search_value: f32,
    /// The root's search estimate of the plies left (0 in a replay saved before
    /// moves-left heads).
    #[serde(default)]
    pub search_moves_left: f32,
    /// Whether the position keeps its value and moves under the board symmetries.
    pub symmetric: bool,
    /// The value target.
    pub value: f32,
    /// The plies-left target (0 in a replay saved before moves-left heads).
    #[serde(default)]
    pub moves_left: f32,
}

impl SavedSample {
    fn of(sample: &SearchSample) -> SavedSample {
        SavedSample {
            width: sample.row.len() as u32,
            nonzero: (0..sample.row.len() as u32)
                .zip(&sample.row)
                .filter(|(_, x)| **x != 0.0)
                .map(|(i, &x)| (i, x))
                .collect(),
            actions: sample.actions.iter().map(|&a| a as u32).collect(),
            policy: sample.policy.clone(),
            search_value: sample.search_value,
            search_moves_left: sample.search_moves_left,
            symmetric: sample.symmetric,
            value: sample.value,
            moves_left: sample.moves_left,
        }
    }

    fn sample(&self) -> SearchSample {
        let mut row = vec![0.0; self.width as usize];
        for &(i, x) in &self.nonzero {
            row[i as usize] = x;
        }
        SearchSample {
            row,
            actions: self.actions.iter().map(|&a| a as usize).collect(),
            policy: self.policy.clone(),
            search_value: self.search_value,
            search_moves_left: self.search_moves_left,
            symmetric: self.symmetric,
            value: self.value,
            moves_left: self.moves_left,
        }
    }
}

/// Everything the learner needs to go on training exactly where it stood: the
/// network, Adam's moments and the replay (the caller keeps its generator).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchLearnerState {
    /// The network's layers.
    pub layers: Vec<LayerWeights>,
    /// Adam's moments.
    pub moments: Vec<SavedMoments>,
    /// The replay, oldest first.
    pub replay: Vec<SavedSample>,
}

/// The learner: its network, the replay, the game and the encoder.
pub struct SearchLearner<G, X> {
    game: G,
    encoder: X,
    net: PolicyValueNet,
    config: SearchLearnerConfig,
    replay: VecDeque<SearchSample>,
    augmentation: Option<Augmentation>,
    /// The losses of the updates since [`SearchLearner::take_losses`], summed, and
    /// their count.
    losses: (Losses, u32),
}

impl<G: TwoPlayerGame, X: Encoder<G::Position>> SearchLearner<G, X> {
    /// A learner over `game` with `net` (its inputs `encoder.width()`, its policy
    /// `game.actions()`), once `config` passes [`SearchLearnerConfig::check`].
    pub fn new(
        game: G,
        encoder: X,
        net: PolicyValueNet,
        config: SearchLearnerConfig,
    ) -> Result<Self, AgentError> {
        config.check()?;
        if (net.features(), net.actions()) != (encoder.width(), game.actions()) {
            return Err(AgentError::Shape(format!(
                "a network of {} inputs and {} moves cannot play a game of {} inputs and {} \
                 moves",
                net.features(),
                net.actions(),
                encoder.width(),
                game.actions()
            )));
        }
        Ok(SearchLearner {
            game,
            encoder,
            net,
            config,
            replay: VecDeque::new(),
            augmentation: None,
            losses: (Losses::default(), 0),
        })
    }

    /// The learner training each symmetric position under a random symmetry.
    pub fn with_augmentation(mut self, augmentation: Augmentation) -> Self {
        self.augmentation = Some(augmentation);
        self
    }

    /// The network.
    pub fn net(&self) -> &PolicyValueNet {
        &self.net
    }

    /// The settings it learns with.
    pub fn config(&self) -> &SearchLearnerConfig {
        &self.config
    }

    /// Sets Adam's learning rate of the updates from now on (a schedule's step).
    pub fn set_lr(&mut self, lr: f64) {
        self.config.lr = lr;
    }

    /// The learner's state, to go on from later with [`SearchLearner::restore`].
    pub fn state(&self) -> SearchLearnerState {
        SearchLearnerState {
            layers: self.net.weights(),
            moments: self.net.moments(),
            replay: self.replay.iter().map(SavedSample::of).collect(),
        }
    }

    /// Puts back a state saved by [`SearchLearner::state`] (a learner of the same
    /// shape): the net, Adam and the replay.
    pub fn restore(&mut self, state: &SearchLearnerState) -> Result<(), AgentError> {
        let net = PolicyValueNet::restore(
            &state.layers,
            &state.moments,
            self.net.actions(),
            self.net.device(),
        )?;
        if net.features() != self.net.features()
            || net.has_moves_left() != self.net.has_moves_left()
        {
            return Err(AgentError::Shape(format!(
                "saved net has {} inputs{}, the learner {}{}",
                net.features(),
                moves_left_label(net.has_moves_left()),
                self.net.features(),
                moves_left_label(self.net.has_moves_left()),
            )));
        }
        self.net = net;
        self.replay = state.replay.iter().map(SavedSample::sample).collect();
        Ok(())
    }

    /// The mean losses of the updates since the last call (before each step, as
    /// [`PolicyValueNet::update`] measures them); `None` when none was made.
    pub fn take_losses(&mut self) -> Option<Losses> {
        let (sum, count) = std::mem::take(&mut self.losses);
        (count > 0).then(|| {
            let n = count as f32;
            Losses {
                value: sum.value / n,
                policy: sum.policy / n,
                moves_left: sum.moves_left / n,
            }
        })
    }

    /// Plays `games` self-play games from starts drawn by `start` (a position and
    /// the plies after which its game is stopped, value target 0), `parallel` at a
    /// time (a finished game's slot takes the next start), training as it goes;
    /// returns the games in the order they finished.
    pub fn self_play<R: Rng>(
        &mut self,
        games: usize,
        mut start: impl FnMut(&mut R) -> (G::Position, u32),
        rng: &mut R,
    ) -> Vec<SelfPlayGame> {
        let mut records = Vec::with_capacity(games);
        let mut running: Vec<Running<G::Position>> = Vec::new();
        let mut started = 0;
        while records.len() < games {
            while running.len() < self.config.parallel && started < games {
                let (position, max_plies) = start(rng);
                started += 1;
                if let Some(end) = self.finished(&position, 0, max_plies) {
                    records.push(SelfPlayGame {
                        start: started - 1,
                        plies: 0,
                        end,
                    });
                } else {
                    running.push(Running {
                        start: started - 1,
                        position,
                        plies: 0,
                        max_plies,
                        history: Vec::new(),
                    });
                }
            }
            if running.is_empty() {
                continue;
            }
            self.play_one_ply(&mut running, rng);
            let mut k = 0;
            while k < running.len() {
                let game = &running[k];
                match self.finished(&game.position, game.plies, game.max_plies) {
                    Some(end) => {
                        let game = running.swap_remove(k);
                        records.push(SelfPlayGame {
                            start: game.start,
                            plies: game.plies,
                            end,
                        });
                        self.remember(game.history, game.plies, end);
                    }
                    None => k += 1,
                }
            }
            self.train(rng);
        }
        records
    }

    /// How `position` after `plies` of `max_plies` plies ends its game, if it does.
    fn finished(&self, position: &G::Position, plies: u32, max_plies: u32) -> Option<SelfPlayEnd> {
        match self.game.terminal_value(position) {
            Some(v) if v < 0.0 => Some(SelfPlayEnd::Mate {
                first_won: !self.game.first_to_move(position),
            }),
            Some(_) => Some(SelfPlayEnd::Draw),
            None if plies >= max_plies => Some(SelfPlayEnd::Cap),
            None => None,
        }
    }

    /// One batched search over every running game (one for each kind of search:
    /// full and fast under a playout cap, each player's when one searches more),
    /// then one move in each.
    fn play_one_ply(&mut self, running: &mut [Running<G::Position>], rng: &mut impl Rng) {
        let recorded: Vec<bool> = match self.config.playout_cap {
            None => vec![true; running.len()],
            Some(cap) => running
                .iter()
                .map(|_| rng.random::<f32>() < cap.full_share)
                .collect(),
        };
        let split = self.config.players_differ();
        let second: Vec<bool> = running
            .iter()
            .map(|g| split && !self.game.first_to_move(&g.position))
            .collect();
        let mut evaluator = NetEvaluator {
            net: &self.net,
            encoder: &self.encoder,
        };
        let mut results: Vec<Option<SearchResult<G::Move>>> =
            running.iter().map(|_| None).collect();
        for (record, by_second) in [(true, false), (true, true), (false, false), (false, true)] {
            let picked: Vec<usize> = (0..running.len())
                .filter(|&k| (recorded[k], second[k]) == (record, by_second))
                .collect();
            if picked.is_empty() {
                continue;
            }
            let config = self.config.search_of(record, by_second);
            let roots: Vec<G::Position> = picked
                .iter()
                .map(|&k| running[k].position.clone())
                .collect();
            let found = search(&self.game, &roots, &config, &mut evaluator, rng);
            for (k, result) in picked.into_iter().zip(found) {
                results[k] = Some(result);
            }
        }
        for ((game, result), record) in running.iter_mut().zip(results).zip(recorded) {
            let result = result.expect("every running game was searched");
            if record {
                let mut row = vec![0.0; self.encoder.width()];
                self.encoder.encode(&game.position, &mut row);
                let sample = SearchSample {
                    row,
                    actions: result.actions.clone(),
                    policy: policy_target(&result.visits, result.proof),
                    search_value: result.value,
                    search_moves_left: result.moves_left,
                    symmetric: self.game.symmetric(&game.position),
                    value: 0.0,
                    moves_left: 0.0,
                };
                game.history.push((game.plies, sample));
            }
            let temperature = if game.plies < self.config.temperature_plies {
                1.0
            } else {
                0.0
            };
            let mv = result.sample(temperature, rng);
            game.position = self.game.play(&game.position, mv);
            game.plies += 1;
        }
    }

    /// Gives a finished game's positions their value targets and keeps them.
    fn remember(&mut self, history: Vec<(u32, SearchSample)>, plies: u32, end: SelfPlayEnd) {
        let w = self.config.search_value_weight;
        for (ply, mut sample) in history {
            let target = blended_target(plies - ply, end, &sample, self.config.search.discount, w);
            (sample.value, sample.moves_left) = (target.value, target.moves_left);
            self.replay.push_back(sample);
        }
        while self.replay.len() > self.config.replay_capacity {
            self.replay.pop_front();
        }
    }

    /// `updates` Adam steps on random minibatches of the replay (none until it
    /// holds one minibatch).
    fn train(&mut self, rng: &mut impl Rng) {
        let n = self.config.batch_size;
        if self.replay.len() < n {
            return;
        }
        for _ in 0..self.config.updates {
            let width = self.net.features();
            let mut rows = Vec::with_capacity(n * width);
            let mut targets = Vec::with_capacity(n);
            let mut values = Vec::with_capacity(n);
            for _ in 0..n {
                let sample = &self.replay[rng.random_range(0..self.replay.len())];
                let start = rows.len();
                rows.extend_from_slice(&sample.row);
                let actions = match self.augmentation {
                    Some(a) if sample.symmetric => {
                        let g = rng.random_range(0..a.symmetries);
                        (a.row)(&mut rows[start..], g);
                        sample.actions.iter().map(|&i| (a.action)(i, g)).collect()
                    }
                    _ => sample.actions.clone(),
                };
                targets.push(PolicyTarget {
                    actions,
                    shares: sample.policy.clone(),
                });
                values.push(ValueTarget {
                    value: sample.value,
                    moves_left: sample.moves_left,
                });
            }
            let step = self.net.update(self.config.lr, rows, &targets, &values);
            let (sum, count) = &mut self.losses;
            sum.value += step.value;
            sum.policy += step.policy;
            sum.moves_left += step.moves_left;
            *count += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_targets_carry_the_mate_back_with_alternating_sign() {
        // The mating side's last move: discount; the mated side one ply earlier:
        // -discount^2; a draw: 0.
        assert_eq!(value_target(1, true, 0.9), 0.9);
        assert!((value_target(2, true, 0.9) + 0.81).abs() < 1e-6);
        assert!((value_target(3, true, 0.9) - 0.729).abs() < 1e-6);
        assert_eq!(value_target(3, false, 0.9), 0.0);
    }

    #[test]
    fn targets_blend_the_games_end_with_the_roots_search_estimates() {
        let sample = SearchSample {
            row: vec![],
            actions: vec![],
            policy: vec![],
            search_value: 0.5,
            search_moves_left: 7.0,
            symmetric: true,
            value: 0.0,
            moves_left: 0.0,
        };
        // Mated side to move 4 plies before the mate: -(0.9^4) = -0.6561.
        let mate = SelfPlayEnd::Mate { first_won: true };
        let target = blended_target(4, mate, &sample, 0.9, 0.25);
        assert!((target.value - (0.75 * -0.6561 + 0.25 * 0.5)).abs() < 1e-6);
        assert_eq!(target.moves_left, 0.75 * 4.0 + 0.25 * 7.0);
        let drawn = blended_target(4, SelfPlayEnd::Draw, &sample, 0.9, 0.0);
        assert_eq!((drawn.value, drawn.moves_left), (0.0, 4.0));
        // Cut by the ply cap: no result, the search's estimates alone.
        let cut = blended_target(4, SelfPlayEnd::Cap, &sample, 0.9, 0.25);
        assert_eq!((cut.value, cut.moves_left), (0.5, 7.0));
    }

    #[test]
    fn a_learner_with_bad_settings_or_a_network_of_another_shape_is_refused() {
        use burn::tensor::Device;
        use burnmate_encode::side_to_move::SideToMoveEncoding;
        use burnmate_env::environment::Encoder as _;
        use burnmate_env::two_player::ChessGame;
        use rand::SeedableRng;

        let net = |features: usize| {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
            let device = Device::flex().autodiff();
            PolicyValueNet::new(features, &[4], ChessGame.actions(), false, device, &mut rng)
        };
        let config = SearchLearnerConfig {
            search: SearchConfig::default(),
            temperature_plies: 0,
            parallel: 2,
            replay_capacity: 100,
            batch_size: 4,
            updates: 1,
            lr: 1e-3,
            search_value_weight: 0.5,
            playout_cap: None,
            first_player_simulations: None,
            second_player_simulations: None,
        };
        let width = SideToMoveEncoding.width();
        assert!(SearchLearner::new(ChessGame, SideToMoveEncoding, net(width), config).is_ok());
        let no_games = SearchLearnerConfig {
            parallel: 0,
            ..config
        };
        let error = SearchLearner::new(ChessGame, SideToMoveEncoding, net(width), no_games)
            .err()
            .unwrap();
        assert_eq!(
            error,
            AgentError::Setting(
                "parallel (0), batch_size (4) and updates (1) must be positive".into()
            )
        );
        let error = SearchLearner::new(ChessGame, SideToMoveEncoding, net(7), config)
            .err()
            .unwrap();
        assert!(matches!(error, AgentError::Shape(_)), "{error}");
    }

    /// A KQK learner with a 4-unit net and 4-simulation searches.
    fn tiny_kqk_learner(
        playout_cap: Option<PlayoutCap>,
    ) -> SearchLearner<
        burnmate_env::two_player::ChessGame,
        burnmate_encode::side_to_move::SideToMoveEncoding,
    > {
        use burn::tensor::Device;
        use burnmate_encode::side_to_move::SideToMoveEncoding;
        use burnmate_env::environment::Encoder as _;
        use burnmate_env::two_player::ChessGame;
        use rand::SeedableRng;

        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        let device = Device::flex().autodiff();
        let width = SideToMoveEncoding.width();
        let net = PolicyValueNet::new(width, &[4], ChessGame.actions(), false, device, &mut rng);
        let config = SearchLearnerConfig {
            search: SearchConfig {
                simulations: 4,
                noise: 0.25,
                ..SearchConfig::default()
            },
            temperature_plies: 0,
            parallel: 2,
            replay_capacity: 1_000,
            batch_size: 1_000,
            updates: 1,
            lr: 1e-3,
            search_value_weight: 0.5,
            playout_cap,
            first_player_simulations: None,
            second_player_simulations: None,
        };
        SearchLearner::new(ChessGame, SideToMoveEncoding, net, config).unwrap()
    }

    #[test]
    fn with_a_playout_cap_only_fully_searched_moves_are_recorded_at_their_ply() {
        use rand::SeedableRng;
        use shakmaty::Chess;

        let kqk: Chess = burnmate_env::fen::position("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        let played = |share: f32| {
            let cap = PlayoutCap {
                full_share: share,
                full_simulations: 8,
            };
            let mut learner = tiny_kqk_learner(Some(cap));
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
            let games = learner.self_play(3, |_| (kqk.clone(), 6), &mut rng);
            let plies: u32 = games.iter().map(|g| g.plies).sum();
            (plies, learner.replay.len() as u32)
        };
        let (plies, recorded) = played(1.0);
        assert!(plies > 0);
        assert_eq!(recorded, plies, "every move searched in full is recorded");
        let (plies, recorded) = played(1e-9);
        assert!(plies > 0);
        assert_eq!(recorded, 0, "fast searches play on and are not recorded");

        // A position recorded at ply 3 of a game mated after 5 plies is 2 plies from
        // the mate, whatever was recorded before it.
        let mut learner = tiny_kqk_learner(None);
        let sample = SearchSample {
            row: vec![0.0; learner.net.features()],
            actions: vec![0],
            policy: vec![1.0],
            search_value: 0.25,
            search_moves_left: 4.0,
            symmetric: false,
            value: 0.0,
            moves_left: 0.0,
        };
        let end = SelfPlayEnd::Mate { first_won: true };
        learner.remember(vec![(3, sample.clone())], 5, end);
        let discount = learner.config.search.discount;
        let expected = blended_target(2, end, &sample, discount, 0.5);
        assert_eq!(learner.replay[0].value, expected.value);
        assert_eq!(learner.replay[0].moves_left, 3.0); // (2 + 4) / 2
    }

    #[test]
    fn a_playout_cap_must_search_a_share_of_moves_at_least_as_deep() {
        let config = tiny_kqk_learner(None).config;
        let refused = |cap: PlayoutCap| {
            SearchLearnerConfig {
                playout_cap: Some(cap),
                ..config
            }
            .check()
            .unwrap_err()
            .to_string()
        };
        for (full_share, full_simulations, named) in [
            (0.0, 8, "playout_cap.full_share must lie in (0, 1], not 0"),
            (0.25, 2, "playout_cap.full_simulations (2) must be at least"),
        ] {
            let error = refused(PlayoutCap {
                full_share,
                full_simulations,
            });
            assert!(error.contains(named), "{error}");
        }
    }

    #[test]
    fn full_fast_and_second_player_searches_take_their_simulations_and_noise() {
        let base = tiny_kqk_learner(None).config;
        assert_eq!(base.search_of(true, true), base.search);
        let config = SearchLearnerConfig {
            playout_cap: Some(PlayoutCap {
                full_share: 0.25,
                full_simulations: 16,
            }),
            second_player_simulations: Some(12),
            ..base
        };
        let of = |recorded, second| {
            let s = config.search_of(recorded, second);
            (s.simulations, s.noise)
        };
        assert_eq!(of(true, false), (16, 0.25));
        assert_eq!(of(true, true), (16, 0.25));
        assert_eq!(of(false, false), (4, 0.0));
        assert_eq!(of(false, true), (12, 0.0));
        let deeper_first = SearchLearnerConfig {
            first_player_simulations: Some(20),
            ..base
        };
        assert_eq!(deeper_first.search_of(true, false).simulations, 20);
        assert_eq!(deeper_first.search_of(true, true), base.search);
        for (first, second, named) in [
            (Some(0), None, "first_player_simulations"),
            (None, Some(0), "second_player_simulations"),
        ] {
            let error = SearchLearnerConfig {
                first_player_simulations: first,
                second_player_simulations: second,
                ..base
            }
            .check()
            .unwrap_err();
            assert_eq!(
                error,
                AgentError::Setting(format!("{named} must be positive"))
            );
        }
    }

    #[test]
    fn policy_targets_are_visit_shares_or_the_proof_move() {
        assert_eq!(policy_target(&[1, 3, 0], None), vec![0.25, 0.75, 0.0]);
        assert_eq!(policy_target(&[1, 3, 0], Some(0)), vec![1.0, 0.0, 0.0]);
    }
}
