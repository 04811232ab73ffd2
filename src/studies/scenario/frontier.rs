//! Training starts at the search learner's frontier (`--starts frontier`; rules only,
//! no tablebase): the reverse curriculum of Florensa et al. (2017), "Reverse
//! Curriculum Generation for Reinforcement Learning", with the starts white has mated
//! from as its seeds.
//!
//! ```text
//! seeds:        the last SEEDS starts white mated from, each with the plies it took
//! a new start:  with probability UNIFORM a start of the endgame study's generator
//!               (ply cap 2 * ENDGAME_MOVE_CAP);
//!               else, while fewer than BOOTSTRAP seeds are kept, with probability 1/2
//!               (always with none) a mate in one: one un-move from a random mate;
//!               else the longest win of TOURNAMENT random seeds walked back WALK
//!               un-moves (one move pair), ply cap: its plies + WALK + 10
//! seeding:      a won start of either kind above becomes a seed (a seed replayed
//!               unwalked, when its un-moves ran out, does not)
//! ```
//!
//! The level curriculum ([`crate::studies::scenario::curriculum`]) lengthens every walk at once;
//! seeds lengthen only where the learner already mates, so KBNK's long forced mates
//! are reached one move pair at a time (`results/frontier-curriculum/`).

use burnmate_env::endgame::{Endgame, random_start};
use burnmate_env::retro::{retro_start, unmoves};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use crate::studies::scenario::ENDGAME_MOVE_CAP;
use crate::studies::scenario::curriculum::retro_ply_cap;

/// Seeds kept (the most recent wins). KBNK, 30,000 games, seeds 0 and 1: mated 5.9
/// and 7.3 % with 4,096, 8.3 and 8.3 % with 1,024 (the seeds' mean win 17.6-20.2
/// against 26.6-28.7 plies): a faster turnover moves the frontier back faster.
pub const SEEDS: usize = 1024;
/// Share of starts drawn from the study's generator.
pub const UNIFORM: f64 = 0.2;
/// Seeds after which mates in one are no longer drawn.
pub const BOOTSTRAP: usize = 64;
/// Un-moves from a seed to a new start: one move of each side.
pub const WALK: u32 = 2;
/// Plies a start's cap allows beyond its seed's win and the walk.
pub const CAP_MARGIN: u32 = 10;
/// Seeds drawn for each walked start, the one whose win took the most plies kept
/// (tournament selection): it pushes the frontier back. KBNK, 30,000 games, seeds 0
/// and 1: mated 3.15 % with 1 (uniform choice), 5.3 % with 2, 6.6 % with 4; the seeds'
/// mean win 9.6, 14.4 and 17.6 plies (seed 0).
pub const TOURNAMENT: usize = 4;

/// A start white mated from, and the plies that took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Seed {
    fen: String,
    plies: u32,
}

/// One training start drawn from the frontier.
#[derive(Clone, Debug, PartialEq)]
pub struct FrontierStart {
    /// The position, white to move.
    pub position: Chess,
    /// Plies the game may last.
    pub ply_cap: u32,
    /// Whether a win from it becomes a seed.
    pub seeds: bool,
}

/// The seeds so far.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
    seeds: Vec<Seed>,
    /// Where the next seed goes once [`SEEDS`] are kept.
    next: usize,
}

impl Frontier {
    /// Seeds kept so far.
    pub fn len(&self) -> usize {
        self.seeds.len()
    }

    /// Whether no start has been mated from yet.
    pub fn is_empty(&self) -> bool {
        self.seeds.is_empty()
    }

    /// Mean plies of the seeds' wins (0 with none): how far back the frontier lies.
    pub fn mean_plies(&self) -> f64 {
        let total: u64 = self.seeds.iter().map(|s| u64::from(s.plies)).sum();
        total as f64 / self.seeds.len().max(1) as f64
    }

    /// One training start (see the module doc).
    pub fn start(&self, endgame: Endgame, rng: &mut (impl Rng + ?Sized)) -> FrontierStart {
        let full_cap = 2 * ENDGAME_MOVE_CAP;
        if rng.random::<f64>() < UNIFORM {
            return FrontierStart {
                position: random_start(endgame, rng),
                ply_cap: full_cap,
                seeds: true,
            };
        }
        let bootstrap = self.seeds.len() < BOOTSTRAP && rng.random::<f64>() < 0.5;
        if bootstrap || self.seeds.is_empty() {
            return FrontierStart {
                position: retro_start(endgame, 1, rng),
                ply_cap: retro_ply_cap(1),
                seeds: true,
            };
        }
        let mut seed = &self.seeds[rng.random_range(0..self.seeds.len())];
        for _ in 1..TOURNAMENT {
            let other = &self.seeds[rng.random_range(0..self.seeds.len())];
            if other.plies > seed.plies {
                seed = other;
            }
        }
        let mut position = parse(&seed.fen);
        for _ in 0..WALK {
            let before = unmoves(&position);
            if before.is_empty() {
                break;
            }
            position = before[rng.random_range(0..before.len())].clone();
        }
        if position.turn() != Color::White {
            // The walk stopped after one un-move: replay the seed itself.
            return FrontierStart {
                position: parse(&seed.fen),
                ply_cap: (seed.plies + CAP_MARGIN).min(full_cap),
                seeds: false,
            };
        }
        FrontierStart {
            position,
            ply_cap: (seed.plies + WALK + CAP_MARGIN).min(full_cap),
            seeds: true,
        }
    }

