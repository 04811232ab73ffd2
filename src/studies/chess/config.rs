//! `configs/chess-zero.toml`: the full-chess learner's settings.

use anyhow::{Result, ensure};
use burnmate_encode::nnue::KingBuckets;
use burnmate_engine::NnueForm;
use burnmate_models::Activation;
use burnmate_oracle::rating::Sprt;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::device::limits::machine_memory_mb;

/// Games between two looks of the gating SPRT: fixed, so a run is the same on any
/// number of cores.
pub const GATE_ROUND: u32 = 8;

/// Most generations a run may ask for (a generation takes minutes at the least).
pub const MAX_GENERATIONS: u32 = 100_000;

/// The full-chess learner's config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ChessConfig {
    /// Seed of the openings' random plies, the nets' initialisation and the
    /// minibatch order.
    pub seed: u64,
    /// Generations to train after generation 0 (material values).
    pub generations: u32,
    /// Self-play games a generation.
    pub games: u32,
    /// Nodes a move of the self-play search.
    pub nodes: u64,
    /// Random plies after the shipped opening, for variety.
    pub random_plies: u32,
    /// Plies after which a self-play game is a draw.
    pub max_plies: u32,
    /// Hidden width of the net's feature transformer (a perspective).
    pub hidden: usize,
    /// Output buckets of a net from fresh weights, one picked by the position's
    /// material (bullet's `MaterialCount`: `(pieces - 2) / ceil(32 / B)`); 1: one
    /// output. (A candidate going on from the incumbent keeps the incumbent's.)
    #[serde(skip_serializing_if = "is_one")]
    pub output_buckets: usize,
    /// The activation of the feature transformer's sums: `crelu` (`clamp(s, 0, 1)`)
    /// or `screlu` (its square, bullet's default).
    #[serde(skip_serializing_if = "is_crelu")]
    pub activation: Activation,
    /// Where each perspective's own king places the inputs of a net from fresh
    /// weights: `plain` (768), `mirrored` (files e-h mirrored onto a-d), `four`
    /// (mirrored, in four blocks by the king's square, trained with a factoriser).
    #[serde(skip_serializing_if = "is_plain")]
    pub king_buckets: KingBuckets,
    /// Passes over a generation's training window, starting from the incumbent's
    /// weights.
    pub epochs: u32,
    /// Passes for a net that starts from fresh weights (while the incumbent is
    /// material values); absent: `epochs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fresh_epochs: Option<u32>,
    /// Every candidate starts from fresh weights (as the zero loops of Stormphrax
    /// and Leorik retrain each net on all data) instead of going on from the
    /// incumbent's; its passes are those of fresh weights (`train_positions`, or
    /// `fresh_epochs`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub from_scratch: bool,
    /// Positions a candidate trains on, whatever its window holds: passes =
    /// `train_positions / the window's positions`, rounded, at least one (a fixed
    /// budget, as bullet trains a fixed count of superbatches); absent: `epochs`
    /// passes (`fresh_epochs` for fresh weights).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_positions: Option<u64>,
    /// Positions a minibatch.
    pub batch: usize,
    /// Adam's learning rate (at a candidate's first step).
    pub lr: f64,
    /// The rate at a candidate's last step, reached along a cosine over its passes
    /// (nnue-pytorch and bullet decay theirs); absent: `lr` throughout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_lr: Option<f64>,
    /// Weight of the game result in the target (the rest is the search score).
    pub result_weight: f32,
    /// Generations of self-play data each training pass sees, the newest ones (more
    /// than the run has: every generation so far).
    pub window: u32,
    /// Games of each gating match (candidate against the incumbent, colours
    /// alternating, pairs from the same opening).
    pub gate_games: u32,
    /// `[elo0, elo1]`: the gating match is a sequential test of the candidate's Elo
    /// over the incumbent, `elo <= elo0` against `elo >= elo1` (α = β = 0.05), looked
    /// at every [`GATE_ROUND`] games up to `gate_games`; H1 keeps the candidate, H0
    /// drops it, and a test still open at `gate_games` keeps it if it scored >= ½.
    /// Absent: `gate_games` games and the ½ rule alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gate_sprt: Option<[f64; 2]>,
    /// Nodes a move in the gating match.
    pub gate_nodes: u64,
    /// Transposition-table megabytes of each side of a game: every game in play holds
    /// two (its two searchers), and one game plays a thread, so self-play and the
    /// gate hold `2 x threads x table_mb` megabytes of tables at once.
    pub table_mb: usize,
    /// Where the trainer runs: `flex` (the host's cores, the trainer's own sparse
    /// step), or `wgpu` / `vulkan` (a GPU: the same step as a Burn module with a
    /// dense feature transformer; `ndarray` runs that step on the host, slowly).
    pub backend: BackendChoice,
}

/// Whether a count is its default of one (left out of a saved config).
fn is_one(count: &usize) -> bool {
    *count == 1
}

/// Whether the inputs are plain (left out of a saved config).
fn is_plain(king_buckets: &KingBuckets) -> bool {
    *king_buckets == KingBuckets::Plain
}

