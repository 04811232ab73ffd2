//! The Q-table and its "least best move" update:
//!
//! ```text
//! Q(s, a) += alpha * (r + gamma * min_b max_a' Q(s_ab, a') - Q(s, a))
//! ```
//!
//! where `b` runs over *all* of black's legal replies to `a` (not only the one
//! played), `s_ab` is the white-to-move position after `a` and `b`, and the future
//! term is 0 at a terminal position (mate, stalemate, or a reply that takes a piece).
//! Keys are the placement and side to move plus the move: counters and history are
//! not part of the key. Unseen entries are 0.

use std::collections::HashMap;

use burnmate_env::endgame::{Endgame, has_material};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Move, Position};

/// One stored entry, for checkpoints.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QEntry {
    /// Position key (placement + side to move).
    pub position: u64,
    /// Move code `from * 64 + to`.
    pub mv: u16,
    /// Q-value.
    pub value: f64,
}

/// The table and its learning rate and discount.
pub struct LeastBestQ {
    endgame: Endgame,
    alpha: f64,
    gamma: f64,
    table: HashMap<(u64, u16), f64>,
}

/// A stable key of placement and side to move (FNV-1a over the pieces).
pub fn position_key(position: &Chess) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |byte: u8| {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    for (sq, piece) in position.board().iter() {
        eat(sq as u8);
        eat(piece.char() as u8);
    }
    eat(u8::from(position.turn() == Color::White));
    h
}

fn move_code(m: &Move) -> u16 {
    let from = m.from().map_or(0, |s| s as u16);
    from * 64 + m.to() as u16
}

impl LeastBestQ {
    /// An empty table.
    pub fn new(endgame: Endgame, alpha: f64, gamma: f64) -> LeastBestQ {
        LeastBestQ {
            endgame,
            alpha,
            gamma,
            table: HashMap::new(),
        }
    }

    /// A table holding `entries`.
    pub fn from_entries(
        endgame: Endgame,
        alpha: f64,
        gamma: f64,
        entries: &[QEntry],
    ) -> LeastBestQ {
        let mut q = LeastBestQ::new(endgame, alpha, gamma);
        q.table
            .extend(entries.iter().map(|e| ((e.position, e.mv), e.value)));
        q
    }

    /// All entries, sorted by key (so files are reproducible).
    pub fn entries(&self) -> Vec<QEntry> {
        let mut entries: Vec<QEntry> = self
            .table
            .iter()
            .map(|(&(position, mv), &value)| QEntry {
                position,
                mv,
                value,
            })
            .collect();
        entries.sort_by_key(|e| (e.position, e.mv));
        entries
    }

    /// Stored entries.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// `Q(position, m)`, 0 if unseen.
    pub fn value(&self, position: &Chess, m: &Move) -> f64 {
        self.value_at(position_key(position), m)
    }

    fn value_at(&self, key: u64, m: &Move) -> f64 {
        self.table.get(&(key, move_code(m))).copied().unwrap_or(0.0)
    }

    /// `max_a Q(position, a)` over legal moves; 0 without legal moves.
    pub fn best_value(&self, position: &Chess) -> f64 {
        let key = position_key(position);
        position
            .legal_moves()
            .iter()
            .map(|m| self.value_at(key, m))
            .fold(None, |best: Option<f64>, v| {
                Some(best.map_or(v, |b| b.max(v)))
            })
            .unwrap_or(0.0)
    }

    /// The legal move with the highest value, ties broken at random.
    pub fn greedy(&self, position: &Chess, rng: &mut impl Rng) -> Move {
        self.greedy_among(position, &position.legal_moves(), rng)
    }

    /// [`LeastBestQ::greedy`] among `moves` only (legal, not empty).
    pub fn greedy_among(&self, position: &Chess, moves: &[Move], rng: &mut impl Rng) -> Move {
        let key = position_key(position);
        let best = moves
            .iter()
            .map(|m| self.value_at(key, m))
            .fold(f64::NEG_INFINITY, f64::max);
        let ties: Vec<&Move> = moves
            .iter()
            .filter(|m| self.value_at(key, m) == best)
            .collect();
        *ties[rng.random_range(0..ties.len())]
    }

    /// Epsilon-greedy over legal moves.
    pub fn choose(&self, position: &Chess, epsilon: f64, rng: &mut impl Rng) -> Move {
        if rng.random::<f64>() < epsilon {
            let moves = position.legal_moves();
            moves[rng.random_range(0..moves.len())]
        } else {
            self.greedy(position, rng)
        }
    }

