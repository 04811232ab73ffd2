//! The runs that can play over UCI: a selfplay run of either algorithm (both
//! colours), an endgame Q-table (white in positions of its endgame) and a matrix's
//! search net (both colours).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Result, bail};
use burnmate_agents::afterstate::alpha_beta::{self, QUIESCENCE_PLIES, SearchLimit};
use burnmate_agents::afterstate::host_value::HostValueNet;
use burnmate_agents::afterstate::trainer::{AfterstateLearner, best_index};
use burnmate_agents::endgame::LeastBestQ;
use burnmate_agents::selfplay::trainer::SelfPlay;
use burnmate_engine::score::mate_in_moves;
use burnmate_engine::search::key_of;
use burnmate_engine::smp::MAX_THREADS;
use burnmate_engine::tables::{TableChain, Tables};
use burnmate_engine::{Evaluator, Features, Limits, Material, NnueEvaluator, ThreadPool};
use burnmate_env::endgame::{Endgame, has_material, within_reach};
use burnmate_env::selfplay::FullGame;
use burnmate_env::two_player::ChessGame;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Move, Position};

use crate::device::backend::BackendChoice;
use crate::run::tablebases::tablebase_dir;
use crate::studies::chess::compact;
use crate::studies::experiment::{Experiment, load_config};
use crate::studies::search::NET_FILE;
use crate::studies::search::net_file::{
    SearchNet, load as load_search_net, search_positions_until,
};
use crate::studies::selfplay::config::SelfplayAlgorithm;
use crate::tools::uci_server::endgame_tables::CachedTables;
use crate::tools::uci_server::syzygy::SyzygyTables;
use crate::tools::uci_server::{Alternative, Choice, GoLimit, SearchLine, UciPlayer};

/// A selfplay run's frozen selectors: the side to move plays its greedy move.
pub struct SelfplayPlayer {
    play: SelfPlay,
    name: String,
}

impl UciPlayer for SelfplayPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn best_move(&mut self, position: &Chess, among: &[Move], _: &GoLimit) -> Choice {
        match self.play.greedy_move(position, among) {
            Some((mv, score)) => Choice {
                mv,
                value: Some(f64::from(score)),
                note: None,
                nodes: 1,
                depth: 1,
                line: None,
            },
            // Only under-promotions listed: the selectors promote to a queen.
            None => Choice {
                mv: among[0],
                value: None,
                note: Some("the selectors choose no listed move: the first one".into()),
                nodes: 0,
                depth: 1,
                line: None,
            },
        }
    }
}

/// How an afterstate run searches its learned values at play time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaySearch {
    /// A full-width search of this many plies (1: the greedy move).
    FullWidth(u32),
    /// Iterative-deepening alpha-beta with quiescence
    /// ([`burnmate_agents::afterstate::alpha_beta`]), this many positions a move
    /// unless `go` limits it (`nodes`, `depth`, `movetime`, the clock).
    AlphaBeta(u64),
}

impl PlaySearch {
    /// The search of `--plies` and `--nodes` (one of them), refused in one line
    /// when both or none is meaningful.
    pub fn of(plies: u32, nodes: Option<u64>) -> Result<PlaySearch> {
        match (plies, nodes) {
            (0, _) => bail!("--plies must be at least 1"),
            (_, Some(0)) => bail!("--nodes must be at least 1"),
            (1, Some(n)) => Ok(PlaySearch::AlphaBeta(n)),
            (p, Some(_)) => {
                bail!("--plies {p} and --nodes: choose one search (full width or alpha-beta)")
            }
            (p, None) => Ok(PlaySearch::FullWidth(p)),
        }
    }

    /// Whether the run plays more than its greedy move.
    pub fn searches(self) -> bool {
        self != PlaySearch::FullWidth(1)
    }

    /// How reports name it, e.g. "3 plies" or "alpha-beta 20000 nodes".
    pub fn label(self) -> String {
        match self {
            PlaySearch::FullWidth(p) => format!("{p} plies"),
            PlaySearch::AlphaBeta(n) => format!("alpha-beta {n} nodes"),
        }
    }
}

/// Deepest iteration an alpha-beta player starts when `go` gives no depth.
const MAX_ALPHA_BETA_DEPTH: u32 = 64;

