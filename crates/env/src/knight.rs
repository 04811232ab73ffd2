//! A knight must check a king that never moves, on 8x8, within 10 moves (Solime).
//!
//! The agent is not told which jumps are legal: an off-board jump leaves the knight
//! where it is, costs -5 and counts as a move. An on-board jump costs -1; landing
//! next to the king loses (captured, -10), checking it wins (+10). When legal plus
//! illegal moves reach 10, that move's reward becomes -5 and the game is lost (out
//! of moves), even if the tenth move checked or was captured (the study's code).

use rand::{Rng, RngExt};

use crate::environment::{Environment, Outcome, Step};

/// Number of actions (jumps).
pub const ACTIONS: usize = 8;
/// Moves allowed per game.
pub const MOVE_LIMIT: u8 = 10;
/// Jump `k` as (row step, column step), in the study's order.
pub const JUMPS: [(i8, i8); ACTIONS] = [
    (-2, 1),
    (-1, 2),
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
];

/// Reward of an on-board move.
pub const STEP_REWARD: f32 = -1.0;
/// Reward of an off-board jump (the knight stays).
pub const ILLEGAL_REWARD: f32 = -5.0;
/// Reward of the move that runs out of moves.
pub const OUT_OF_MOVES_REWARD: f32 = -5.0;
/// Reward of landing next to the king.
pub const CAPTURED_REWARD: f32 = -10.0;
/// Reward of checking the king.
pub const CHECK_REWARD: f32 = 10.0;

/// A square as (row, column), both 0..8.
pub type Coord = (i8, i8);

/// How a game stands after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KnightOutcome {
    /// The game goes on.
    Ongoing,
    /// The knight checks the king: a win.
    Check,
    /// The knight landed next to the king: a loss.
    Captured,
    /// Ten moves were used: a loss.
    OutOfMoves,
}

impl Outcome for KnightOutcome {
    fn is_terminal(self) -> bool {
        self != KnightOutcome::Ongoing
    }

    fn name(self) -> &'static str {
        match self {
            KnightOutcome::Ongoing => "ongoing",
            KnightOutcome::Check => "check",
            KnightOutcome::Captured => "captured",
            KnightOutcome::OutOfMoves => "out-of-moves",
        }
    }
}

/// A game state: knight, king and moves used so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KnightState {
    /// Knight square.
    pub knight: Coord,
    /// King square (never moves).
    pub king: Coord,
    /// Moves used, legal and illegal.
    pub moves: u8,
}

/// The result of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KnightStep {
    /// The state after the move.
    pub state: KnightState,
    /// The move's reward.
    pub reward: f32,
    /// Whether the jump stayed on the board.
    pub legal: bool,
    /// How the game stands.
    pub outcome: KnightOutcome,
}

impl KnightStep {
    /// The step as the [`Environment`] seam reports it (without `legal`).
    pub fn as_step(&self) -> Step<KnightState, KnightOutcome> {
        Step {
            state: self.state,
            reward: self.reward,
            outcome: self.outcome,
        }
    }
}

fn on_board((r, c): Coord) -> bool {
    (0..8).contains(&r) && (0..8).contains(&c)
}

/// Whether a knight on `knight` attacks `target`.
pub fn knight_attacks(knight: Coord, target: Coord) -> bool {
    JUMPS
        .iter()
        .any(|&(dr, dc)| (knight.0 + dr, knight.1 + dc) == target)
}

