//! Positions, the study's move rules, and game outcomes.

use std::fmt;

use super::action::{ACTIONS, Action};
use super::square::{DIRECTIONS, SIDE, Square};
use crate::environment::Outcome;

/// How a game stands after white's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queen4x4Outcome {
    /// Black has a legal move; the game goes on.
    Ongoing,
    /// Black is in check and has no legal move: white wins.
    Checkmate,
    /// Black is not in check and has no legal move: a draw.
    Stalemate,
}

impl Outcome for Queen4x4Outcome {
    fn is_terminal(self) -> bool {
        self != Queen4x4Outcome::Ongoing
    }

    fn name(self) -> &'static str {
        match self {
            Queen4x4Outcome::Ongoing => "ongoing",
            Queen4x4Outcome::Checkmate => "checkmate",
            Queen4x4Outcome::Stalemate => "stalemate",
        }
    }
}

/// A position: white king, white queen and black king on distinct squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// White king.
    pub white_king: Square,
    /// White queen.
    pub queen: Square,
    /// Black king.
    pub black_king: Square,
}

impl Position {
    /// A position from three distinct squares; `None` if two coincide.
    pub fn new(white_king: Square, queen: Square, black_king: Square) -> Option<Position> {
        (white_king != queen && white_king != black_king && queen != black_king).then_some(
            Position {
                white_king,
                queen,
                black_king,
            },
        )
    }

    /// Squares the queen controls, as a bitmask: its own square, and every square
    /// along its eight rays up to and excluding the white king (rays pass through
    /// the black king, so it cannot step back along a line of check).
    pub fn queen_control(&self) -> u16 {
        let mut control = self.queen.bit();
        for direction in 0..DIRECTIONS.len() {
            for steps in 1..SIDE {
                match self.queen.step(direction, steps) {
                    Some(sq) if sq != self.white_king => control |= sq.bit(),
                    _ => break,
                }
            }
        }
        control
    }

    /// Whether the black king stands on a square the queen controls.
    pub fn black_in_check(&self) -> bool {
        self.queen_control() & self.black_king.bit() != 0
    }

    /// The black king's legal destinations, as a bitmask: on the board, not next to
    /// the white king, not controlled by the queen (which includes her own square).
    pub fn black_king_moves(&self) -> u16 {
        let forbidden = self.queen_control();
        let mut moves = 0;
        for direction in 0..DIRECTIONS.len() {
            if let Some(sq) = self.black_king.step(direction, 1)
                && !sq.touches(self.white_king)
                && sq != self.white_king
                && forbidden & sq.bit() == 0
            {
                moves |= sq.bit();
            }
        }
        moves
    }

    /// The outcome with black to move in this position.
    pub fn outcome(&self) -> Queen4x4Outcome {
        match (self.black_king_moves() == 0, self.black_in_check()) {
            (false, _) => Queen4x4Outcome::Ongoing,
            (true, true) => Queen4x4Outcome::Checkmate,
            (true, false) => Queen4x4Outcome::Stalemate,
        }
    }

    /// The study's legal-action mask for white, bit `i` set when action `i` is allowed.
    ///
    /// A queen move may not leave the board, pass through or land on a king, nor land
    /// on a square next to the black king unless the white king defends it. A king move
    /// may not leave the board, land on the queen, or land next to the black king.
    pub fn legal_actions(&self) -> u32 {
        let mut mask = 0u32;
        for direction in 0..DIRECTIONS.len() {
            for distance in 1..SIDE {
                let Some(sq) = self.queen.step(direction, distance) else {
                    break;
                };
                if sq == self.white_king || sq == self.black_king {
                    break;
                }
                if !sq.touches(self.black_king) || sq.touches(self.white_king) {
                    mask |= 1
                        << Action::Queen {
                            direction,
                            distance,
                        }
                        .index();
                }
            }
            if let Some(sq) = self.white_king.step(direction, 1)
                && sq != self.queen
                && sq != self.black_king
                && !sq.touches(self.black_king)
            {
                mask |= 1 << Action::King { direction }.index();
            }
        }
        mask
    }

    /// Legal action indices in increasing order.
    pub fn legal_action_list(&self) -> Vec<usize> {
        let mask = self.legal_actions();
        (0..ACTIONS).filter(|&a| mask & (1 << a) != 0).collect()
    }

    /// The position after white plays `action`, which must be legal here.
    pub fn play(&self, action: Action) -> Position {
        debug_assert!(self.legal_actions() & (1 << action.index()) != 0);
        let mut next = *self;
        match action {
            Action::Queen {
                direction,
                distance,
            } => {
                next.queen = self
                    .queen
                    .step(direction, distance)
                    .expect("legal queen move")
            }
            Action::King { direction } => {
                next.white_king = self.white_king.step(direction, 1).expect("legal king move")
            }
        }
        next
    }

    /// The position after the black king moves to `to`, which must be legal here.
    pub fn play_black(&self, to: Square) -> Position {
        debug_assert!(self.black_king_moves() & to.bit() != 0);
        Position {
            black_king: to,
            ..*self
        }
    }

    /// The square occupied by a piece, as a board character: `K`, `Q`, `k`, or `.`.
    fn piece_char(&self, sq: Square) -> char {
        if sq == self.white_king {
            'K'
        } else if sq == self.queen {
            'Q'
        } else if sq == self.black_king {
            'k'
        } else {
            '.'
        }
    }
}

impl fmt::Display for Position {
    /// A diagram, rank 4 on top, then the spec line "Ka2 Qa1 / Kc2".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..SIDE {
            write!(f, "{} ", SIDE - row)?;
            for col in 0..SIDE {
                let sq = Square::at(row, col).expect("on board");
                write!(f, " {}", self.piece_char(sq))?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d")?;
        write!(
            f,
            "K{} Q{} / K{}",
            self.white_king, self.queen, self.black_king
        )
    }
}

impl Position {
    /// One environment step: white plays `action` (legal here); if the game goes on,
    /// the black king replies with a uniformly random legal move. Returns the
    /// position with white to move again (or the final position) and the outcome of
    /// white's move.
    pub fn step(
        &self,
        action: Action,
        rng: &mut (impl rand::Rng + ?Sized),
    ) -> (Position, Queen4x4Outcome) {
        use rand::RngExt;
        let after = self.play(action);
        let outcome = after.outcome();
        if outcome.is_terminal() {
            return (after, outcome);
        }
        let moves = after.black_king_moves();
        let pick = rng.random_range(0..moves.count_ones());
        let to = (0..16)
            .filter(|i| moves & (1 << i) != 0)
            .nth(pick as usize)
            .and_then(Square::from_index)
            .expect("pick < number of moves");
        (after.play_black(to), Queen4x4Outcome::Ongoing)
    }
}
