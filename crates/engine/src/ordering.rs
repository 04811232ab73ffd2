//! Move ordering, which makes alpha-beta cut early: the table's move first, then
//! captures and promotions by most valuable victim / least valuable attacker, then
//! the two killer moves of the ply (quiet moves that cut off a sibling), then quiet
//! moves by their history (the depth² bonus of every cutoff they caused, minus a
//! malus for quiet moves tried before a cutoff; gravity keeps it within ±16,384),
//! and last the captures that likely lose material.

use shakmaty::{Color, Move};

use super::evaluate::piece_value;
use super::limits::MAX_DEPTH;
use super::table::is_packed;

/// Plies a search can reach (iterations, extensions and quiescence).
pub const MAX_PLY: usize = MAX_DEPTH as usize + 64;

const TABLE_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 26;
const LOSING_CAPTURE: i32 = -(1 << 28);
const HISTORY_MAX: i32 = 16_384;
/// The most legal moves a chess position has (218; shakmaty's move lists hold 270).
const MAX_MOVES: usize = 270;

/// Killers and history of one search (kept across its iterations).
pub struct Ordering {
    killers: Vec<[Option<Move>; 2]>,
    history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for Ordering {
    fn default() -> Ordering {
        Ordering {
            killers: vec![[None, None]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

/// A capture's or promotion's order among captures: victim first, attacker second.
pub fn mvv_lva(m: &Move) -> i32 {
    let victim = m.capture().map_or(0, piece_value) + m.promotion().map_or(0, piece_value);
    victim * 8 - piece_value(m.role()) / 100
}

/// Sorts `moves` by `key`, highest first, moves of equal keys in their order (a
/// stable sort, each key computed once): an insertion sort on the stack, as a node's
/// few dozen moves need no allocation.
pub fn sort_descending(moves: &mut [Move], key: impl Fn(&Move) -> i32) {
    let mut keys = [0i32; MAX_MOVES];
    for (k, m) in keys.iter_mut().zip(moves.iter()) {
        *k = key(m);
    }
    for i in 1..moves.len() {
        let (k, m) = (keys[i], moves[i]);
        let mut j = i;
        while j > 0 && keys[j - 1] < k {
            keys[j] = keys[j - 1];
            moves[j] = moves[j - 1];
            j -= 1;
        }
        keys[j] = k;
        moves[j] = m;
    }
}

/// Whether `m` is quiet (neither a capture nor a promotion).
pub fn is_quiet(m: &Move) -> bool {
    !m.is_capture() && m.promotion().is_none()
}

impl Ordering {
    fn history_slot(&mut self, side: Color, m: &Move) -> &mut i32 {
        let from = m.from().map_or(0, usize::from);
        &mut self.history[side as usize][from][usize::from(m.to())]
    }

    /// Sorts `moves` best first for a node at `ply` whose table move is `table_move`;
    /// the captures and promotions `losing` names go last.
    pub fn sort(
        &self,
        moves: &mut [Move],
        side: Color,
        ply: usize,
        table_move: u16,
        losing: impl Fn(&Move) -> bool,
    ) {
        let killers = self.killers[ply.min(MAX_PLY)];
        let key = |m: &Move| -> i32 {
            if is_packed(m, table_move) {
                TABLE_MOVE
            } else if !is_quiet(m) {
                let order = if losing(m) { LOSING_CAPTURE } else { CAPTURE };
                order + mvv_lva(m)
            } else if killers[0] == Some(*m) {
                KILLER + 1
            } else if killers[1] == Some(*m) {
                KILLER
            } else {
                let from = m.from().map_or(0, usize::from);
                self.history[side as usize][from][usize::from(m.to())]
            }
        };
        sort_descending(moves, key);
    }

    /// A quiet move `m` cut off at `ply` and `depth`, after the quiet moves `tried`.
    pub fn reward(&mut self, m: &Move, tried: &[Move], side: Color, ply: usize, depth: i32) {
        let ply = ply.min(MAX_PLY);
        if self.killers[ply][0] != Some(*m) {
            self.killers[ply] = [Some(*m), self.killers[ply][0]];
        }
        let bonus = (depth * depth).min(HISTORY_MAX);
        let update = |slot: &mut i32, delta: i32| {
            // Gravity: the further from 0, the smaller the step.
            *slot += delta - *slot * delta.abs() / HISTORY_MAX;
        };
        update(self.history_slot(side, m), bonus);
        for other in tried {
            update(self.history_slot(side, other), -bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn the_insertion_sort_orders_as_a_stable_sort_by_descending_key() {
        let mut moves: Vec<Move> = Chess::default().legal_moves().into_iter().collect();
        let key =
            |m: &Move| i32::from(u8::from(m.to())) % 5 - i32::from(u8::from(m.from().unwrap())) % 3;
        let mut expected = moves.clone();
        expected.sort_by_key(|m| std::cmp::Reverse(key(m)));
        sort_descending(&mut moves, key);
        assert_eq!(moves, expected);
    }
}
