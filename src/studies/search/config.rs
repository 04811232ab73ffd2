//! `configs/search-*.toml`: a search learner run on one endgame.

use anyhow::{Result, ensure};
use burnmate_agents::search_learner::PlayoutCap;
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::device::backend::BackendChoice;
use crate::studies::scenario::{ENDGAME_EVAL_GAMES, StartSource};
use crate::studies::search::settings::{
    captured_share, near_mate_share, promoted_share, self_play_games,
};
use crate::studies::search::training::SearchTraining;

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
    /// learner wins), `frontier` (walked back from the starts it mated from) or
    /// `uniform` (every legal position of the material); none: `uniform` where white
    /// has a pawn (KPK, KPKP: white mates after a promotion), `retro` for the others
    /// (KQKP and KRKP too: KRKP seeds 0-2 mated 96.1, 96.2 and 94.8 % of the won starts
    /// from retro starts against 95.6, 1.4 and 94.2 % from uniform ones, KQKP seed 0
    /// 97.9 against 98.2 %; `results/search-pawn-curricula-2026-12-06/`).
    pub starts: Option<StartSource>,
    /// Won starts the trained net and its snapshots play against the perfect
    /// defender (the first of the matrix's 1,000).
    pub eval_starts: usize,
    /// Burn backend of the net.
    pub backend: BackendChoice,
    /// KataGo's playout-cap randomisation of self-play, e.g.
    /// `playout_cap = { full_share = 0.25, full_simulations = 192 }`: a quarter of the
    /// moves searched at 192 simulations and recorded, the rest at 64 and played
    /// only; none (the default): every move at 64 and recorded.
    pub playout_cap: Option<PlayoutCap>,
    /// Simulations of white's (the attacker's) self-play searches, more than the
    /// learner's 64: a stronger attacker for black to defend against; none (the
    /// default): 64.
    pub attacker_simulations: Option<u32>,
    /// Simulations of black's (the defender's) self-play searches, more than
    /// white's 64: a stronger opponent to learn against; none (the default): 64.
    pub defender_simulations: Option<u32>,
    /// Adam steps a ply round of self-play (the replay ratio: each ply round adds a
    /// position a game, `parallel` in all, and a step learns from 256); none (the
    /// default): 1.
    pub updates: Option<u32>,
    /// Share of self-play starts retried from the fresh starts white failed to mate
    /// from (Go-Exploit's archive, [`crate::studies::scenario::retry`]), in [0, 1];
    /// none (the default): no start is retried.
    pub retry_share: Option<f64>,
    /// Adam's learning rate at the last game, reached along a half cosine from the
    /// learner's 1e-3 (bullet's cosine decay); none (the default): 1e-3 throughout.
    pub lr_end: Option<f64>,
    /// Share of the uniform starts of a pawn ending where white has a pawn (KPK, KPKP)
    /// with that pawn promoted where it stands, to a queen or a rook alike
    /// ([`burnmate_env::endgame::promoted_start`]), so the net values both
    /// promotions' materials (KPK's KQK and KRK), in [0, 1]; none: 0.25 for those
    /// endings ([`PROMOTED_SHARE`](crate::studies::search::settings::PROMOTED_SHARE)),
    /// 0 (every start of the ending's own material) for the others.
    pub promoted_share: Option<f64>,
    /// Share of the uniform starts of a pawn ending where black has a pawn (KQKP,
    /// KRKP, KPKP) with black's pawn taken off ([`burnmate_env::endgame::without_black_pawns`]):
    /// the material white's capture leads to (KRKP's KRK, KPKP's KPK), mates to learn
    /// early; in [0, 1]; none: 0.25 for KPKP
    /// ([`CAPTURED_SHARE`](crate::studies::search::settings::CAPTURED_SHARE)), 0 (black
    /// keeps its pawn) for the others.
    pub captured_share: Option<f64>,
    /// Share of the uniform starts of a pawn ending where white has a pawn (KPK,
    /// KPKP) drawn instead a few un-moves back from a mate of the ending after the
    /// promotion to a queen (KPK's KQK, KPKP's KQKP;
    /// [`NEAR_MATE_PLIES`](crate::studies::search::training::NEAR_MATE_PLIES) at
    /// most), mates to learn from the first games, in [0, 1]; none: 0.25 for KPKP
    /// ([`NEAR_MATE_SHARE`](crate::studies::search::settings::NEAR_MATE_SHARE)), 0 for
    /// the others.
    pub near_mate_share: Option<f64>,
}