/// An afterstate run's value network: the side to move plays the best move of its
/// [`PlaySearch`] on the learned values (the position's history is not known, so
/// repetitions before the search's root are not foreseen).
pub struct AfterstatePlayer {
    learner: AfterstateLearner,
    host: HostValueNet,
    search: PlaySearch,
    name: String,
    /// UCI's `stop`: ends the alpha-beta search after its first depth.
    stop: Arc<AtomicBool>,
}

impl AfterstatePlayer {
    fn alpha_beta(&self, position: &Chess, among: &[Move], nodes: u64, limit: &GoLimit) -> Choice {
        let limit = SearchLimit {
            depth: limit.depth.unwrap_or(MAX_ALPHA_BETA_DEPTH),
            quiescence: QUIESCENCE_PLIES,
            nodes: limit.nodes.unwrap_or(nodes),
            time: limit.time_for(position.turn().is_white()),
        };
        let gamma = self.learner.config().gamma;
        let answer =
            alpha_beta::search_until(&self.host, gamma, position, among, limit, &self.stop)
                .expect("a position with listed moves");
        Choice {
            mv: answer.best,
            value: Some(f64::from(answer.value)),
            note: None,
            nodes: answer.nodes,
            depth: answer.depth,
            line: None,
        }
    }
}

impl UciPlayer for AfterstatePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = stop;
    }

    fn best_move(&mut self, position: &Chess, among: &[Move], limit: &GoLimit) -> Choice {
        let plies = match self.search {
            PlaySearch::AlphaBeta(nodes) => return self.alpha_beta(position, among, nodes, limit),
            PlaySearch::FullWidth(plies) => plies,
        };
        let game = FullGame::from_position(position.clone(), u32::MAX);
        let plies = limit.depth.map_or(plies, |d| d.min(plies));
        let mut moves = self.learner.search_values(&[&game], plies).remove(0);
        moves.retain(|m| among.contains(&m.mv));
        let best = &moves[best_index(&moves)];
        Choice {
            mv: best.mv,
            value: Some(f64::from(best.q)),
            note: None,
            nodes: position.legal_moves().len() as u64,
            depth: plies,
            line: None,
        }
    }
}

/// An endgame run's Q-table: its greedy move for white in its endgame; elsewhere
/// (black to move, other material) a random legal move, said so to the GUI.
pub struct EndgamePlayer {
    endgame: Endgame,
    table: LeastBestQ,
    rng: ChaCha8Rng,
    name: String,
}

impl UciPlayer for EndgamePlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn best_move(&mut self, position: &Chess, among: &[Move], _: &GoLimit) -> Choice {
        if position.turn() == Color::White && has_material(self.endgame, position.board()) {
            return Choice {
                mv: self.table.greedy_among(position, among, &mut self.rng),
                value: Some(self.table.best_value(position)),
                note: None,
                nodes: among.len() as u64,
                depth: 1,
                line: None,
            };
        }
        let note = format!(
            "not a white-to-move {} position: a random legal move",
            self.endgame.name().to_uppercase()
        );
        Choice {
            mv: among[self.rng.random_range(0..among.len())],
            value: None,
            note: Some(note),
            nodes: 0,
            depth: 1,
            line: None,
        }
    }
}

/// Most simulations `go nodes` may ask of a search net (a tree of this many nodes
/// takes tens of MB).
pub const MAX_SIMULATIONS: u32 = 100_000;

/// A matrix's search net: the side to move plays its search's move (the proof move
/// where the search proved the position) with the matrix's evaluation budget, or
/// `go nodes N` simulations, or as many as its time allows (`movetime`, clock), in
/// any position; outside its endgame (either colour) it says so to the GUI.
pub struct SearchPlayer {
    net: SearchNet,
    name: String,
    /// UCI's `stop`: ends the search after its two first rounds.
    stop: Arc<AtomicBool>,
}

