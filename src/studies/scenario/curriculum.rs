//! Training starts grown backwards from mate, for every algorithm of the matrix
//! (`--starts retro`) and for the search learner: rules only, no tablebase.
//!
//! ```text
//! start at level L:  with probability L / (L + UNIFORM_HALF_LEVEL): a start of the
//!                    endgame study's own generator (every piece anywhere), ply cap
//!                    2 * ENDGAME_MOVE_CAP;
//!                    else a random mate, then w = 2k + 1 random un-moves, k uniform
//!                    in 0..=L (white to move), ply cap 2w + 10
//! after each block:  L += 1 when white won at least LEVEL_UP_WIN_RATE of the block's
//!                    BLOCK games, or when PLATEAU_BLOCKS blocks in a row have not
//!                    raised the level's best win rate
//! ```
//!
//! A walk of `w` un-moves leaves white a mate in at most `(w + 1) / 2` moves, so short
//! walks are easy starts. The plateau rule exists because a random walk back from mate
//! also reaches positions where the defender wins a piece, so some levels never reach
//! the rate (KRK and KBBK stalled at levels 3 and 1 under the rate alone). The ply
//! caps keep self-play from spending its time in games that missed an easy mate.

use burnmate_env::endgame::{Endgame, random_start};
use burnmate_env::retro::retro_start;
use rand::{Rng, RngExt};
use shakmaty::Chess;

use crate::studies::scenario::ENDGAME_MOVE_CAP;

/// Games in a block: the level is reconsidered after each.
pub const BLOCK: u32 = 64;

/// Share of a block's games white must win for the curriculum to lengthen its walks.
pub const LEVEL_UP_WIN_RATE: f64 = 0.75;

/// Blocks without a new best win rate at a level after which the level rises anyway.
pub const PLATEAU_BLOCKS: u32 = 8;

/// The level at which half of the starts are the study generator's.
pub const UNIFORM_HALF_LEVEL: u32 = 10;

/// One training start at curriculum `level` and its ply cap (see the module doc).
pub fn retro_curriculum_start(
    endgame: Endgame,
    level: u32,
    rng: &mut (impl Rng + ?Sized),
) -> (Chess, u32) {
    let uniform = f64::from(level) / f64::from(level + UNIFORM_HALF_LEVEL);
    if rng.random::<f64>() < uniform {
        (random_start(endgame, rng), 2 * ENDGAME_MOVE_CAP)
    } else {
        let walk = 2 * rng.random_range(0..=level) + 1;
        (retro_start(endgame, walk, rng), retro_ply_cap(walk))
    }
}

/// The ply cap of a start grown `walk` un-moves back from mate.
pub fn retro_ply_cap(walk: u32) -> u32 {
    2 * walk + 10
}

/// The curriculum's level and the tally of the current block.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Curriculum {
    level: u32,
    block_games: u32,
    block_wins: u32,
    best_rate: f64,
    blocks_since_best: u32,
}

impl Curriculum {
    /// The current level (0 at the start).
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Records one finished training game; after every [`BLOCK`] games the level
    /// rises by the module doc's rule.
    pub fn record(&mut self, won: bool) {
        self.block_games += 1;
        self.block_wins += u32::from(won);
        if self.block_games < BLOCK {
            return;
        }
        let rate = f64::from(self.block_wins) / f64::from(self.block_games);
        (self.block_games, self.block_wins) = (0, 0);
        if rate > self.best_rate {
            (self.best_rate, self.blocks_since_best) = (rate, 0);
        } else {
            self.blocks_since_best += 1;
        }
        if rate >= LEVEL_UP_WIN_RATE || self.blocks_since_best >= PLATEAU_BLOCKS {
            self.level += 1;
            (self.best_rate, self.blocks_since_best) = (0.0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(curriculum: &mut Curriculum, wins_per_block: &[u32]) {
        for &wins in wins_per_block {
            for game in 0..BLOCK {
                curriculum.record(game < wins);
            }
        }
    }

    #[test]
    fn the_level_rises_after_a_block_won_at_the_rate() {
        let mut c = Curriculum::default();
        // 47 of 64 = 73 % stays; 48 of 64 = 75 % rises.
        blocks(&mut c, &[47]);
        assert_eq!(c.level(), 0);
        blocks(&mut c, &[48]);
        assert_eq!(c.level(), 1);
        // A partial block decides nothing.
        for _ in 0..BLOCK - 1 {
            c.record(true);
        }
        assert_eq!(c.level(), 1);
        c.record(true);
        assert_eq!(c.level(), 2);
    }

    #[test]
    fn the_level_rises_after_a_plateau_of_blocks_without_a_new_best() {
        let mut c = Curriculum::default();
        // A best of 20, then 8 blocks no better: the level rises on the 8th.
        blocks(&mut c, &[20, 10, 20, 5, 19, 20, 0, 12]);
        assert_eq!(c.level(), 0);
        blocks(&mut c, &[20]);
        assert_eq!(c.level(), 1);
        // A new best restarts the count.
        blocks(&mut c, &[1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(c.level(), 1);
        blocks(&mut c, &[1]);
        assert_eq!(c.level(), 2);
    }

    #[test]
    fn level_zero_starts_are_mates_in_one_with_their_cap() {
        use rand::SeedableRng;
        use shakmaty::Position;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for endgame in [Endgame::Kqk, Endgame::Krk, Endgame::Kbnk] {
            for _ in 0..20 {
                let (start, cap) = retro_curriculum_start(endgame, 0, &mut rng);
                assert_eq!(cap, 12);
                let mates = start.legal_moves().into_iter().any(|m| {
                    let mut after = start.clone();
                    after.play_unchecked(m);
                    after.is_checkmate()
                });
                assert!(mates, "{:?}", start.board());
            }
        }
    }
}
