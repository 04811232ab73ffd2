//! The generations loop (the "zero" NNUE loops of Stormphrax and Leorik, on two
//! cores): generation 0 plays self-play on material values; each later generation
//! trains a candidate net on the last `window` generations' positions (starting from
//! the incumbent's weights, or fresh ones the first time or with `from_scratch`),
//! gates it against the incumbent (it stays only if it scores at least ½: not
//! weaker; or, with `gate_sprt`, when a sequential test says it is stronger), and
//! the incumbent plays the next self-play games.
//!
//! ```text
//! data_0 = self-play(material)
//! for g = 1 ..= generations:
//!     candidate_g = train(incumbent's weights, data_{g-window..g-1}), epochs passes
//!                   (fresh weights and fresh_epochs passes while the incumbent is
//!                   material, or always with from_scratch; train_positions / |data|
//!                   passes when set; the rate lr, or falling along a cosine from lr
//!                   to final_lr over the passes)
//!     incumbent   = candidate_g if gate(candidate_g, incumbent) >= ½ else incumbent
//!     data_g      = self-play(incumbent)
//! ```
//!
//! Files (all written atomically, before the generation's line): `data/gen-NNN.bin`
//! (labelled positions), `gen-NNN.net.json` (the candidate), and one line a finished
//! generation in `generations.csv`. A killed run resumes at the first generation
//! without a line; every step is seeded, so the resumed run is the same run.
//! `shards.rs` runs the same generation in steps, its self-play over machines.

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use crate::device::backend::BackendChoice;
use anyhow::{Context, Result};
use burnmate_agents::nnue_trainer::{
    DeviceNnueTrainer, MinibatchStep, NnueTrainer, fresh_weights, train_passes,
};
use burnmate_engine::packed::PackedPosition;
use burnmate_engine::{Evaluator, Material, NnueEvaluator, NnueForm};
use burnmate_env::game_result::GameResult;
use burnmate_models::LayerWeights;
use burnmate_oracle::rating::{Sprt, SprtDecision, Tally};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move};

use super::config::{ChessConfig, GATE_ROUND};
use super::games::{GameSettings, gate, self_play};
use super::{data_file, net_file};
use crate::run::cpu::cpu_seconds;
use crate::run::files::write_atomic;
use crate::run::progress::Progress;

/// The file of finished generations.
pub const GENERATIONS_FILE: &str = "generations.csv";

const HEADER: &str = "generation,games,positions,white_wins,draws,black_wins,first_loss,last_loss,gate_wins,gate_draws,gate_losses,accepted,incumbent,cpu_seconds";

/// One finished generation.
#[derive(Clone, Debug, PartialEq)]
pub struct GenerationRow {
    /// The generation.
    pub generation: u32,
    /// Self-play games played with the incumbent.
    pub games: u32,
    /// Labelled positions they gave.
    pub positions: usize,
    /// Self-play outcomes: white wins, draws, black wins.
    pub outcomes: [u32; 3],
    /// Mean loss of the first and the last training pass (none for generation 0).
    pub loss: Option<(f32, f32)>,
    /// The candidate's gating W/D/L against the incumbent (none for generation 0).
    pub gate: Option<(u64, u64, u64)>,
    /// Whether the candidate became the incumbent.
    pub accepted: bool,
    /// The incumbent after this generation (0: material values).
    pub incumbent: u32,
    /// CPU seconds of the whole run so far (both cores counted).
    pub cpu_seconds: f64,
}

impl GenerationRow {
    fn line(&self) -> String {
        let (first, last) = self.loss.map_or((String::new(), String::new()), |(a, b)| {
            (format!("{a:.6}"), format!("{b:.6}"))
        });
        let (w, d, l) = self.gate.map_or(
            (String::new(), String::new(), String::new()),
            |(w, d, l)| (w.to_string(), d.to_string(), l.to_string()),
        );
        format!(
            "{},{},{},{},{},{},{first},{last},{w},{d},{l},{},{},{:.1}",
            self.generation,
            self.games,
            self.positions,
            self.outcomes[0],
            self.outcomes[1],
            self.outcomes[2],
            self.accepted,
            self.incumbent,
            self.cpu_seconds
        )
    }

    fn parse(line: &str) -> Option<GenerationRow> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 14 {
            return None;
        }
        let num = |i: usize| f[i].parse::<u64>().ok();
        let opt = |i: usize| {
            if f[i].is_empty() {
                Some(None)
            } else {
                f[i].parse::<f32>().ok().map(Some)
            }
        };
        let loss = match (opt(6)?, opt(7)?) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        let gate = match (num(8), num(9), num(10)) {
            (Some(w), Some(d), Some(l)) => Some((w, d, l)),
            _ => None,
        };
        Some(GenerationRow {
            generation: num(0)? as u32,
            games: num(1)? as u32,
            positions: num(2)? as usize,
            outcomes: [num(3)? as u32, num(4)? as u32, num(5)? as u32],
            loss,
            gate,
            accepted: f[11].parse().ok()?,
            incumbent: num(12)? as u32,
            cpu_seconds: f[13].parse().ok()?,
        })
    }
}

