//! A trained search learner's network as a file: a search run's `net.json`, each
//! `mcts` cell of a matrix's `nets/<endgame>-mcts-<seed>.json` (checkpoints), or a
//! shipped compact net ([`compact`], `assets/nets/*.bmnet`); `burnmate uci FILE`
//! and `burnmate play FILE --fen ...` serve it with the search it was evaluated with.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use anyhow::{Result, anyhow, bail};
use burn::tensor::Device;
use burnmate_agents::policy_value::{NetEvaluator, PolicyValueNet};
use burnmate_agents::search::{SearchConfig, SearchResult, search_until};
use burnmate_encode::side_to_move::SideToMoveEncoding;
use burnmate_env::endgame::{Endgame, Match};
use burnmate_env::environment::Encoder as _;
use burnmate_env::match_game::EndgameMatchGame;
use burnmate_env::two_player::{ChessGame, TwoPlayerGame};
use burnmate_models::LayerWeights;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move};

use crate::studies::search::compact;
pub use crate::studies::search::net_data::SearchNetFile;
use crate::studies::search::settings::evaluation_search;

/// The checkpoint format of a search net file.
pub const FORMAT: &str = "burnmate-search-net-v2";

/// The format of the search net files written before 2026-11-27, which did not
/// record the search their nets learned with (discount 0.97, self-play prior weight
/// 1.5); they still load.
const FORMAT_V1: &str = "burnmate-search-net-v1";

/// What a search net file of [`FORMAT_V1`] holds.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchNetFileV1 {
    endgame: Endgame,
    seed: u64,
    games: u64,
    layers: Vec<LayerWeights>,
}

impl From<SearchNetFileV1> for SearchNetFile {
    fn from(v1: SearchNetFileV1) -> Self {
        SearchNetFile {
            endgame: v1.endgame,
            seed: v1.seed,
            games: v1.games,
            layers: v1.layers,
            discount: 0.97,
            self_play_c_puct: 1.5,
        }
    }
}

/// Writes `file` to `path` atomically (its folder created).
pub fn save(path: &Path, file: &SearchNetFile) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("cannot create {}: {e}", dir.display()))?;
    }
    crate::run::checkpoint::save(path, FORMAT, file)
}

/// A search net read back, ready to play.
pub struct SearchNet {
    /// What the file holds.
    pub file: SearchNetFile,
    /// The network.
    pub net: PolicyValueNet,
    /// The search it plays with: the matrix's evaluation search at its discount.
    pub search: SearchConfig,
}

/// Reads the search net at `path`; a missing, foreign or corrupt file, or layers of
/// another shape, is a one-line error.
pub fn load(path: &Path, device: Device) -> Result<SearchNet> {
    if !path.exists() {
        bail!("search net {} does not exist", path.display());
    }
    let file: SearchNetFile = if compact::is_compact_file(path)? {
        compact::load(path)?
    } else if crate::run::checkpoint::format_of(path)? == FORMAT_V1 {
        crate::run::checkpoint::load::<SearchNetFileV1>(path, FORMAT_V1)?.into()
    } else {
        crate::run::checkpoint::load(path, FORMAT)?
    };
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
    let search = evaluation_search(file.endgame, file.discount, net.has_moves_left());
    Ok(SearchNet { file, net, search })
}

impl SearchNet {
    /// The search of the position `game` has reached (not finished), by the match's
    /// rules and knowing its positions so far, as the evaluation searches.
    pub fn search_match(&self, game: &Match) -> SearchResult<Move> {
        let rules = EndgameMatchGame {
            endgame: self.file.endgame,
        };
        let position = std::slice::from_ref(game.position());
        search_positions(&self.net, &self.search, &rules, position, &[game.history()]).remove(0)
    }
}

/// The searches of `positions` (none finished) with `net` and `config` (no root
/// noise) under `game`'s rules (chess, or an endgame match's), all in one batch;
/// `earlier[i]`, where given, holds the repetition keys of position `i`'s game (its
/// repetitions are draws: [`burnmate_agents::search::search_after`]).
pub fn search_positions(
    net: &PolicyValueNet,
    config: &SearchConfig,
    game: &impl TwoPlayerGame<Position = Chess, Move = Move>,
    positions: &[Chess],
    earlier: &[&[u64]],
) -> Vec<SearchResult<Move>> {
    search_positions_until(
        net,
        config,
        game,
        positions,
        earlier,
        &AtomicBool::new(false),
    )
}

/// [`search_positions`] that also ends (after two rounds) once `stop` is raised.
pub fn search_positions_until(
    net: &PolicyValueNet,
    config: &SearchConfig,
    game: &impl TwoPlayerGame<Position = Chess, Move = Move>,
    positions: &[Chess],
    earlier: &[&[u64]],
    stop: &AtomicBool,
) -> Vec<SearchResult<Move>> {
    let mut evaluator = NetEvaluator {
        net,
        encoder: &SideToMoveEncoding,
    };
    // Without root noise the search draws nothing from its RNG.
    let mut unused = ChaCha8Rng::seed_from_u64(0);
    search_until(
        game,
        positions,
        earlier,
        config,
        &mut evaluator,
        &mut unused,
        stop,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::studies::search::settings::SEARCH_C_PUCT;
    use crate::temp_dir::TempDir;

    /// The layers of a small fresh net that plays chess from the side to move.
    fn layers() -> Vec<LayerWeights> {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let device = Device::flex().autodiff();
        PolicyValueNet::new(
            SideToMoveEncoding.width(),
            &[4],
            ChessGame.actions(),
            true,
            device,
            &mut rng,
        )
        .weights()
    }

    #[test]
    fn a_net_file_keeps_the_search_its_net_learned_with() {
        let tmp = TempDir::new();
        let path = tmp.path().join("kqk-mcts-0.json");
        let file = SearchNetFile {
            endgame: Endgame::Kqk,
            seed: 0,
            games: 64,
            layers: layers(),
            discount: 0.995,
            self_play_c_puct: 0.5,
        };
        save(&path, &file).unwrap();
        let net = load(&path, Device::flex().autodiff()).unwrap();
        assert_eq!(net.file, file);
        assert_eq!(net.search.discount, 0.995);
        assert_eq!(net.search.c_puct, SEARCH_C_PUCT);
        assert_eq!(net.search.noise, 0.0);
        let self_play = net.file.self_play_search();
        assert_eq!((self_play.discount, self_play.c_puct), (0.995, 0.5));
        assert!(self_play.noise > 0.0);
    }

    #[test]
    fn a_net_file_from_before_the_search_was_recorded_plays_at_its_discount() {
        let tmp = TempDir::new();
        let path = tmp.path().join("kqk-mcts-0.json");
        let v1 = SearchNetFileV1 {
            endgame: Endgame::Kqk,
            seed: 2,
            games: 64,
            layers: layers(),
        };
        crate::run::checkpoint::save(&path, FORMAT_V1, &v1).unwrap();
        let net = load(&path, Device::flex().autodiff()).unwrap();
        assert_eq!((net.file.seed, net.file.games), (2, 64));
        assert_eq!((net.file.discount, net.file.self_play_c_puct), (0.97, 1.5));
        assert_eq!(net.search.discount, 0.97);
        assert_eq!(net.search.c_puct, SEARCH_C_PUCT);
    }
}
