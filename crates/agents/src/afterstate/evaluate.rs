//! The afterstate learner (greedy, frozen) against a fixed opponent, games batched
//! through the network; results adjudicated as the issue states: a win is a mate, or
//! a material lead of at least [`LEAD_TO_WIN`] pawns when the ply cap ends the game.

use burnmate_env::selfplay::{FullGame, GameEnd};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

use super::rewards::material;
use super::trainer::{AfterstateLearner, best_index};

/// Material lead (pawns) that wins a game cut off by the ply cap.
pub const LEAD_TO_WIN: f32 = 3.0;

/// One evaluation game as the learner saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluationGame {
    /// The learner's colour.
    pub agent: Color,
    /// Why the game ended.
    pub end: GameEnd,
    /// The side that mated.
    pub winner: Option<Color>,
    /// Plies played.
    pub plies: u32,
    /// The learner's material minus the opponent's at the end (pawns).
    pub lead: f32,
    /// The game's moves from the initial position.
    pub moves: Vec<Move>,
}

/// A game's result for the learner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LearnerResult {
    /// Mated the opponent, or led by [`LEAD_TO_WIN`] at the cap.
    Win,
    /// Anything else.
    Draw,
    /// Mated, or behind by [`LEAD_TO_WIN`] at the cap.
    Loss,
}

impl EvaluationGame {
    /// The adjudicated result.
    pub fn verdict(&self) -> LearnerResult {
        match (self.end, self.winner) {
            (GameEnd::Checkmate, Some(c)) if c == self.agent => LearnerResult::Win,
            (GameEnd::Checkmate, _) => LearnerResult::Loss,
            (GameEnd::Cap, _) if self.lead >= LEAD_TO_WIN => LearnerResult::Win,
            (GameEnd::Cap, _) if self.lead <= -LEAD_TO_WIN => LearnerResult::Loss,
            _ => LearnerResult::Draw,
        }
    }
}

/// A set of evaluation games summed up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluationScore {
    /// Games played.
    pub games: u64,
    /// Won (mates and adjudicated).
    pub wins: u64,
    /// Of which by mate.
    pub mates: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost.
    pub losses: u64,
    /// `(wins + draws / 2) / games`.
    pub score: f64,
    /// Mean plies per game.
    pub mean_plies: f64,
}

/// The summary of `outcomes`.
pub fn score(outcomes: &[EvaluationGame]) -> EvaluationScore {
    let count = |v: LearnerResult| outcomes.iter().filter(|o| o.verdict() == v).count() as u64;
    let (wins, draws, losses) = (
        count(LearnerResult::Win),
        count(LearnerResult::Draw),
        count(LearnerResult::Loss),
    );
    let games = outcomes.len() as u64;
    let n = games.max(1) as f64;
    EvaluationScore {
        games,
        wins,
        mates: outcomes
            .iter()
            .filter(|o| o.end == GameEnd::Checkmate && o.winner == Some(o.agent))
            .count() as u64,
        draws,
        losses,
        score: (wins as f64 + draws as f64 / 2.0) / n,
        mean_plies: outcomes.iter().map(|o| f64::from(o.plies)).sum::<f64>() / n,
    }
}

/// The learner's colour in evaluation game `n`: white in even games.
fn agent_color(n: u64) -> Color {
    if n.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

fn outcome(agent: Color, game: &FullGame, moves: Vec<Move>) -> EvaluationGame {
    let board = game.position().board();
    EvaluationGame {
        agent,
        end: game.end().expect("finished"),
        winner: game.winner(),
        plies: game.plies(),
        lead: material(board, agent) - material(board, !agent),
        moves,
    }
}

/// A game in progress: the learner's colour, the game, its moves.
type Table = (Color, FullGame, Vec<Move>);

fn new_table(n: u64, max_plies: u32) -> Table {
    (agent_color(n), FullGame::new(max_plies), Vec::new())
}

/// Plays `games` games of the greedy learner against `opponent` (which answers each
/// position with a legal move), `batch` games at a time, the learner white in even
/// games; the opponent's first error (an engine that died) ends the evaluation.
///
/// # Panics
/// If `batch` is 0.
pub fn play_against<E>(
    learner: &AfterstateLearner,
    games: u64,
    max_plies: u32,
    batch: usize,
    mut opponent: impl FnMut(&Chess) -> Result<Move, E>,
) -> Result<Vec<EvaluationGame>, E> {
    let mut outcomes = Vec::with_capacity(games as usize);
    let mut slots: Vec<Table> = Vec::new();
    let mut next = 0u64;
    assert!(batch > 0, "play_against needs a batch of at least one game");
    while next < games && slots.len() < batch {
        slots.push(new_table(next, max_plies));
        next += 1;
    }
    while !slots.is_empty() {
        let to_move: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].1.position().turn() == slots[i].0)
            .collect();
        let valued = learner.move_values(&to_move.iter().map(|&i| &slots[i].1).collect::<Vec<_>>());
        let mut chosen: Vec<Option<Move>> = vec![None; slots.len()];
        for (&i, moves) in to_move.iter().zip(valued) {
            chosen[i] = Some(moves[best_index(&moves)].mv);
        }
        let mut finished = Vec::new();
        for (i, ((agent, game, moves), choice)) in slots.iter_mut().zip(chosen).enumerate() {
            let mv = match choice {
                Some(mv) => mv,
                None => opponent(game.position())?,
            };
            moves.push(mv);
            if game.play(mv).is_some() {
                outcomes.push(outcome(*agent, game, std::mem::take(moves)));
                finished.push(i);
            }
        }
        for i in finished.into_iter().rev() {
            if next < games {
                slots[i] = new_table(next, max_plies);
                next += 1;
            } else {
                slots.swap_remove(i);
            }
        }
    }
    Ok(outcomes)
}