impl Default for SearchStudyConfig {
    fn default() -> SearchStudyConfig {
        SearchStudyConfig {
            endgame: Endgame::Kqk,
            seed: 0,
            games: None,
            starts: None,
            eval_starts: ENDGAME_EVAL_GAMES,
            backend: BackendChoice::Flex,
            playout_cap: None,
            attacker_simulations: None,
            defender_simulations: None,
            updates: None,
            retry_share: None,
            lr_end: None,
            promoted_share: None,
            captured_share: None,
            near_mate_share: None,
        }
    }
}

impl SearchStudyConfig {
    /// The run's training starts (`starts`, or its endgame's default).
    pub fn starts(&self) -> StartSource {
        self.starts.unwrap_or(if self.endgame.white_promotes() {
            StartSource::Uniform
        } else {
            StartSource::Retro
        })
    }

    /// The run's share of promoted starts (`promoted_share`, or its endgame's
    /// default).
    pub fn promoted_share(&self) -> Option<f64> {
        self.promoted_share.or_else(|| promoted_share(self.endgame))
    }

    /// The run's share of captured starts (`captured_share`, or its endgame's
    /// default).
    pub fn captured_share(&self) -> Option<f64> {
        self.captured_share.or_else(|| captured_share(self.endgame))
    }

    /// The run's share of near-mate starts (`near_mate_share`, or its endgame's
    /// default).
    pub fn near_mate_share(&self) -> Option<f64> {
        self.near_mate_share
            .or_else(|| near_mate_share(self.endgame))
    }

    /// Self-play games of the run.
    pub fn games(&self) -> u64 {
        self.games.unwrap_or_else(|| self_play_games(self.endgame))
    }

    /// Refuses settings that cannot train, naming the key.
    pub fn check(&self) -> Result<()> {
        ensure!(self.games() > 0, "games must be positive");
        ensure!(
            matches!(
                self.starts(),
                StartSource::Retro | StartSource::Frontier | StartSource::Uniform
            ),
            "starts must be \"retro\", \"frontier\" or \"uniform\" (the search learner trains on the rules alone)"
        );
        ensure!(
            self.starts().serves(self.endgame),
            "{} trains from {}",
            self.endgame,
            StartSource::serving(self.endgame)
        );
        ensure!(
            (1..=ENDGAME_EVAL_GAMES).contains(&self.eval_starts),
            "eval_starts must lie in 1..={ENDGAME_EVAL_GAMES}"
        );
        ensure!(
            self.attacker_simulations != Some(0),
            "attacker_simulations must be positive"
        );
        ensure!(
            self.defender_simulations != Some(0),
            "defender_simulations must be positive"
        );
        ensure!(self.updates != Some(0), "updates must be positive");
        let uniform = self.starts() == StartSource::Uniform;
        let (endgame, starts) = (self.endgame, format!("{:?}", self.starts()).to_lowercase());
        check_share("retry_share", self.retry_share, true, "", "")?;
        check_share(
            "promoted_share",
            self.promoted_share,
            endgame.white_promotes() && uniform,
            "an ending where white has a pawn",
            &endgame.to_string(),
        )?;
        check_share(
            "captured_share",
            self.captured_share,
            endgame.black_has_pawn() && uniform,
            "an ending where black has a pawn (kqkp, krkp, kpkp)",
            &format!("{endgame} from {starts}"),
        )?;
        check_share(
            "near_mate_share",
            self.near_mate_share,
            endgame.white_promotes() && uniform,
            "an ending where white has a pawn (kpk, kpkp)",
            &endgame.to_string(),
        )?;
        if let Some(lr) = self.lr_end {
            ensure!(
                lr > 0.0 && lr.is_finite(),
                "lr_end must be a positive number, not {lr}"
            );
        }
        self.training().learner_config().check()?;
        Ok(())
    }