impl UciPlayer for SearchPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = stop;
    }

    fn best_move(&mut self, position: &Chess, among: &[Move], limit: &GoLimit) -> Choice {
        let mut search = self.net.search;
        search.time_limit = limit.time_for(position.turn().is_white());
        if let Some(nodes) = limit.nodes {
            search.simulations = u32::try_from(nodes)
                .unwrap_or(u32::MAX)
                .min(MAX_SIMULATIONS);
        } else if search.time_limit.is_some() {
            search.simulations = MAX_SIMULATIONS;
        }
        let result = search_positions_until(
            &self.net.net,
            &search,
            &ChessGame,
            std::slice::from_ref(position),
            &[],
            &self.stop,
        )
        .remove(0);
        // The simulations run (the first expands the root, each later one visits a
        // root move): fewer than asked when time, `stop` or a proof ended the search.
        let nodes = 1 + result.visits.iter().map(|&v| u64::from(v)).sum::<u64>();
        let listed = |i: &usize| among.contains(&result.moves[*i]);
        let best = result
            .proof
            .filter(listed)
            .or_else(|| {
                (0..result.moves.len())
                    .filter(listed)
                    .max_by_key(|&i| (result.visits[i], std::cmp::Reverse(i)))
            })
            .expect("the listed moves are legal moves of the root");
        let endgame = self.net.file.endgame;
        let mut mirrored = position.board().clone();
        mirrored.mirror();
        let note = (!within_reach(endgame, position.board()) && !within_reach(endgame, &mirrored))
            .then(|| {
                format!(
                    "not a {} position nor one its captures and promotions lead to: the net plays outside what it learned",
                    endgame.name().to_uppercase()
                )
            });
        Choice {
            mv: result.moves[best],
            value: Some(f64::from(result.value)),
            note,
            nodes,
            depth: 1,
            line: None,
        }
    }
}

/// The name that stands for the engine-grade alpha-beta on material values (the
/// full-chess learner's generation 0) where a run is expected: `burnmate uci
/// builtin:material`, `burnmate match builtin:material`.
pub const BUILTIN_MATERIAL: &str = "builtin:material";

pub use crate::studies::chess::compact::BUILTIN_NET;

/// Nodes a move of the engine-grade search when neither `--nodes` nor `go` says.
pub const DEFAULT_ENGINE_NODES: u64 = 200_000;

/// Transposition-table megabytes of an engine-grade player until `Hash` says.
const ENGINE_TABLE_MB: usize = 64;

/// Most lines `MultiPV` may ask for.
const MAX_LINES: usize = 256;

/// Milliseconds kept back from each move's share of the clock until `Move Overhead`
/// says: the time the GUI and the pipes take, so a short clock is never lost.
const MOVE_OVERHEAD_MS: u64 = 10;

/// The engine-grade alpha-beta ([`burnmate_engine`]) on an evaluator: `go nodes`,
/// `depth`, `movetime` or the clock bound it, else its node budget; it knows the
/// game's earlier positions, so it avoids (or seeks) repetitions. UCI options:
/// `Hash` (MB), `Threads` (Lazy SMP on one shared table), `Move Overhead` (ms) and
/// `MultiPV` (the best line, then the best of the other moves ...) and `SyzygyPath`
/// (Syzygy tables, [`SyzygyTables`]); positions of burnmate's cached pawnless
/// tables, then of the Syzygy tables, take the tables' values in the search.
pub struct EngineSearchPlayer<E> {
    pool: ThreadPool<E>,
    /// The evaluator each thread copies when `Hash` or `Threads` change.
    evaluator: E,
    features: Features,
    hash_mb: usize,
    overhead: Duration,
    /// Lines searched a move (`MultiPV`): the best, then the best of the rest ...
    lines: usize,
    /// burnmate's cached pawnless tables, probed in the search.
    tables: Option<Arc<dyn Tables>>,
    /// The Syzygy tables of `SyzygyPath`, probed after burnmate's.
    syzygy: Option<Arc<SyzygyTables>>,
    nodes: u64,
    history: Vec<u64>,
    stop: Option<Arc<AtomicBool>>,
    name: String,
}

impl<E: Evaluator + Clone + Send> EngineSearchPlayer<E> {
    /// The player of `evaluator` searching `nodes` a move by default, with one thread,
    /// a 64 MB table and the pawnless tables of up to four pieces cached in the
    /// tablebase directory.
    pub fn new(evaluator: E, features: Features, nodes: u64, name: String) -> Self {
        let tables = CachedTables::load(&tablebase_dir());
        EngineSearchPlayer {
            pool: ThreadPool::new(
                evaluator.clone(),
                ENGINE_TABLE_MB,
                1,
                features,
                tables.clone(),
            ),
            tables,
            syzygy: None,
            evaluator,
            features,
            hash_mb: ENGINE_TABLE_MB,
            overhead: Duration::from_millis(MOVE_OVERHEAD_MS),
            lines: 1,
            nodes,
            history: Vec::new(),
            stop: None,
            name,
        }
    }