/// Whether the activation is the default CReLU (left out of a saved config).
fn is_crelu(activation: &Activation) -> bool {
    *activation == Activation::Crelu
}

impl Default for ChessConfig {
    fn default() -> ChessConfig {
        ChessConfig {
            seed: 0,
            generations: 5,
            games: 400,
            nodes: 5_000,
            random_plies: 4,
            max_plies: 300,
            hidden: 128,
            output_buckets: 1,
            activation: Activation::Crelu,
            king_buckets: KingBuckets::Plain,
            epochs: 8,
            fresh_epochs: None,
            from_scratch: false,
            train_positions: None,
            batch: 1_024,
            lr: 1e-3,
            final_lr: None,
            result_weight: 0.3,
            window: 3,
            gate_games: 40,
            gate_sprt: None,
            gate_nodes: 5_000,
            table_mb: 16,
            backend: BackendChoice::Flex,
        }
    }
}

impl ChessConfig {
    /// The form of the nets it trains from fresh weights.
    pub fn form(&self) -> NnueForm {
        NnueForm {
            activation: self.activation,
            king_buckets: self.king_buckets,
        }
    }

    /// Refuses settings that cannot train, naming the key.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            self.generations <= MAX_GENERATIONS,
            "generations must be at most {MAX_GENERATIONS}"
        );
        ensure!(self.games > 0, "games must be positive");
        ensure!(self.nodes > 0, "nodes must be positive");
        ensure!(self.max_plies > 0, "max_plies must be positive");
        ensure!(
            (1..=4096).contains(&self.hidden),
            "hidden must lie in 1..=4096"
        );
        ensure!(
            (1..=32).contains(&self.output_buckets),
            "output_buckets must lie in 1..=32"
        );
        ensure!(self.epochs > 0, "epochs must be positive");
        ensure!(
            self.train_positions != Some(0),
            "train_positions must be positive"
        );
        ensure!(
            self.fresh_epochs != Some(0),
            "fresh_epochs must be positive"
        );
        ensure!(
            (1..=65_536).contains(&self.batch),
            "batch must lie in 1..=65536"
        );
        ensure!(
            self.lr > 0.0 && self.lr <= 1.0,
            "lr must lie in (0, 1] (Adam's step; larger rates overflow to NaN nets)"
        );
        ensure!(
            self.final_lr.is_none_or(|end| end > 0.0 && end <= self.lr),
            "final_lr must lie in (0, lr]"
        );
        ensure!(
            (0.0..=1.0).contains(&self.result_weight),
            "result_weight must lie in 0..=1"
        );
        ensure!(self.window > 0, "window must be positive");
        ensure!(
            self.gate_games > 0 && self.gate_games.is_multiple_of(2),
            "gate_games must be a positive even number (pairs of games)"
        );
        if let Some([elo0, elo1]) = self.gate_sprt {
            Sprt::new(elo0, elo1).map_err(|_| {
                anyhow::anyhow!(
                    "gate_sprt must be [elo0, elo1] with elo0 < elo1, got [{elo0}, {elo1}]"
                )
            })?;
        }
        ensure!(self.gate_nodes > 0, "gate_nodes must be positive");
        ensure!(
            (1..=4096).contains(&self.table_mb),
            "table_mb must lie in 1..=4096"
        );
        self.check_tables_fit(rayon::current_num_threads(), machine_memory_mb())
    }

    /// Refuses a `table_mb` whose tables (two a thread) would not fit in `memory_mb`
    /// megabytes (unknown: none refused).
    pub fn check_tables_fit(&self, threads: usize, memory_mb: Option<u64>) -> Result<()> {
        let tables_mb = 2 * threads as u64 * self.table_mb as u64;
        if let Some(memory_mb) = memory_mb {
            ensure!(
                tables_mb <= memory_mb / 2,
                "table_mb = {} takes {tables_mb} MB on {threads} threads (two tables a thread), more than half of this machine's {memory_mb} MB; lower it",
                self.table_mb
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_beyond_half_the_machine_and_overflowing_rates_are_refused() {
        // Probe: table_mb = 4096 passed and took 16.8 GB on 2 cores.
        let config = ChessConfig {
            table_mb: 4096,
            ..ChessConfig::default()
        };
        let error = config.check_tables_fit(2, Some(16_000)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "table_mb = 4096 takes 16384 MB on 2 threads (two tables a thread), more than half of this machine's 16000 MB; lower it"
        );
        assert!(config.check_tables_fit(2, Some(32_768)).is_ok());
        assert!(config.check_tables_fit(2, None).is_ok());
        // Probe: lr = 1e308 trained NaN nets silently.
        for lr in [1e308, 1.5, 0.0, -1.0] {
            let config = ChessConfig {
                lr,
                ..ChessConfig::default()
            };
            let error = config.validate().unwrap_err().to_string();
            assert!(error.starts_with("lr must lie in (0, 1]"), "{lr}: {error}");
        }
    }
}
