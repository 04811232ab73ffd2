//! Games of the full-chess learner: self-play (one evaluator on both sides, every
//! quiet position recorded with its search score and, at the end, the game's
//! result) and gating matches (a candidate against the incumbent). Both sides search
//! a fixed node count a move, so a game is the same on any machine and under any load;
//! games run on all cores, each with its own searcher.

use std::ops::Range;

use burnmate_engine::packed::PackedPosition;
use burnmate_engine::score::is_mate;
use burnmate_engine::{Evaluator, Limits, Searcher};
use burnmate_env::game_result::GameResult;
use burnmate_env::selfplay::FullGame;
use burnmate_oracle::rating::Tally;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use shakmaty::{Chess, Color, Position};

/// A searcher behind a trait object, so the two sides of a game may evaluate
/// differently.
pub trait Mover: Send {
    /// The search's best move and score in `position` after `history`.
    fn answer(
        &mut self,
        position: &Chess,
        history: &[u64],
        nodes: u64,
    ) -> Option<(shakmaty::Move, i32)>;
    /// A new game starts.
    fn new_game(&mut self);
}

impl<E: Evaluator + Send> Mover for Searcher<E> {
    fn answer(
        &mut self,
        position: &Chess,
        history: &[u64],
        nodes: u64,
    ) -> Option<(shakmaty::Move, i32)> {
        self.search(position, &[], history, Limits::nodes(nodes), |_| {})
            .map(|r| (r.best, r.score))
    }

    fn new_game(&mut self) {
        Searcher::new_game(self);
    }
}

/// The start of game `index`: a shipped opening and `random_plies` random legal
/// moves drawn from `seed`.
pub fn start(openings: &[Chess], index: u64, random_plies: u32, seed: u64) -> Chess {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut position = openings[rng.random_range(0..openings.len())].clone();
    for _ in 0..random_plies {
        let moves = position.legal_moves();
        if moves.is_empty() {
            break;
        }
        position.play_unchecked(moves[rng.random_range(0..moves.len())]);
    }
    if position.legal_moves().is_empty() {
        openings[0].clone()
    } else {
        position
    }
}

/// One game from `start`, `players[0]` white, at `nodes` a move; with `record`, the
/// quiet positions (not in check, best move neither a capture nor a promotion, score
/// not a mate) labelled with their search score and the result.
pub fn play(
    players: [&mut dyn Mover; 2],
    start: &Chess,
    nodes: u64,
    max_plies: u32,
    record: bool,
) -> (GameResult, Vec<PackedPosition>) {
    let [white, black] = players;
    white.new_game();
    black.new_game();
    let mut game = FullGame::from_position(start.clone(), max_plies);
    let mut seen: Vec<(Color, PackedPosition)> = Vec::new();
    let outcome = loop {
        if let Some(result) = game.result() {
            break result;
        }
        let position = game.position();
        let mover: &mut dyn Mover = if position.turn() == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let Some((best, score)) = mover.answer(position, game.earlier_keys(), nodes) else {
            break GameResult::Draw;
        };
        if record
            && !position.is_check()
            && !best.is_capture()
            && !best.is_promotion()
            && !is_mate(score)
        {
            let side = position.turn();
            // The result is filled in when the game ends.
            let packed = PackedPosition::new(position.board(), side, score, 0)
                .expect("a chess position has at most 32 pieces");
            seen.push((side, packed));
        }
        game.play(best);
    };
    let labelled = seen
        .into_iter()
        .map(|(side, packed)| packed.with_result((outcome.for_side(side) * 2.0).round() as u8))
        .collect();
    (outcome, labelled)
}

/// Self-play of `games` games (indices from `first`) with `evaluator` on both sides:
/// every game's labelled positions, in game order, and the outcomes.
pub fn self_play<E: Evaluator + Clone + Send + Sync>(
    evaluator: &E,
    openings: &[Chess],
    games: std::ops::Range<u64>,
    settings: &GameSettings,
) -> (Vec<PackedPosition>, Vec<GameResult>) {
    let played: Vec<(GameResult, Vec<PackedPosition>)> = games
        .into_par_iter()
        .map(|index| {
            let mut searcher = Searcher::new(evaluator.clone(), settings.table_mb);
            let start = start(openings, index, settings.random_plies, settings.seed);
            let mut twin = Searcher::new(evaluator.clone(), settings.table_mb);
            play(
                [&mut searcher, &mut twin],
                &start,
                settings.nodes,
                settings.max_plies,
                true,
            )
        })
        .collect();
    let outcomes = played.iter().map(|(o, _)| *o).collect();
    (played.into_iter().flat_map(|(_, l)| l).collect(), outcomes)
}

/// What every game of a phase shares.
#[derive(Clone, Copy, Debug)]
pub struct GameSettings {
    /// Nodes a move.
    pub nodes: u64,
    /// Plies before a draw is called.
    pub max_plies: u32,
    /// Random plies after the opening.
    pub random_plies: u32,
    /// Seed of the starts.
    pub seed: u64,
    /// Table megabytes of each searcher.
    pub table_mb: usize,
}

/// Games `games` of a gating match (game `n` plays start `n / 2`, the candidate
/// white in even games): the candidate's wins, draws and losses against the
/// incumbent.
pub fn gate<C, I>(
    candidate: &C,
    incumbent: &I,
    openings: &[Chess],
    games: Range<u64>,
    settings: &GameSettings,
) -> Tally
where
    C: Evaluator + Clone + Send + Sync,
    I: Evaluator + Clone + Send + Sync,
{
    let results: Vec<f32> = games
        .into_par_iter()
        .map(|game| {
            let start = start(openings, game / 2, settings.random_plies, settings.seed);
            let mut c = Searcher::new(candidate.clone(), settings.table_mb);
            let mut i = Searcher::new(incumbent.clone(), settings.table_mb);
            let candidate_white = game % 2 == 0;
            let players: [&mut dyn Mover; 2] = if candidate_white {
                [&mut c, &mut i]
            } else {
                [&mut i, &mut c]
            };
            let (outcome, _) = play(players, &start, settings.nodes, settings.max_plies, false);
            outcome.for_side(if candidate_white {
                Color::White
            } else {
                Color::Black
            })
        })
        .collect();
    let count = |r: f32| results.iter().filter(|&&x| x == r).count() as u64;
    Tally {
        wins: count(1.0),
        draws: count(0.5),
        losses: count(0.0),
    }
}