    /// Keeps `start` (white mated from it in `plies`) as a seed, replacing the oldest
    /// once [`SEEDS`] are kept.
    pub fn mated_from(&mut self, start: &Chess, plies: u32) {
        let seed = Seed {
            fen: Fen::from_position(start, EnPassantMode::Legal).to_string(),
            plies,
        };
        if self.seeds.len() < SEEDS {
            self.seeds.push(seed);
        } else {
            self.seeds[self.next] = seed;
            self.next = (self.next + 1) % SEEDS;
        }
    }
}

/// The position of a FEN this module or [`super::retry`] wrote from a position.
pub(super) fn parse(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("a kept start's own FEN")
        .into_position(CastlingMode::Standard)
        .expect("a kept start's own position")
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use super::*;

    /// The positions one legal move of the side to move leads to.
    fn after_one_move(position: &Chess) -> Vec<Chess> {
        let moves = position.legal_moves();
        moves
            .into_iter()
            .map(|m| {
                let mut after = position.clone();
                after.play_unchecked(m);
                after
            })
            .collect()
    }

    fn is_mate_in_one(position: &Chess) -> bool {
        after_one_move(position).iter().any(|p| p.is_checkmate())
    }

    #[test]
    fn an_empty_frontier_starts_from_mates_in_one_or_the_generator() {
        let frontier = Frontier::default();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut generated, mut mates) = (0, 0);
        for _ in 0..200 {
            let start = frontier.start(Endgame::Kbnk, &mut rng);
            assert_eq!(start.position.turn(), Color::White);
            assert!(start.seeds);
            if start.ply_cap == 2 * ENDGAME_MOVE_CAP {
                generated += 1;
            } else {
                assert_eq!(start.ply_cap, retro_ply_cap(1));
                assert!(is_mate_in_one(&start.position));
                mates += 1;
            }
        }
        // UNIFORM = 0.2 of 200 starts: 40 expected.
        assert!((20..=60).contains(&generated), "{generated} generated");
        assert_eq!(generated + mates, 200);
    }

    #[test]
    fn a_walked_start_returns_to_its_seed_in_one_move_pair() {
        // White mates in one (Qh8#); say the learner took 5 plies from here.
        let seed = parse("4k3/8/4K3/8/8/8/8/7Q w - - 0 1");
        let mut frontier = Frontier::default();
        for _ in 0..BOOTSTRAP {
            frontier.mated_from(&seed, 5);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut walked = 0;
        for _ in 0..200 {
            let start = frontier.start(Endgame::Kqk, &mut rng);
            if start.ply_cap == 2 * ENDGAME_MOVE_CAP {
                continue;
            }
            assert_eq!(start.position.turn(), Color::White);
            if !start.seeds {
                assert_eq!(start.position, seed);
                assert_eq!(start.ply_cap, 5 + CAP_MARGIN);
                continue;
            }
            assert_eq!(start.ply_cap, 5 + WALK + CAP_MARGIN);
            let back = after_one_move(&start.position).iter().any(|p| {
                after_one_move(p)
                    .iter()
                    .any(|q| q.board() == seed.board() && q.turn() == Color::White)
            });
            assert!(
                back,
                "{}",
                Fen::from_position(&start.position, EnPassantMode::Legal)
            );
            walked += 1;
        }
        assert!(walked >= 100, "{walked} walked starts of 200");
    }

    #[test]
    fn the_longest_win_of_the_tournament_is_walked_most_often() {
        let mut frontier = Frontier::default();
        let seed = parse("4k3/8/4K3/8/8/8/8/7Q w - - 0 1");
        for k in 0..BOOTSTRAP {
            frontier.mated_from(&seed, if k % 2 == 0 { 5 } else { 9 });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut long, mut walked) = (0, 0);
        for _ in 0..1000 {
            let start = frontier.start(Endgame::Kqk, &mut rng);
            if start.seeds && start.ply_cap < 2 * ENDGAME_MOVE_CAP {
                walked += 1;
                long += usize::from(start.ply_cap == 9 + WALK + CAP_MARGIN);
            }
        }
        // Half the seeds are long: the longest of TOURNAMENT is long unless all are
        // short, with probability 1 - 2^-TOURNAMENT (15/16 for four; 1/2 uniformly).
        let expected = 1.0 - 0.5f64.powi(TOURNAMENT as i32);
        let share = long as f64 / walked as f64;
        assert!((share - expected).abs() < 0.04, "{long} of {walked}");
    }

    #[test]
    fn the_oldest_seed_gives_way_once_the_pool_is_full() {
        let position = Chess::default();
        let mut frontier = Frontier::default();
        for _ in 0..SEEDS {
            frontier.mated_from(&position, 1);
        }
        assert_eq!(frontier.mean_plies(), 1.0);
        frontier.mated_from(&position, 1 + SEEDS as u32);
        assert_eq!(frontier.len(), SEEDS);
        assert_eq!(frontier.mean_plies(), 2.0);
    }
}
