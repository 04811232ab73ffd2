//! `configs/search-*.toml`: a search learner run on one endgame.

use anyhow::{Result, ensure};
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::studies::scenario::{ENDGAME_EVAL_GAMES, StartSource};
use crate::studies::search::settings::self_play_games;

/// A search learner run's config (`study = "search"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchStudyConfig {
    /// The endgame it learns to win (white to mate).
    pub endgame: Endgame,
    /// Seed of the net's initialisation, the starts and the searches' noise.
    pub seed: u64,
    /// Self-play games; none: the matrix's budget for the endgame (KQK 45,000,
    /// KRK 36,000, KBBK 40,000, KBNK 120,000).
    pub games: Option<u64>,
    /// Training starts: `retro` (grown backwards from mate, lengthened as the
    /// learner wins) or `frontier` (walked back from the starts it mated from).
    pub starts: StartSource,
    /// Won starts the trained net and its snapshots play against the perfect
    /// defender (the first of the matrix's 1,000).
    pub eval_starts: usize,
    /// Burn backend of the net.
    pub backend: BackendChoice,
}

impl Default for SearchStudyConfig {
    fn default() -> SearchStudyConfig {
        SearchStudyConfig {
            endgame: Endgame::Kqk,
            seed: 0,
            games: None,
            starts: StartSource::Retro,
            eval_starts: ENDGAME_EVAL_GAMES,
            backend: BackendChoice::Flex,
        }
    }
}

impl SearchStudyConfig {
    /// Self-play games of the run.
    pub fn games(&self) -> u64 {
        self.games.unwrap_or_else(|| self_play_games(self.endgame))
    }

    /// Refuses settings that cannot train, naming the key.
    pub fn check(&self) -> Result<()> {
        ensure!(self.games() > 0, "games must be positive");
        ensure!(
            matches!(self.starts, StartSource::Retro | StartSource::Frontier),
            "starts must be \"retro\" or \"frontier\" (the search learner trains on the rules alone)"
        );
        ensure!(
            (1..=ENDGAME_EVAL_GAMES).contains(&self.eval_starts),
            "eval_starts must lie in 1..={ENDGAME_EVAL_GAMES}"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_games_takes_the_matrix_budget_of_its_endgame() {
        let kbnk = SearchStudyConfig {
            endgame: Endgame::Kbnk,
            ..SearchStudyConfig::default()
        };
        assert_eq!(kbnk.games(), 120_000);
        assert_eq!(SearchStudyConfig::default().games(), 45_000);
    }

    #[test]
    fn starts_that_read_the_tablebase_are_refused() {
        let won = SearchStudyConfig {
            starts: StartSource::Won,
            ..SearchStudyConfig::default()
        };
        let error = won.check().unwrap_err().to_string();
        assert!(error.starts_with("starts must be"), "{error}");
        let none = SearchStudyConfig {
            games: Some(0),
            ..SearchStudyConfig::default()
        };
        assert_eq!(
            none.check().unwrap_err().to_string(),
            "games must be positive"
        );
    }
}