/// The finished generations recorded in `run` (none for a new run); a damaged line
/// is a one-line error.
pub fn finished(run: &Path) -> Result<Vec<GenerationRow>> {
    let path = run.join(GENERATIONS_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .skip(1)
        .enumerate()
        .map(|(i, line)| {
            GenerationRow::parse(line)
                .filter(|r| r.generation == i as u32)
                .with_context(|| format!("{} line {} is damaged", path.display(), i + 2))
        })
        .collect()
}

/// Writes `rows` as the run's `generations.csv`.
pub(super) fn record(run: &Path, rows: &[GenerationRow]) -> Result<()> {
    let mut text = format!("{HEADER}\n");
    for row in rows {
        text.push_str(&row.line());
        text.push('\n');
    }
    write_atomic(&run.join(GENERATIONS_FILE), text.as_bytes())
}

/// Who plays a generation's games: material values (generation 0) or a net.
#[derive(Clone)]
pub(super) enum Player {
    Material(Material),
    Net(NnueEvaluator),
}

impl Evaluator for Player {
    fn evaluate(&mut self, position: &Chess) -> i32 {
        match self {
            Player::Material(m) => m.evaluate(position),
            Player::Net(n) => n.evaluate(position),
        }
    }

    fn root(&mut self, root: &Chess) {
        match self {
            Player::Material(m) => m.root(root),
            Player::Net(n) => n.root(root),
        }
    }

    fn push(&mut self, position: &Chess, mv: Option<&Move>) {
        match self {
            Player::Material(m) => m.push(position, mv),
            Player::Net(n) => n.push(position, mv),
        }
    }

    fn pop(&mut self) {
        match self {
            Player::Material(m) => m.pop(),
            Player::Net(n) => n.pop(),
        }
    }
}

/// A net's weights and form.
type Net = ([LayerWeights; 2], NnueForm);

/// The player of `run`'s generation `generation` and, for a net, its weights and form.
pub(super) fn player(run: &Path, generation: u32) -> Result<(Player, Option<Net>)> {
    if generation == 0 {
        return Ok((Player::Material(Material), None));
    }
    let file = net_file::load(run, generation)?;
    let net = NnueEvaluator::new(&file.layers, file.form()).map_err(anyhow::Error::msg)?;
    let form = file.form();
    Ok((Player::Net(net), Some((file.layers, form))))
}

/// Self-play games `games` of generation `generation` by `player`: their labelled
/// positions in game order and their white wins, draws and black wins. A game's
/// moves depend only on its index, so any split of the games gives the same
/// positions in the same order.
pub(super) fn play_generation(
    player: &Player,
    openings: &[Chess],
    config: &ChessConfig,
    generation: u32,
    games: Range<u64>,
) -> (Vec<PackedPosition>, [u32; 3]) {
    let settings = GameSettings {
        nodes: config.nodes,
        max_plies: config.max_plies,
        random_plies: config.random_plies,
        seed: config.seed ^ (u64::from(generation) << 32),
        table_mb: config.table_mb,
    };
    let (positions, outcomes) = self_play(player, openings, games, &settings);
    let count = |o: GameResult| outcomes.iter().filter(|&&x| x == o).count() as u32;
    (
        positions,
        [
            count(GameResult::WhiteWins),
            count(GameResult::Draw),
            count(GameResult::BlackWins),
        ],
    )
}

/// Passes over `positions` positions: `train_positions / positions` (rounded, at
/// least one) when set, else `epochs`, or `fresh_epochs` for fresh weights.
fn passes(config: &ChessConfig, fresh: bool, positions: usize) -> u32 {
    match config.train_positions {
        Some(budget) => (budget as f64 / positions.max(1) as f64).round().max(1.0) as u32,
        None if fresh => config.fresh_epochs.unwrap_or(config.epochs),
        None => config.epochs,
    }
}

/// The candidate of generation `generation`: [`passes`] over `data` from `start`,
/// or from fresh weights without a start (while the incumbent is material, or
/// always with `from_scratch`), the rate falling from `lr` to `final_lr` if set;
/// its weights and its first and last passes' mean losses.
fn train_candidate(
    start: Option<Net>,
    data: &[PackedPosition],
    config: &ChessConfig,
    generation: u32,
) -> Result<(Net, (f32, f32))> {
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ u64::from(generation));
    let epochs = passes(config, start.is_none(), data.len());
    let (start, form) = start.unwrap_or_else(|| {
        let buckets = config.king_buckets;
        let weights = fresh_weights(buckets, config.hidden, config.output_buckets, &mut rng);
        (weights, config.form())
    });
    let (losses, weights) = if config.backend == BackendChoice::Flex {
        let trainer = NnueTrainer::new(&start, form, config.lr).map_err(anyhow::Error::msg)?;
        run_passes(trainer, data, config, epochs, &mut rng)
    } else {
        let device = config.backend.device()?;
        let trainer = DeviceNnueTrainer::new(&start, form, &device).map_err(anyhow::Error::msg)?;
        run_passes(trainer, data, config, epochs, &mut rng)
    };
    let first_last = (losses[0], *losses.last().expect("epochs > 0"));
    Ok(((weights, form), first_last))
}

