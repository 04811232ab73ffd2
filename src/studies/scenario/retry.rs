//! Starts retried from the learner's own failures (search learner, `retry_share`;
//! rules only, no tablebase): Go-Exploit's idea (Trudeau and Bowling 2023, "Targeted
//! Search Control in AlphaZero for Effective Policy Improvement") of starting
//! self-play from states of an archive the learner itself visited, kept here to the
//! states it did worst from.
//!
//! ```text
//! archive:   the last ARCHIVE fresh starts white did not mate from (drawn, lost or
//!            cut by the ply cap), each with its ply cap
//! a start:   with probability retry_share, while the archive holds one, a random
//!            archived start, taken out of the archive (retried once); else the
//!            curriculum's or frontier's own start
//! ```
//!
//! A retried start is not scored by the curriculum or the frontier, and a second
//! failure from it is not archived again: a start the defender holds (a random walk
//! back from mate reaches some) costs one retry, not a share of every block.

use std::collections::VecDeque;

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::frontier::parse;

/// Failed starts kept (the most recent).
pub const ARCHIVE: usize = 1024;

/// A failed start: its FEN and the plies its game may last.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Failed {
    fen: String,
    ply_cap: u32,
}

/// The archive of fresh starts white did not mate from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RetryArchive {
    failed: VecDeque<Failed>,
}

impl RetryArchive {
    /// Starts archived now.
    pub fn len(&self) -> usize {
        self.failed.len()
    }

    /// Whether no start is archived.
    pub fn is_empty(&self) -> bool {
        self.failed.is_empty()
    }

    /// Keeps `start` (white did not mate from it within `ply_cap` plies), dropping
    /// the oldest once [`ARCHIVE`] are kept.
    pub fn failed_from(&mut self, start: &Chess, ply_cap: u32) {
        self.failed.push_back(Failed {
            fen: Fen::from_position(start, EnPassantMode::Legal).to_string(),
            ply_cap,
        });
        if self.failed.len() > ARCHIVE {
            self.failed.pop_front();
        }
    }

    /// With probability `share`, a random archived start and its ply cap, taken out
    /// of the archive; none when the draw says so or the archive is empty (no random
    /// number is drawn then).
    pub fn retry(&mut self, share: f64, rng: &mut (impl Rng + ?Sized)) -> Option<(Chess, u32)> {
        if self.failed.is_empty() || rng.random::<f64>() >= share {
            return None;
        }
        let k = rng.random_range(0..self.failed.len());
        let failed = self.failed.swap_remove_back(k).expect("an index below len");
        Some((parse(&failed.fen), failed.ply_cap))
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use shakmaty::Position;

    use super::*;

    #[test]
    fn a_failed_start_comes_back_once_with_its_cap() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut archive = RetryArchive::default();
        assert_eq!(archive.retry(1.0, &mut rng), None);
        let kqkr = parse("8/8/8/5Q1K/3kr3/8/8/8 w - - 0 1");
        archive.failed_from(&kqkr, 30);
        assert_eq!(archive.retry(0.0, &mut rng), None);
        assert_eq!(archive.len(), 1);
        let (position, cap) = archive.retry(1.0, &mut rng).unwrap();
        assert_eq!((position.board(), cap), (kqkr.board(), 30));
        assert!(archive.is_empty());
        assert_eq!(archive.retry(1.0, &mut rng), None);
    }

    #[test]
    fn the_archive_keeps_the_most_recent_failures() {
        let mut archive = RetryArchive::default();
        let kqkr = parse("8/8/8/5Q1K/3kr3/8/8/8 w - - 0 1");
        for cap in 0..ARCHIVE as u32 + 5 {
            archive.failed_from(&kqkr, cap);
        }
        assert_eq!(archive.len(), ARCHIVE);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let caps: Vec<u32> = (0..ARCHIVE)
            .map(|_| archive.retry(1.0, &mut rng).unwrap().1)
            .collect();
        assert_eq!(caps.iter().min(), Some(&5));
        assert_eq!(caps.iter().max(), Some(&(ARCHIVE as u32 + 4)));
    }
}