/// Whether two squares touch (king distance 1).
pub fn touches(a: Coord, b: Coord) -> bool {
    a != b && (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1
}

impl KnightState {
    /// A fresh game with knight and king on these squares.
    pub fn new(knight: Coord, king: Coord) -> KnightState {
        KnightState {
            knight,
            king,
            moves: 0,
        }
    }

    /// Where jump `action` lands, if on the board.
    pub fn target(&self, action: usize) -> Option<Coord> {
        let (dr, dc) = JUMPS[action];
        let to = (self.knight.0 + dr, self.knight.1 + dc);
        on_board(to).then_some(to)
    }

    /// Plays jump `action` (0..8).
    pub fn step(&self, action: usize) -> KnightStep {
        let moves = self.moves + 1;
        let (knight, legal, mut reward, mut outcome) = match self.target(action) {
            None => (self.knight, false, ILLEGAL_REWARD, KnightOutcome::Ongoing),
            Some(to) if touches(to, self.king) || to == self.king => {
                (to, true, CAPTURED_REWARD, KnightOutcome::Captured)
            }
            Some(to) if knight_attacks(to, self.king) => {
                (to, true, CHECK_REWARD, KnightOutcome::Check)
            }
            Some(to) => (to, true, STEP_REWARD, KnightOutcome::Ongoing),
        };
        if moves >= MOVE_LIMIT {
            reward = OUT_OF_MOVES_REWARD;
            outcome = KnightOutcome::OutOfMoves;
        }
        KnightStep {
            state: KnightState {
                knight,
                king: self.king,
                moves,
            },
            reward,
            legal,
            outcome,
        }
    }
}

/// Every start with its probability: knight uniform over 64 squares, king uniform
/// over the other squares the knight does not check.
pub fn start_distribution() -> Vec<(KnightState, f64)> {
    let squares: Vec<Coord> = (0..8).flat_map(|r| (0..8).map(move |c| (r, c))).collect();
    let mut starts = Vec::new();
    for &knight in &squares {
        let kings: Vec<Coord> = squares
            .iter()
            .copied()
            .filter(|&k| k != knight && !knight_attacks(knight, k))
            .collect();
        let p = 1.0 / 64.0 / kings.len() as f64;
        starts.extend(kings.into_iter().map(|k| (KnightState::new(knight, k), p)));
    }
    starts
}

/// Draws a start: knight uniform on 64 squares, king uniform on the other 63,
/// redrawn while the knight checks it.
pub fn random_start(rng: &mut (impl Rng + ?Sized)) -> KnightState {
    let square = |rng: &mut _| -> Coord {
        let i: i8 = RngExt::random_range(rng, 0..64);
        (i / 8, i % 8)
    };
    let knight = square(rng);
    loop {
        let king = square(rng);
        if king != knight && !knight_attacks(knight, king) {
            return KnightState::new(knight, king);
        }
    }
}

/// Every jump index: the knight game's legal actions in every state.
pub const EVERY_JUMP: [usize; ACTIONS] = [0, 1, 2, 3, 4, 5, 6, 7];

/// The knight game as an [`Environment`]: eight jumps, all of them actions (an
/// off-board jump is a penalised move, not a masked one: the study does not tell the
/// agent which jumps are legal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KnightGame;

impl Environment for KnightGame {
    type State = KnightState;
    type Outcome = KnightOutcome;

    fn actions(&self) -> usize {
        ACTIONS
    }

    fn reset(&self, rng: &mut (impl Rng + ?Sized)) -> KnightState {
        random_start(rng)
    }

    fn step(
        &self,
        state: &KnightState,
        action: usize,
        _: &mut (impl Rng + ?Sized),
    ) -> Step<KnightState, KnightOutcome> {
        state.step(action).as_step()
    }

    fn legal_mask(&self, _: &KnightState, mask: &mut [bool]) {
        mask.fill(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_jump_from_every_square_lands_where_expected_or_stays() {
        for r in 0..8 {
            for c in 0..8 {
                for (a, &(dr, dc)) in JUMPS.iter().enumerate() {
                    // A king far away in the corner opposite the knight's quadrant.
                    let king = (if r < 4 { 7 } else { 0 }, if c < 4 { 7 } else { 0 });
                    let s = KnightState::new((r, c), king);
                    let step = s.step(a);
                    let to = (r + dr, c + dc);
                    if on_board(to) {
                        assert!(step.legal);
                        assert_eq!(step.state.knight, to);
                    } else {
                        assert!(!step.legal);
                        assert_eq!(step.state.knight, (r, c));
                        assert_eq!(step.reward, ILLEGAL_REWARD);
                        assert_eq!(step.outcome, KnightOutcome::Ongoing);
                    }
                    assert_eq!(step.state.moves, 1);
                }
            }
        }
    }

    #[test]
    fn landing_next_to_the_king_is_a_capture_and_checking_wins() {
        // From (0,0) jump 3 lands on (2,1): neither next to (5,5) nor checking it.
        let quiet = KnightState::new((0, 0), (5, 5)).step(3);
        assert_eq!(
            (quiet.reward, quiet.outcome),
            (STEP_REWARD, KnightOutcome::Ongoing)
        );
        let s = KnightState::new((0, 1), (3, 3));
        // Jump 3 (+2,+1) lands on (2,2), next to the king.
        let captured = s.step(3);
        assert_eq!(
            (captured.reward, captured.outcome),
            (CAPTURED_REWARD, KnightOutcome::Captured)
        );
        // From (0,0) jump 2 lands on (1,2), which attacks (3,3) by (+2,+1).
        let check = KnightState::new((0, 0), (3, 3)).step(2);
        assert_eq!(
            (check.reward, check.outcome),
            (CHECK_REWARD, KnightOutcome::Check)
        );
    }

    #[test]
    fn the_tenth_move_loses_even_when_it_checks() {
        let mut s = KnightState::new((0, 0), (3, 3));
        s.moves = 9;
        let last = s.step(2);
        assert_eq!(
            (last.reward, last.outcome),
            (OUT_OF_MOVES_REWARD, KnightOutcome::OutOfMoves)
        );
        s.moves = 8;
        assert_eq!(s.step(2).outcome, KnightOutcome::Check);
    }

    #[test]
    fn starts_never_check_and_cover_the_distribution() {
        let total: f64 = start_distribution().iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
        for _ in 0..10_000 {
            let s = random_start(&mut rng);
            assert!(!knight_attacks(s.knight, s.king) && s.knight != s.king && s.moves == 0);
        }
    }

    #[test]
    fn starts_weigh_each_knight_square_equally_as_the_original_reset() {
        // The original `reset()`: knight uniform over 64 squares, king uniform over the
        // squares left (redrawn while checked). A corner knight attacks 2 squares, a
        // centre knight 8, so their king placements weigh 1/(64*61) and 1/(64*55); a
        // sampler uniform over all 3,696 valid pairs fails both checks below.
        let dist = start_distribution();
        assert_eq!(dist.len(), 64 * 63 - 336);
        let weight = |knight: Coord| {
            dist.iter()
                .find(|(s, _)| s.knight == knight)
                .map(|(_, p)| *p)
                .expect("a start")
        };
        assert!((weight((0, 0)) - 1.0 / (64.0 * 61.0)).abs() < 1e-15);
        assert!((weight((3, 3)) - 1.0 / (64.0 * 55.0)).abs() < 1e-15);
        // The sampler: corner knights in 4/64 = 6.25 % of starts (uniform pairs: 6.60 %).
        let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(2);
        let draws = 400_000;
        let corners = (0..draws)
            .filter(|_| {
                let (r, c) = random_start(&mut rng).knight;
                (r == 0 || r == 7) && (c == 0 || c == 7)
            })
            .count();
        let share = corners as f64 / draws as f64;
        // Standard error 0.038 %: the bound is 5 of them, the uniform-pair share 9.
        assert!((share - 0.0625).abs() < 0.0019, "{share}");
    }
}