/// `epochs` passes of `trainer` (the host's step or a device's) over `data` with the
/// config's batch, result weight and rate schedule; each pass's loss and the weights.
fn run_passes(
    mut trainer: impl MinibatchStep,
    data: &[PackedPosition],
    config: &ChessConfig,
    epochs: u32,
    rng: &mut ChaCha8Rng,
) -> (Vec<f32>, [LayerWeights; 2]) {
    let losses = train_passes(
        &mut trainer,
        config.lr,
        data,
        epochs,
        config.batch,
        config.result_weight,
        config.final_lr,
        rng,
    );
    (losses, trainer.weights())
}

/// What a generation's training and gate decided, before its self-play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(super) struct Decision {
    /// Mean loss of the candidate's first and last pass (none for generation 0).
    pub loss: Option<(f32, f32)>,
    /// The candidate's gating W/D/L (none for generation 0).
    pub gate: Option<(u64, u64, u64)>,
    /// Whether the candidate became the incumbent.
    pub accepted: bool,
    /// The incumbent that plays the generation's self-play.
    pub incumbent: u32,
}

impl Decision {
    /// Generation 0's: material values play.
    pub const MATERIAL: Decision = Decision {
        loss: None,
        gate: None,
        accepted: true,
        incumbent: 0,
    };

    /// The finished row of `generation` once its self-play gave `positions`
    /// positions and `outcomes`.
    pub fn row(
        &self,
        generation: u32,
        config: &ChessConfig,
        positions: usize,
        outcomes: [u32; 3],
    ) -> GenerationRow {
        GenerationRow {
            generation,
            games: config.games,
            positions,
            outcomes,
            loss: self.loss,
            gate: self.gate,
            accepted: self.accepted,
            incumbent: self.incumbent,
            cpu_seconds: 0.0,
        }
    }
}

/// Generation `generation` >= 1 of `run` after incumbent `previous`, up to its
/// self-play: a candidate trained on the window's positions (saved) and gated
/// against the incumbent; the decision and the wall seconds of both steps in words.
pub(super) fn train_and_gate(
    run: &Path,
    config: &ChessConfig,
    openings: &[Chess],
    generation: u32,
    previous: u32,
) -> Result<(Decision, String)> {
    let (holder, holder_layers) = player(run, previous)?;
    let data =
        data_file::load_generations(run, generation.saturating_sub(config.window)..generation)?;
    let start = holder_layers.filter(|_| !config.from_scratch);
    let clock = Instant::now();
    let ((layers, form), loss) = train_candidate(start, &data, config, generation)?;
    let train = clock.elapsed().as_secs_f64();
    drop(data);
    net_file::save(run, generation, &layers, form)?;
    let candidate = NnueEvaluator::new(&layers, form).map_err(anyhow::Error::msg)?;
    let candidate = Player::Net(candidate);
    let settings = GameSettings {
        nodes: config.gate_nodes,
        max_plies: config.max_plies,
        random_plies: config.random_plies,
        seed: config.seed ^ 0x6A7E ^ (u64::from(generation) << 32),
        table_mb: config.table_mb,
    };
    let clock = Instant::now();
    let (gate, accepted) = gate_match(&candidate, &holder, openings, config, &settings);
    let gate_seconds = clock.elapsed().as_secs_f64();
    let decision = Decision {
        loss: Some(loss),
        gate: Some((gate.wins, gate.draws, gate.losses)),
        accepted,
        incumbent: if accepted { generation } else { previous },
    };
    Ok((
        decision,
        format!("training {train:.1}, gate {gate_seconds:.1}"),
    ))
}