    fn rebuild(&mut self, hash_mb: usize, threads: usize) {
        self.hash_mb = hash_mb;
        let syzygy = self.syzygy.clone().map(|s| s as Arc<dyn Tables>);
        let tables = match (self.tables.clone(), syzygy) {
            (Some(own), Some(syzygy)) => Some(Arc::new(TableChain(vec![own, syzygy])) as _),
            (own, syzygy) => own.or(syzygy),
        };
        self.pool = ThreadPool::new(
            self.evaluator.clone(),
            hash_mb,
            threads,
            self.features,
            tables,
        );
    }
}

/// A spin option's value within `min..=max`, or why not.
fn spin(name: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    value
        .parse::<u64>()
        .ok()
        .filter(|v| (min..=max).contains(v))
        .ok_or_else(|| format!("option {name} takes {min}..={max}, not '{value}'"))
}

/// The largest `Hash` this machine takes: half its memory (64 GB where unknown).
fn max_hash_mb() -> u64 {
    crate::device::limits::machine_memory_mb().map_or(65_536, |mb| (mb / 2).max(1))
}

impl<E: Evaluator + Clone + Send> UciPlayer for EngineSearchPlayer<E> {
    fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.stop = Some(stop);
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn options(&self) -> Vec<String> {
        vec![
            format!(
                "option name Hash type spin default {ENGINE_TABLE_MB} min 1 max {}",
                max_hash_mb()
            ),
            format!("option name Threads type spin default 1 min 1 max {MAX_THREADS}"),
            format!(
                "option name Move Overhead type spin default {MOVE_OVERHEAD_MS} min 0 max 5000"
            ),
            format!("option name MultiPV type spin default 1 min 1 max {MAX_LINES}"),
            "option name SyzygyPath type string default <empty>".to_string(),
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mb = spin("Hash", value, 1, max_hash_mb())?;
                self.rebuild(mb as usize, self.pool.threads());
            }
            "threads" => {
                let threads = spin("Threads", value, 1, MAX_THREADS as u64)?;
                self.rebuild(self.hash_mb, threads as usize);
            }
            "move overhead" => {
                self.overhead = Duration::from_millis(spin("Move Overhead", value, 0, 5000)?);
            }
            "multipv" => self.lines = spin("MultiPV", value, 1, MAX_LINES as u64)? as usize,
            "syzygypath" => {
                let value = value.trim();
                self.syzygy = match value {
                    "" | "<empty>" => None,
                    paths => Some(Arc::new(SyzygyTables::open(paths)?)),
                };
                self.rebuild(self.hash_mb, self.pool.threads());
            }
            _ => return Err(format!("no option named '{name}'")),
        }
        Ok(())
    }

    fn see_history(&mut self, earlier: &[Chess]) {
        self.history = earlier.iter().map(key_of).collect();
    }

    fn new_game(&mut self) {
        self.pool.new_game();
        self.history.clear();
    }

    fn best_move(&mut self, position: &Chess, among: &[Move], limit: &GoLimit) -> Choice {
        // The clock's share less the overhead (at least a millisecond); `movetime`
        // as asked.
        let time = limit.time_for(position.turn().is_white()).map(|share| {
            if limit.movetime.is_some() {
                share
            } else {
                share
                    .saturating_sub(self.overhead)
                    .max(Duration::from_millis(1))
            }
        });
        // `go infinite` searches until `stop`; otherwise the budget applies when `go`
        // gives no limit of its own.
        let unbounded = limit.infinite || time.is_some() || limit.depth.is_some();
        // A position of the Syzygy tables: the move that keeps its value best by DTZ
        // (among those asked for), so a won ending is converted.
        let converting: Vec<Move> = self
            .syzygy
            .as_ref()
            .and_then(|s| s.best_move(position))
            .filter(|m| among.contains(m))
            .into_iter()
            .collect();
        let among = if self.lines == 1 && !converting.is_empty() {
            &converting[..]
        } else {
            among
        };
        // `MultiPV` lines share the time: each line is a search of its own.
        let lines = self.lines.min(among.len().max(1));
        let limits = Limits {
            depth: limit.depth,
            nodes: limit.nodes.or((!unbounded).then_some(self.nodes)),
            time: time.map(|t| t / lines as u32),
            stop: self.stop.clone(),
        };
        let result = self
            .pool
            .search(position, among, &self.history, limits.clone(), |_| {})
            .expect("a position with listed moves");
        let mut rest: Vec<Move> = among
            .iter()
            .filter(|&&m| m != result.best)
            .copied()
            .collect();
        let mut alternatives = Vec::new();
        let mut nodes = result.nodes;
        while alternatives.len() + 1 < lines && !rest.is_empty() {
            let next = self
                .pool
                .search(position, &rest, &self.history, limits.clone(), |_| {})
                .expect("moves are left");
            rest.retain(|&m| m != next.best);
            nodes += next.nodes;
            alternatives.push(Alternative {
                depth: next.depth,
                score: match mate_in_moves(next.score) {
                    Some(m) => format!("mate {m}"),
                    None => format!("cp {}", next.score),
                },
                pv: next.pv,
            });
        }
        self.history.clear();
        let mate_in = mate_in_moves(result.score);
        Choice {
            mv: result.best,
            value: Some(f64::from(result.score) / 100.0),
            note: mate_in.map(|m| format!("mate in {m} moves")),
            nodes,
            depth: result.depth,
            line: Some(SearchLine {
                pv: result.pv,
                mate_in,
                alternatives,
            }),
        }
    }
}

