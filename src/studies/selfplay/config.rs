//! The selfplay config: defaults reproduce the study's code (STUDIES.md section 4);
//! the text's readings are options. `algorithm = "afterstate-td"` trains our
//! learner instead, with its settings in an `[afterstate]` table.

use anyhow::{Result, ensure};
use burnmate_agents::selfplay::choice::Combine;
use burnmate_agents::selfplay::net::{AdamMode, NetConfig};
use burnmate_agents::selfplay::trainer::{
    GameEndRule, SelfPlayTrainerConfig, StepPenalty, UpdateOrder,
};
use burnmate_models::SelectorPadding;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::device::limits::{MAX_HIDDEN, MAX_REPLAY};
use crate::run::overrides::Overrides;

/// Which algorithm a selfplay run trains.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelfplayAlgorithm {
    /// The study's two sides of piece and move selectors (default).
    #[default]
    Reference,
    /// Ours: one afterstate value network for both colours (see
    /// `burnmate_agents::afterstate`).
    AfterstateTd,
}

/// Settings of `algorithm = "afterstate-td"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AfterstateSettings {
    /// Hidden ReLU layer widths of the value network.
    pub hidden: Vec<usize>,
    /// Exploration of the first training game.
    pub epsilon_start: f64,
    /// Exploration after `epsilon_games` games (linear decay in between).
    pub epsilon_end: f64,
    /// Games over which exploration decays.
    pub epsilon_games: u64,
    /// Positions per minibatch.
    pub batch_size: usize,
    /// Positions the replay buffer holds.
    pub replay_capacity: usize,
    /// Minibatch updates after each ply of all `envs` games.
    pub updates_per_step: usize,
    /// Ply cap of evaluation games (adjudicated by material at the cap).
    pub eval_max_plies: u32,
}

impl Default for AfterstateSettings {
    fn default() -> AfterstateSettings {
        AfterstateSettings {
            hidden: vec![128, 64],
            epsilon_start: 1.0,
            epsilon_end: 0.05,
            epsilon_games: 500,
            batch_size: 256,
            replay_capacity: 100_000,
            updates_per_step: 1,
            eval_max_plies: 200,
        }
    }
}

/// Settings of one selfplay run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// `reference` (the study) or `afterstate-td` (ours).
    pub algorithm: SelfplayAlgorithm,
    /// Training games.
    pub games: u64,
    /// Seed of the run (weights, exploration, evaluation).
    pub seed: u64,
    /// Burn backend.
    pub backend: BackendChoice,
    /// Games played side by side, batched through each selector (1: the study).
    pub envs: usize,
    /// Ply cap per game (the study's code: 100).
    pub max_plies: u32,
    /// Convolution padding: `valid` (the code, and the text's "flattened into 128
    /// nodes") or `same` (an option of ours: 8x8 kept, flatten 2048).
    pub padding: SelectorPadding,
    /// Adam learning rate (study: 0.01).
    pub lr: f64,
    /// `reference` (a new Adam every update, the code) or `persistent`.
    pub adam: AdamMode,
    /// Discount (study: 0.99).
    pub gamma: f32,
    /// `every-move` (code) or `quiet-moves` (text).
    pub step_penalty: StepPenalty,
    /// `reference` (the code's score rule) or `product` (text).
    pub combine: Combine,
    /// Probability of a random legal move while training (study: 0).
    pub epsilon: f64,
    /// `update-then-choose` (the code) or `choose-then-update` (one forward pass a turn).
    pub update_order: UpdateOrder,
    /// `reference` (the code: the loser gets minus the last capture, targets
    /// bootstrap at the end) or `terminal` (a terminal step: own capture minus the
    /// loss, no bootstrap).
    pub game_end: GameEndRule,
    /// Training games between evaluations.
    pub eval_every: u64,
    /// Games per evaluation and opponent (half with each colour).
    pub eval_games: u64,
    /// A training game is saved to `games.pgn` every this many games.
    pub pgn_every: u64,
    /// Pad network batches to powers of two (fewer shapes for a GPU to autotune).
    pub bucket_batches: bool,
    /// Also evaluate against Stockfish at `stockfish_skill` (needs the engine).
    pub eval_stockfish: bool,
    /// The engine: a program name looked up on PATH and in /usr/games, or a path.
    pub stockfish: String,
    /// Stockfish's `Skill Level`, 0 (weakest) to 20.
    pub stockfish_skill: u8,
    /// Search depth per Stockfish move.
    pub stockfish_depth: u32,
    /// Settings of `algorithm = "afterstate-td"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub afterstate: Option<AfterstateSettings>,
}

impl Default for SelfplayConfig {
    fn default() -> SelfplayConfig {
        SelfplayConfig {
            algorithm: SelfplayAlgorithm::Reference,
            games: 200,
            seed: 0,
            backend: BackendChoice::Flex,
            envs: 1,
            max_plies: 100,
            padding: SelectorPadding::Valid,
            lr: 0.01,
            adam: AdamMode::Reference,
            gamma: 0.99,
            step_penalty: StepPenalty::EveryMove,
            combine: Combine::Reference,
            epsilon: 0.0,
            update_order: UpdateOrder::UpdateThenChoose,
            game_end: GameEndRule::Reference,
            eval_every: 50,
            eval_games: 20,
            pgn_every: 50,
            bucket_batches: false,
            eval_stockfish: false,
            stockfish: "stockfish".into(),
            stockfish_skill: 0,
            stockfish_depth: 5,
            afterstate: None,
        }
    }
}