/// Generation `generation` >= 1 of `run` after incumbent `previous`: trained and
/// gated ([`train_and_gate`]), then the winner's self-play (saved before the row is
/// returned); the wall seconds of the three phases in words.
fn next_generation(
    run: &Path,
    config: &ChessConfig,
    openings: &[Chess],
    generation: u32,
    previous: u32,
) -> Result<(GenerationRow, String)> {
    let (decision, phases) = train_and_gate(run, config, openings, generation, previous)?;
    let (winner, _) = player(run, decision.incumbent)?;
    let clock = Instant::now();
    let games = 0..u64::from(config.games);
    let (positions, outcomes) = play_generation(&winner, openings, config, generation, games);
    let play = clock.elapsed().as_secs_f64();
    data_file::save(&data_file::path(run, generation), &positions)?;
    let row = decision.row(generation, config, positions.len(), outcomes);
    Ok((row, format!(", wall s: {phases}, self-play {play:.1}")))
}

/// Runs (or resumes) the loop of `config` in `run`, training on the host's cores.
pub fn run_generations(
    run: &Path,
    config: &ChessConfig,
    progress: &dyn Progress,
) -> Result<Vec<GenerationRow>> {
    let started = Instant::now();
    let openings = super::openings::load(None)?;
    std::fs::create_dir_all(run.join("data")).context("cannot create the data directory")?;
    let mut rows = finished(run)?;
    let cpu_before = rows.last().map_or(0.0, |r| r.cpu_seconds);
    progress.advance(rows.len() as u64);
    for generation in rows.len() as u32..=config.generations {
        let (row, phases) = match rows.last() {
            None => {
                let games = 0..u64::from(config.games);
                let (positions, outcomes) =
                    play_generation(&Player::Material(Material), &openings, config, 0, games);
                data_file::save(&data_file::path(run, 0), &positions)?;
                let row = Decision::MATERIAL.row(0, config, positions.len(), outcomes);
                (row, String::new())
            }
            Some(last) => next_generation(run, config, &openings, generation, last.incumbent)?,
        };
        let row = GenerationRow {
            cpu_seconds: cpu_before + cpu_seconds(started),
            ..row
        };
        rows.push(row);
        record(run, &rows)?;
        super::step_files::clear(run, generation)?;
        crate::run::fault::crash_point("chess-generation-recorded");
        progress.note(&format!(
            "generation {generation}: incumbent {}, {:.0} CPU s{phases}",
            rows.last().expect("just pushed").incumbent,
            rows.last().expect("just pushed").cpu_seconds
        ));
        progress.advance(1);
    }
    Ok(rows)
}

/// The gating match of `candidate` against `incumbent` and whether the candidate
/// stays: `config.gate_games` games and the ½ rule, or with `config.gate_sprt` rounds
/// of [`GATE_ROUND`] games until the test decides (see [`ChessConfig::gate_sprt`]).
fn gate_match<C, I>(
    candidate: &C,
    incumbent: &I,
    openings: &[Chess],
    config: &ChessConfig,
    settings: &GameSettings,
) -> (Tally, bool)
where
    C: Evaluator + Clone + Send + Sync,
    I: Evaluator + Clone + Send + Sync,
{
    let total = u64::from(config.gate_games);
    let Some([elo0, elo1]) = config.gate_sprt else {
        let tally = gate(candidate, incumbent, openings, 0..total, settings);
        return (tally, tally.score() >= 0.5);
    };
    let sprt = Sprt::new(elo0, elo1).expect("validated");
    let mut tally = Tally::default();
    while tally.games() < total {
        let next = tally.games();
        let round = gate(
            candidate,
            incumbent,
            openings,
            next..(next + u64::from(GATE_ROUND)).min(total),
            settings,
        );
        tally.wins += round.wins;
        tally.draws += round.draws;
        tally.losses += round.losses;
        match sprt.decide(tally) {
            SprtDecision::H1 => return (tally, true),
            SprtDecision::H0 => return (tally, false),
            SprtDecision::Continue => {}
        }
    }
    (tally, tally.score() >= 0.5)
}

/// The incumbent after the last finished generation of `run` (0: material values).
pub fn newest_incumbent(run: &Path) -> Result<u32> {
    Ok(finished(run)?.last().map_or(0, |r| r.incumbent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_budget_sets_the_passes_whatever_the_data_holds() {
        let budget = ChessConfig {
            train_positions: Some(1_200_000),
            ..ChessConfig::default()
        };
        assert_eq!(passes(&budget, true, 39_320), 31);
        assert_eq!(passes(&budget, false, 300_678), 4);
        assert_eq!(passes(&budget, true, 1_148_436), 1);
        assert_eq!(passes(&budget, true, 5_000_000), 1);
        let fixed = ChessConfig {
            epochs: 2,
            fresh_epochs: Some(8),
            ..ChessConfig::default()
        };
        assert_eq!(passes(&fixed, true, 39_320), 8);
        assert_eq!(passes(&fixed, false, 39_320), 2);
    }
}
