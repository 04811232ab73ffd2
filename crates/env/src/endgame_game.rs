//! The 8x8 endgames as an [`Environment`] for any learner: white to mate against a
//! [`Defender`], one action per (white piece, destination square).
//!
//! Actions: `64 * slot + destination`, [`SLOTS`] slots: 0 the white king, then the
//! other white pieces ordered by role (knight, bishop, rook, queen) and, for two
//! pieces of one role, by square colour (light first): a bishop keeps its slot for
//! the whole match. KQK and KRK use slots 0-1, KBBK and KBNK (knight 1, bishop 2)
//! slots 0-2. Rewards: 1 for the
//! mating move, 0 for every other move; a draw (stalemate, repetition, fifty moves, a
//! lost piece) or the move cap ends the episode with 0.

use rand::{Rng, RngExt};
use shakmaty::{Board, Chess, Color, Move, Position, Square};

use crate::endgame::{Endgame, Match, MatchEnd, random_start};
use crate::environment::{Environment, Outcome, Step};

/// White piece slots: the king and at most two more pieces.
pub const SLOTS: usize = 3;
/// Actions: a slot and a destination square.
pub const ACTIONS: usize = SLOTS * 64;

/// The side that answers white's moves.
pub trait Defender {
    /// Black's reply in `position` (black to move, at least one legal move).
    fn reply<R: Rng + ?Sized>(&self, position: &Chess, rng: &mut R) -> Move;
}

impl<D: Defender + ?Sized> Defender for &D {
    fn reply<R: Rng + ?Sized>(&self, position: &Chess, rng: &mut R) -> Move {
        (**self).reply(position, rng)
    }
}

/// A defender playing uniformly random legal moves.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomDefender;

impl Defender for RandomDefender {
    fn reply<R: Rng + ?Sized>(&self, position: &Chess, rng: &mut R) -> Move {
        let moves = position.legal_moves();
        moves[rng.random_range(0..moves.len())]
    }
}

/// The white pieces of `board` in slot order (the king first).
pub fn slots(board: &Board) -> Vec<Square> {
    let king = board.king_of(Color::White).into_iter();
    let mut others: Vec<Square> = (board.by_color(Color::White) & !board.kings())
        .into_iter()
        .collect();
    others.sort_by_key(|&sq| (board.role_at(sq), sq.is_dark()));
    king.chain(others).collect()
}

/// The action of white's move `mv` on `board`.
pub fn action_of(board: &Board, mv: &Move) -> usize {
    let from = mv.from().expect("endgame moves have a from square");
    let slot = slots(board)
        .iter()
        .position(|&sq| sq == from)
        .expect("a white piece moves");
    64 * slot + usize::from(mv.to())
}

/// White's legal move for `action` in `position`, if there is one.
pub fn move_of(position: &Chess, action: usize) -> Option<Move> {
    let from = *slots(position.board()).get(action / 64)?;
    let to = Square::new(u32::try_from(action % 64).ok()?);
    position
        .legal_moves()
        .into_iter()
        .find(|m| m.from() == Some(from) && m.to() == to)
}

/// How an episode stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndgameOutcome {
    /// The match goes on.
    Ongoing,
    /// The match ended this way.
    Ended(MatchEnd),
}

impl Outcome for EndgameOutcome {
    fn is_terminal(self) -> bool {
        self != EndgameOutcome::Ongoing
    }

    fn name(self) -> &'static str {
        match self {
            EndgameOutcome::Ongoing => "ongoing",
            EndgameOutcome::Ended(end) => end.name(),
        }
    }
}

/// An endgame against a defender, from the study's random starts (`starts` empty)
/// or from a fixed list of starts drawn uniformly.
#[derive(Clone, Debug)]
pub struct EndgameGame<D> {
    /// Which material.
    pub endgame: Endgame,
    /// Black's side.
    pub defender: D,
    /// White moves before the match ends as `Cap`.
    pub max_moves: u32,
    /// Fixed start positions (white to move); empty: the study's generator.
    pub starts: Vec<Chess>,
}

impl<D: Defender> Environment for EndgameGame<D> {
    type State = Match;
    type Outcome = EndgameOutcome;