impl SelfplayConfig {
    /// Checks value ranges; errors name the key.
    pub fn validate(&self) -> Result<()> {
        ensure!(self.games > 0, "games must be positive");
        ensure!(
            (1..=65536).contains(&self.envs),
            "envs must lie in 1..65536"
        );
        ensure!(self.max_plies > 0, "max_plies must be positive");
        ensure!(self.lr > 0.0, "lr must be positive");
        ensure!(
            (0.0..=1.0).contains(&self.gamma),
            "gamma must lie in [0, 1]"
        );
        ensure!(
            (0.0..=1.0).contains(&self.epsilon),
            "epsilon must lie in [0, 1]"
        );
        ensure!(self.eval_every > 0, "eval_every must be positive");
        ensure!(self.eval_games > 0, "eval_games must be positive");
        ensure!(self.pgn_every > 0, "pgn_every must be positive");
        ensure!(
            self.stockfish_skill <= 20,
            "stockfish_skill must lie in 0..20"
        );
        ensure!(
            (1..=60).contains(&self.stockfish_depth),
            "stockfish_depth must lie in 1..60"
        );
        match self.algorithm {
            SelfplayAlgorithm::Reference => {
                ensure!(
                    self.afterstate.is_none(),
                    "[afterstate] settings apply to algorithm = \"afterstate-td\" only"
                );
                ensure!(
                    self.envs == 1 || self.epsilon > 0.0,
                    "envs = {} with epsilon = 0 would play {} identical copies of one game (greedy sides, one start); set epsilon > 0 (e.g. 0.1) or envs = 1",
                    self.envs,
                    self.envs
                );
                Ok(())
            }
            SelfplayAlgorithm::AfterstateTd => self.validate_afterstate(),
        }
    }

    /// The afterstate learner's settings (its defaults when the table is absent).
    pub fn afterstate(&self) -> AfterstateSettings {
        self.afterstate.clone().unwrap_or_default()
    }

    /// The keys of the study's algorithm that `afterstate-td` leaves at their
    /// defaults, and whether this config sets each.
    fn study_only_keys(&self) -> [(&'static str, bool); 8] {
        let reference = SelfplayConfig::default();
        [
            ("padding", self.padding != reference.padding),
            ("adam", self.adam != reference.adam),
            ("step_penalty", self.step_penalty != reference.step_penalty),
            ("combine", self.combine != reference.combine),
            ("epsilon", self.epsilon != reference.epsilon),
            ("update_order", self.update_order != reference.update_order),
            ("game_end", self.game_end != reference.game_end),
            (
                "bucket_batches",
                self.bucket_batches != reference.bucket_batches,
            ),
        ]
    }

    /// The keys a resolved config leaves out: the study's own for `afterstate-td`.
    pub fn unused_keys(&self) -> Vec<&'static str> {
        match self.algorithm {
            SelfplayAlgorithm::Reference => Vec::new(),
            SelfplayAlgorithm::AfterstateTd => {
                self.study_only_keys().iter().map(|(key, _)| *key).collect()
            }
        }
    }

    fn validate_afterstate(&self) -> Result<()> {
        let study_only = self.study_only_keys();
        if let Some((key, _)) = study_only.iter().find(|(_, set)| *set) {
            anyhow::bail!(
                "{key} applies to algorithm = \"reference\" only; afterstate-td explores with afterstate.epsilon_start/epsilon_end"
            );
        }
        let a = self.afterstate();
        ensure!(
            a.hidden.iter().all(|w| (1..=MAX_HIDDEN).contains(w)),
            "afterstate.hidden widths must lie in 1..={MAX_HIDDEN}"
        );
        for (name, value) in [
            ("epsilon_start", a.epsilon_start),
            ("epsilon_end", a.epsilon_end),
        ] {
            ensure!(
                (0.0..=1.0).contains(&value),
                "afterstate.{name} must lie in [0, 1]"
            );
        }
        ensure!(a.batch_size > 0, "afterstate.batch_size must be positive");
        ensure!(
            a.replay_capacity >= a.batch_size,
            "afterstate.replay_capacity must hold at least one batch"
        );
        ensure!(
            a.replay_capacity <= MAX_REPLAY,
            "afterstate.replay_capacity must be at most {MAX_REPLAY}"
        );
        ensure!(
            a.eval_max_plies > 0,
            "afterstate.eval_max_plies must be positive"
        );
        Ok(())
    }

    /// Applies command-line overrides.
    pub fn with_overrides(mut self, o: &Overrides) -> SelfplayConfig {
        self.seed = o.seed.unwrap_or(self.seed);
        self.games = o.episodes.unwrap_or(self.games);
        self.backend = o.backend.unwrap_or(self.backend);
        self.envs = o.envs.unwrap_or(self.envs);
        self
    }

    /// The networks' settings.
    pub fn net(&self) -> NetConfig {
        NetConfig {
            padding: self.padding,
            lr: self.lr,
            adam: self.adam,
            bucket_batches: self.bucket_batches,
        }
    }

    /// The self-play loop's settings.
    pub fn play(&self) -> SelfPlayTrainerConfig {
        SelfPlayTrainerConfig {
            gamma: self.gamma,
            penalty: self.step_penalty,
            combine: self.combine,
            epsilon: self.epsilon,
            max_plies: self.max_plies,
            envs: self.envs,
            order: self.update_order,
            game_end: self.game_end,
        }
    }
}
