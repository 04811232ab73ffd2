//! A trained search learner's network as a file: each `mcts` cell of a matrix
//! writes `nets/<endgame>-mcts-<seed>.json` in the matrix directory (a checkpoint),
//! and `burnmate uci FILE` and `burnmate play FILE --fen ...` serve it with the
//! search the matrix evaluated it with.

use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use burn::tensor::Device;
use burnmate_agents::policy_value::{NetEvaluator, PolicyValueNet};
use burnmate_agents::search::{SearchConfig, SearchResult, search};
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::endgame::Endgame;
use burnmate_env::environment::Encoder as _;
use burnmate_env::two_player::{ChessGame, TwoPlayerGame as _};
use burnmate_models::LayerWeights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move};

use crate::matrix::algorithm::evaluation_search;
use crate::matrix::cell::Cell;

/// The checkpoint format of a search net file.
pub const FORMAT: &str = "burnmate-search-net-v1";

/// The folder of a matrix directory that holds its search nets.
pub const NETS_DIR: &str = "nets";

/// What a search net file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchNetFile {
    /// The endgame it was trained on.
    pub endgame: Endgame,
    /// The cell's seed.
    pub seed: u64,
    /// Self-play games it was trained for.
    pub games: u64,
    /// The network's layers (side-to-move encoding in, policy logits and value out).
    pub layers: Vec<LayerWeights>,
}

/// The file of `cell`'s net in the matrix directory `dir`.
pub fn net_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join(NETS_DIR)
        .join(format!("{}.json", cell.file_stem()))
}

/// Writes `file` to `path` atomically (its folder created).
pub fn save(path: &Path, file: &SearchNetFile) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    crate::checkpoint::save(path, FORMAT, file)
}

/// Whether `path` is a search net file (a file, not a run directory).
pub fn is_search_net(path: &Path) -> bool {
    path.is_file()
}

/// A search net read back, ready to play.
pub struct SearchNet {
    /// What the file holds.
    pub file: SearchNetFile,
    /// The network.
    pub net: PolicyValueNet,
    /// The search it plays with: the matrix's evaluation search.
    pub search: SearchConfig,
}

/// Reads the search net at `path`; a missing, foreign or corrupt file, or layers of
/// another shape, is a one-line error.
pub fn load(path: &Path, device: Device) -> Result<SearchNet> {
    if !path.exists() {
        bail!("search net {} does not exist", path.display());
    }
    let file: SearchNetFile = crate::checkpoint::load(path, FORMAT)?;
    let net = PolicyValueNet::from_layers(&file.layers, ChessGame.actions(), device)
        .map_err(|e| anyhow!("search net {}: {e}", path.display()))?;
    if net.features() != SideToMoveEncoding.width() {
        bail!(
            "search net {} has {} inputs, not the side-to-move encoding's {}",
            path.display(),
            net.features(),
            SideToMoveEncoding.width(),
        );
    }
    let moves_left_head = net.has_moves_left();
    Ok(SearchNet {
        file,
        net,
        search: evaluation_search(moves_left_head),
    })
}

impl SearchNet {
    /// The searches of `positions` (none finished), in one batch.
    pub fn search(&self, positions: &[Chess]) -> Vec<SearchResult<Move>> {
        search_positions(&self.net, &self.search, positions)
    }
}

/// The searches of `positions` (none finished) with `net` and `config` (no root
/// noise), all in one batch.
pub fn search_positions(
    net: &PolicyValueNet,
    config: &SearchConfig,
    positions: &[Chess],
) -> Vec<SearchResult<Move>> {
    let mut evaluator = NetEvaluator {
        net,
        encoder: &SideToMoveEncoding,
    };
    // Without root noise the search draws nothing from its RNG.
    let mut unused = ChaCha8Rng::seed_from_u64(0);
    search(&ChessGame, positions, config, &mut evaluator, &mut unused)
}