    fn actions(&self) -> usize {
        ACTIONS
    }

    fn reset(&self, rng: &mut (impl Rng + ?Sized)) -> Match {
        let start = if self.starts.is_empty() {
            random_start(self.endgame, rng)
        } else {
            self.starts[rng.random_range(0..self.starts.len())].clone()
        };
        Match::new(self.endgame, start, self.max_moves)
    }

    fn step(
        &self,
        state: &Match,
        action: usize,
        rng: &mut (impl Rng + ?Sized),
    ) -> Step<Match, EndgameOutcome> {
        let mut next = state.clone();
        let mv = move_of(next.position(), action).expect("a legal action");
        let end = match next.play(mv) {
            Some(end) => Some(end),
            None => {
                let reply = self.defender.reply(next.position(), rng);
                next.play(reply)
            }
        };
        Step {
            state: next,
            reward: if end == Some(MatchEnd::Checkmate) {
                1.0
            } else {
                0.0
            },
            outcome: end.map_or(EndgameOutcome::Ongoing, EndgameOutcome::Ended),
        }
    }

    /// White's legal moves; none when black is to move (a match that ended on
    /// white's move).
    fn legal_mask(&self, state: &Match, mask: &mut [bool]) {
        mask.fill(false);
        if state.position().turn() != Color::White {
            return;
        }
        let board = state.position().board();
        for mv in state.position().legal_moves() {
            mask[action_of(board, &mv)] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endgame::parse_start;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_legal_move_has_one_action_and_back() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for endgame in Endgame::ALL {
            for _ in 0..50 {
                let position = random_start(endgame, &mut rng);
                let moves = position.legal_moves();
                let mut actions: Vec<usize> = moves
                    .iter()
                    .map(|m| action_of(position.board(), m))
                    .collect();
                actions.sort();
                actions.dedup();
                assert_eq!(
                    actions.len(),
                    moves.len(),
                    "{endgame:?}: one action per move"
                );
                for m in &moves {
                    assert_eq!(move_of(&position, action_of(position.board(), m)), Some(*m));
                }
                let used = SLOTS.min(1 + endgame.pieces().len());
                assert!(actions.iter().all(|&a| a < 64 * used));
            }
        }
    }

    #[test]
    fn bishops_keep_their_slot_by_square_colour() {
        // Light-squared bishop on c4 (slot 1) and dark-squared bishop on c1 (slot 2).
        let p = parse_start(Endgame::Kbbk, "7k/8/8/8/2B5/8/8/2B1K3 w - - 0 1").unwrap();
        assert_eq!(slots(p.board()), [Square::E1, Square::C4, Square::C1]);
        let p = parse_start(Endgame::Kbbk, "7k/8/8/8/8/8/8/2B1KB2 w - - 0 1").unwrap();
        assert_eq!(slots(p.board()), [Square::E1, Square::F1, Square::C1]);
    }

    #[test]
    fn the_mating_move_pays_one_and_ends_the_episode() {
        // Qg7 is mate (the king on f6 guards it).
        let start = parse_start(Endgame::Kqk, "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1").unwrap();
        let game = EndgameGame {
            endgame: Endgame::Kqk,
            defender: RandomDefender,
            max_moves: 50,
            starts: vec![start.clone()],
        };
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let state = game.reset(&mut rng);
        let mut mask = vec![false; ACTIONS];
        game.legal_mask(&state, &mut mask);
        assert_eq!(
            mask.iter().filter(|&&m| m).count(),
            start.legal_moves().len()
        );
        let mate = 64 + usize::from(Square::G7);
        assert!(mask[mate]);
        let step = game.step(&state, mate, &mut rng);
        assert_eq!(
            (step.reward, step.outcome),
            (1.0, EndgameOutcome::Ended(MatchEnd::Checkmate))
        );
        // Any other move: black replies, nothing is paid.
        let quiet = 64 + usize::from(Square::G2);
        let step = game.step(&state, quiet, &mut rng);
        assert_eq!((step.reward, step.outcome), (0.0, EndgameOutcome::Ongoing));
        assert_eq!(step.state.position().turn(), Color::White);
        assert_eq!(step.state.white_moves(), 1);
    }
}