    /// What the run's training plays ([`SearchTraining`]).
    pub fn training(&self) -> SearchTraining {
        SearchTraining {
            endgame: self.endgame,
            seed: self.seed,
            games: self.games(),
            starts: self.starts(),
            playout_cap: self.playout_cap,
            attacker_simulations: self.attacker_simulations,
            defender_simulations: self.defender_simulations,
            updates: self.updates,
            retry_share: self.retry_share,
            lr_end: self.lr_end,
            promoted_share: self.promoted_share(),
            captured_share: self.captured_share(),
            near_mate_share: self.near_mate_share(),
        }
    }
}

/// Refuses a share of starts `name` outside [0, 1], or a positive one where it does
/// not `apply`: it `needs` a kind of ending trained from uniform starts, which `run`
/// (the ending, and its starts where they matter) is not.
fn check_share(
    name: &str,
    share: Option<f64>,
    applies: bool,
    needs: &str,
    run: &str,
) -> Result<()> {
    let Some(share) = share else {
        return Ok(());
    };
    ensure!(
        (0.0..=1.0).contains(&share),
        "{name} must lie in [0, 1], not {share}"
    );
    ensure!(
        share == 0.0 || applies,
        "{name} needs {needs}, trained from starts = \"uniform\" ({run} is not)"
    );
    Ok(())
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
    fn pawn_endings_where_white_promotes_train_from_uniform_starts_the_others_from_retro() {
        let kpk: SearchStudyConfig = toml::from_str("endgame = \"kpk\"").unwrap();
        assert_eq!(kpk.starts(), StartSource::Uniform);
        assert!(kpk.check().is_ok());
        let retro: SearchStudyConfig =
            toml::from_str("endgame = \"kpkp\"\nstarts = \"retro\"").unwrap();
        assert_eq!(
            retro.check().unwrap_err().to_string(),
            "kpkp trains from uniform starts alone (white mates after a promotion)"
        );
        // Black is mated with its pawn on the board: KRKP's starts grow back from it,
        // by default.
        let krkp: SearchStudyConfig = toml::from_str("endgame = \"krkp\"").unwrap();
        assert_eq!(krkp.starts(), StartSource::Retro);
        assert!(krkp.check().is_ok());
        assert_eq!(SearchStudyConfig::default().starts(), StartSource::Retro);
    }

    #[test]
    fn starts_that_read_the_tablebase_are_refused() {
        let won = SearchStudyConfig {
            starts: Some(StartSource::Won),
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
        let idle: SearchStudyConfig = toml::from_str("updates = 0").unwrap();
        assert_eq!(
            idle.check().unwrap_err().to_string(),
            "updates must be positive"
        );
        let idle_attacker: SearchStudyConfig = toml::from_str("attacker_simulations = 0").unwrap();
        assert_eq!(
            idle_attacker.check().unwrap_err().to_string(),
            "attacker_simulations must be positive"
        );
        let deep: SearchStudyConfig = toml::from_str("attacker_simulations = 256").unwrap();
        let learner = deep.training().learner_config();
        assert_eq!(learner.first_player_simulations, Some(256));
        assert_eq!(learner.second_player_simulations, None);
        let eager: SearchStudyConfig = toml::from_str("retry_share = 1.5").unwrap();
        assert_eq!(
            eager.check().unwrap_err().to_string(),
            "retry_share must lie in [0, 1], not 1.5"
        );
        let pawnless: SearchStudyConfig = toml::from_str("promoted_share = 0.25").unwrap();
        assert_eq!(
            pawnless.check().unwrap_err().to_string(),
            "promoted_share needs an ending where white has a pawn, trained from starts = \"uniform\" (kqk is not)"
        );
        let promoted: SearchStudyConfig =
            toml::from_str("endgame = \"kpk\"\npromoted_share = 0.5").unwrap();
        assert!(promoted.check().is_ok());
        assert_eq!(promoted.training().promoted_share, Some(0.5));
        // The default: a quarter where white has a pawn, none for the others; 0
        // anywhere.
        let kpk: SearchStudyConfig = toml::from_str("endgame = \"kpk\"").unwrap();
        assert_eq!(kpk.training().promoted_share, Some(0.25));
        let kqkp: SearchStudyConfig = toml::from_str("endgame = \"kqkp\"").unwrap();
        assert_eq!(kqkp.training().promoted_share, None);
        let black_pawn: SearchStudyConfig =
            toml::from_str("endgame = \"krkp\"\npromoted_share = 0.25").unwrap();
        assert!(black_pawn.check().is_err());
        assert_eq!(SearchStudyConfig::default().training().promoted_share, None);
        let captured: SearchStudyConfig =
            toml::from_str("endgame = \"krkp\"\nstarts = \"uniform\"\ncaptured_share = 0.25")
                .unwrap();
        assert!(captured.check().is_ok());
        assert_eq!(captured.training().captured_share, Some(0.25));
        // The default: a quarter for KPKP alone.
        let kpkp: SearchStudyConfig = toml::from_str("endgame = \"kpkp\"").unwrap();
        assert_eq!(kpkp.training().captured_share, Some(0.25));
        assert_eq!(kqkp.training().captured_share, None);
        let grown_back: SearchStudyConfig =
            toml::from_str("endgame = \"krkp\"\ncaptured_share = 0.25").unwrap();
        assert!(
            grown_back
                .check()
                .unwrap_err()
                .to_string()
                .ends_with("(krkp from retro is not)")
        );
        let nothing_to_take: SearchStudyConfig =
            toml::from_str("endgame = \"kpk\"\ncaptured_share = 0.25").unwrap();
        assert_eq!(
            nothing_to_take.check().unwrap_err().to_string(),
            "captured_share needs an ending where black has a pawn (kqkp, krkp, kpkp), trained from starts = \"uniform\" (kpk from uniform is not)"
        );
        // The default: a quarter for KPKP alone.
        assert_eq!(kpkp.training().near_mate_share, Some(0.25));
        assert!(kpkp.check().is_ok());
        let kpk: SearchStudyConfig = toml::from_str("endgame = \"kpk\"").unwrap();
        assert_eq!(kpk.training().near_mate_share, None);
        let near_mates: SearchStudyConfig =
            toml::from_str("endgame = \"kpk\"\nnear_mate_share = 0.5").unwrap();
        assert_eq!(near_mates.training().near_mate_share, Some(0.5));
        assert!(near_mates.check().is_ok());
        let no_promotion: SearchStudyConfig =
            toml::from_str("endgame = \"krkp\"\nstarts = \"uniform\"\nnear_mate_share = 0.25")
                .unwrap();
        assert_eq!(
            no_promotion.check().unwrap_err().to_string(),
            "near_mate_share needs an ending where white has a pawn (kpk, kpkp), trained from starts = \"uniform\" (krkp is not)"
        );
        let off: SearchStudyConfig = toml::from_str("promoted_share = 0.0").unwrap();
        assert!(off.check().is_ok());
        let frozen: SearchStudyConfig = toml::from_str("lr_end = 0.0").unwrap();
        assert_eq!(
            frozen.check().unwrap_err().to_string(),
            "lr_end must be a positive number, not 0"
        );
        let shallow: SearchStudyConfig =
            toml::from_str("playout_cap = { full_share = 0.25, full_simulations = 32 }").unwrap();
        let error = shallow.check().unwrap_err().to_string();
        assert!(
            error.contains("full_simulations (32) must be at least"),
            "{error}"
        );
    }
}