/// An engine-grade player on `evaluator` searching `search`'s nodes (the default
/// budget for a plain `FullWidth(1)`), named after `what` and `detail`.
fn engine_player<E: Evaluator + Clone + Send + 'static>(
    evaluator: E,
    search: PlaySearch,
    features: Features,
    what: &str,
    detail: &str,
) -> Result<Box<dyn UciPlayer>> {
    let nodes = match search {
        PlaySearch::AlphaBeta(n) => n,
        PlaySearch::FullWidth(1) => DEFAULT_ENGINE_NODES,
        PlaySearch::FullWidth(p) => bail!(
            "{what} searches by nodes (--nodes N, default {DEFAULT_ENGINE_NODES}), not --plies {p}"
        ),
    };
    Ok(Box::new(EngineSearchPlayer::new(
        evaluator,
        features,
        nodes,
        format!("burnmate engine ({detail}, {nodes} nodes)"),
    )))
}

/// A search net's player (it searches by simulations, so `search` must be the
/// default).
fn search_player(net: &Path, search: PlaySearch, name: String) -> Result<Box<dyn UciPlayer>> {
    if search.searches() {
        bail!(
            "{}: a search net searches by simulations; {} takes no --plies or --nodes",
            search.label(),
            net.display()
        );
    }
    let net = load_search_net(net, BackendChoice::Flex.device()?)?;
    Ok(Box::new(SearchPlayer {
        net,
        name,
        stop: Arc::default(),
    }))
}

/// The bytes of the compact chess net `run` names: the shipped one for
/// [`BUILTIN_NET`], a file's that starts as one; `None` for anything else.
fn compact_chess_bytes(run: &Path) -> Result<Option<Vec<u8>>> {
    if run == Path::new(BUILTIN_NET) {
        return Ok(Some(compact::SHIPPED.to_vec()));
    }
    if !run.is_file() {
        return Ok(None);
    }
    let bytes =
        std::fs::read(run).map_err(|e| anyhow::anyhow!("cannot read {}: {e}", run.display()))?;
    Ok(compact::is_compact_chess(&bytes).then_some(bytes))
}

/// The chess net `run` names (the shipped one, a compact file, or a chess run's
/// newest incumbent) on the host, with a line saying which it is.
pub fn load_chess_net(run: &Path) -> Result<(NnueEvaluator, String)> {
    let (file, detail) = if let Some(bytes) = compact_chess_bytes(run)? {
        let (header, file) = compact::from_bytes(&bytes)
            .map_err(|why| anyhow::anyhow!("{} {why}", run.display()))?;
        let detail = format!("{}, generation {}", header.origin, header.generation);
        (file, detail)
    } else {
        let generation = crate::studies::chess::generations::newest_incumbent(run)?;
        if generation == 0 {
            bail!(
                "{} has no net yet: generation 0 plays on material values",
                run.display()
            );
        }
        let file = crate::studies::chess::net_file::load(run, generation)?;
        (file, format!("{} generation {generation}", run.display()))
    };
    let net = NnueEvaluator::new(&file.layers, file.form()).map_err(anyhow::Error::msg)?;
    Ok((net, detail))
}