    /// The least best move's value after white's move: the minimum over black's
    /// legal replies of the best white value after the reply (0 where a reply takes a
    /// piece or leaves white no move; 0 if black has no reply).
    pub fn future(&self, after_white: &Chess) -> f64 {
        after_white
            .legal_moves()
            .iter()
            .map(|b| {
                let mut next = after_white.clone();
                next.play_unchecked(*b);
                if has_material(self.endgame, next.board()) {
                    self.best_value(&next)
                } else {
                    0.0
                }
            })
            .fold(None, |worst: Option<f64>, v| {
                Some(worst.map_or(v, |w| w.min(v)))
            })
            .unwrap_or(0.0)
    }

    /// One update of `Q(position, m)` with `reward`; `after_white` is the position
    /// after `m` (black to move), `None` when `m` ended the match.
    pub fn update(&mut self, position: &Chess, m: &Move, reward: f64, after_white: Option<&Chess>) {
        let future = after_white.map_or(0.0, |a| self.future(a));
        let key = (position_key(position), move_code(m));
        let q = self.table.entry(key).or_insert(0.0);
        *q += self.alpha * (reward + self.gamma * future - *q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    use shakmaty::uci::UciMove;

    fn chess(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).expect("a legal FEN")
    }

    fn mv(position: &Chess, uci: &str) -> Move {
        uci.parse::<UciMove>().unwrap().to_move(position).unwrap()
    }

    fn after(position: &Chess, m: &Move) -> Chess {
        let mut p = position.clone();
        p.play_unchecked(*m);
        p
    }

    #[test]
    fn the_target_takes_the_minimum_over_all_black_replies() {
        // KQK: after Qb1-b2 black (h8) can go to g8 or h7 (g7 is covered).
        let s = chess("7k/8/8/8/8/8/8/KQ6 w - - 0 1");
        let a = mv(&s, "b1b2");
        let s1 = after(&s, &a);
        let replies: Vec<Move> = s1.legal_moves().into_iter().collect();
        assert!(replies.len() >= 2);
        let mut q = LeastBestQ::new(Endgame::Kqk, 0.5, 0.9);
        // Give each reply's successor a different best white value: 10 after the
        // first reply, 4 after the others (any white move there).
        for (i, b) in replies.iter().enumerate() {
            let next = after(&s1, b);
            let w = next.legal_moves()[0];
            let value = if i == 0 { 10.0 } else { 4.0 };
            q.table.insert((position_key(&next), move_code(&w)), value);
        }
        assert_eq!(q.future(&s1), 4.0, "the least best reply counts");
        q.update(&s, &a, 1.0, Some(&s1));
        // Q = 0 + 0.5 * (1 + 0.9 * 4 - 0) = 2.3.
        assert!((q.value(&s, &a) - 2.3).abs() < 1e-12);
        // A terminal update has no future term: Q = 2.3 + 0.5 * (5 - 2.3).
        q.update(&s, &a, 5.0, None);
        assert!((q.value(&s, &a) - 3.65).abs() < 1e-12);
    }

    #[test]
    fn a_reply_that_takes_the_piece_counts_as_zero() {
        // KRK, black to move can take the rook on g2: the future is min(.., 0).
        let s1 = chess("8/8/8/8/8/8/6R1/K6k b - - 0 1");
        let mut q = LeastBestQ::new(Endgame::Krk, 0.5, 0.9);
        for b in s1.legal_moves() {
            let next = after(&s1, &b);
            for w in next.legal_moves() {
                q.table.insert((position_key(&next), move_code(&w)), 7.0);
            }
        }
        assert_eq!(q.future(&s1), 0.0);
    }

    #[test]
    fn greedy_breaks_ties_among_the_best_only_and_entries_round_trip() {
        let s = chess("7k/8/8/8/8/8/8/KQ6 w - - 0 1");
        let mut q = LeastBestQ::new(Endgame::Kqk, 0.1, 0.95);
        let a = mv(&s, "b1b7");
        q.update(&s, &a, 10.0, None);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
        for _ in 0..20 {
            assert_eq!(q.greedy(&s, &mut rng), a);
        }
        let copy = LeastBestQ::from_entries(Endgame::Kqk, 0.1, 0.95, &q.entries());
        assert_eq!(copy.value(&s, &a), q.value(&s, &a));
        assert_eq!(copy.len(), 1);
    }
}
