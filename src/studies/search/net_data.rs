//! What a trained search net's file holds, whatever its format: the JSON of
//! `net_file` or the compact bytes of `compact`.

use burnmate_agents::search::SearchConfig;
use burnmate_env::endgame::Endgame;
use burnmate_models::LayerWeights;
use serde::{Deserialize, Serialize};

use crate::studies::search::settings::search_learner_config;

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
    /// The discount per ply it was trained with; its searches back values up with it.
    pub discount: f32,
    /// The prior weight of the self-play search it was trained with.
    pub self_play_c_puct: f32,
}

impl SearchNetFile {
    /// The self-play search the net was trained with: the matrix's, at the file's
    /// discount and prior weight.
    pub fn self_play_search(&self) -> SearchConfig {
        SearchConfig {
            c_puct: self.self_play_c_puct,
            discount: self.discount,
            ..search_learner_config().search
        }
    }
}