/// The player of `run`: a selfplay run, an endgame run, a search run or a
/// matrix's search net file; an afterstate run searches as `search` says, other
/// runs play one ply (they have no search; a search net searches as the matrix
/// evaluated it). A chess run and `builtin:material` search with the engine-grade
/// search's `features` (any other run refuses a rule switched off); a chess run
/// plays generation `generation`'s net (kept or not; 0: material values), or its
/// newest incumbent.
pub fn load_player(
    run: &Path,
    search: PlaySearch,
    features: Features,
    generation: Option<u32>,
) -> Result<Box<dyn UciPlayer>> {
    let name = format!(
        "burnmate {}",
        run.file_name()
            .map_or("run".into(), |n| n.to_string_lossy())
    );
    if run == Path::new(BUILTIN_MATERIAL) {
        if generation.is_some() {
            bail!("--generation applies to chess runs, not {BUILTIN_MATERIAL}");
        }
        return engine_player(Material, search, features, BUILTIN_MATERIAL, "material");
    }
    if compact_chess_bytes(run)?.is_some() {
        if generation.is_some() {
            bail!(
                "--generation applies to chess runs, not the net {}",
                run.display()
            );
        }
        let (net, detail) = load_chess_net(run)?;
        return engine_player(net, search, features, &run.display().to_string(), &detail);
    }
    // A net file (a matrix's or a shipped compact one), else a run directory's config (read once).
    let config = (!run.is_file())
        .then(|| load_config(&run.join("config.toml")))
        .transpose()?;
    if !matches!(config, Some(Experiment::Chess(_))) && features != Features::default() {
        bail!(
            "--with and --without apply to the engine-grade search (chess runs, {BUILTIN_MATERIAL}), not {}",
            run.display()
        );
    }
    if generation.is_some() && !matches!(config, Some(Experiment::Chess(_))) {
        bail!("--generation applies to chess runs, not {}", run.display());
    }
    let Some(config) = config else {
        return search_player(run, search, name);
    };
    match config {
        Experiment::Search(_) => search_player(&run.join(NET_FILE), search, name),
        Experiment::Selfplay(c) if c.algorithm == SelfplayAlgorithm::AfterstateTd => {
            let (_, learner) = crate::studies::selfplay::afterstate_file::load_run(run, None)?;
            Ok(Box::new(AfterstatePlayer {
                host: HostValueNet::new(learner.net().weights()),
                learner,
                search,
                name,
                stop: Arc::default(),
            }))
        }
        Experiment::Chess(_) => {
            let generation = match generation {
                Some(generation) => generation,
                None => crate::studies::chess::generations::newest_incumbent(run)?,
            };
            let shown = run.display().to_string();
            if generation == 0 {
                return engine_player(Material, search, features, &shown, "generation 0, material");
            }
            let file = crate::studies::chess::net_file::load(run, generation)?;
            let net = NnueEvaluator::new(&file.layers, file.form()).map_err(anyhow::Error::msg)?;
            engine_player(
                net,
                search,
                features,
                &shown,
                &format!("generation {generation}"),
            )
        }
        _ if search.searches() => bail!(
            "{}: only afterstate-td runs search; {} plays one ply",
            search.label(),
            run.display()
        ),
        Experiment::Selfplay(_) => {
            let (_, play) = crate::studies::selfplay::model_file::load_run(run)?;
            Ok(Box::new(SelfplayPlayer { play, name }))
        }
        Experiment::Endgame(_) => {
            let (config, endgame, table) = crate::studies::endgame::table_file::load_run(run)?;
            Ok(Box::new(EndgamePlayer {
                endgame,
                table,
                rng: ChaCha8Rng::seed_from_u64(config.seed),
                name,
            }))
        }
        _ => bail!(
            "{} is neither a chess, selfplay nor endgame run: only those play chess over UCI",
            run.display()
        ),
    }
}
