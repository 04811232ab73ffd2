//! Symmetry-reduced indexing of pawnless positions.
//!
//! A pawnless position looks the same under the board's 8 symmetries (mirrors and
//! rotations), so a table stores one of each class: the white king in the triangle
//! a1-d1-d4 (10 squares), the black king on or below the a1-h8 diagonal when the
//! white king is on it, and kings apart: 462 king pairs. The other pieces add
//! 6 bits each, the king pair innermost (`index = (square_1 * 64^(n-1) + ... +
//! square_n) * 462 + pair`): the pairs run white king major, so a king move changes
//! the index by a few hundred at most and a position's king un-moves share cache
//! lines (the solver's random accesses). Like pieces (two bishops) are stored in
//! ascending square order. With both kings on the
//! diagonal the transposed board is canonical too: the smaller index wins. Slots
//! that are no class's representative (overlapping pieces, unsorted like pieces,
//! the larger of two transposes) are never reached by [`Indexer::index`].

use std::sync::OnceLock;

use super::material::{MAX_PIECES, Material};

/// Canonical king pairs.
pub const KING_PAIRS: usize = 462;
/// Squares of a position: white king, black king, then the material's pieces.
pub type Squares = [u8; MAX_PIECES];
/// The transform that mirrors the board in the a1-h8 diagonal.
const TRANSPOSE: usize = 4;
/// A `(white king, black king)` with no canonical transform: equal or adjacent.
const NO_TRANSFORM: u8 = u8::MAX;

struct KingTables {
    /// `sym[t][square]`: bit 0 mirrors files, bit 1 ranks, bit 2 transposes after.
    sym: [[u8; 64]; 8],
    /// For each raw `wk * 64 + bk`, the first transform that makes the pair canonical.
    transform: Vec<u8>,
    /// For each canonical `wk * 64 + bk`, its pair number; others `u16::MAX`.
    pair_index: Vec<u16>,
    /// Each pair's kings.
    pairs: Vec<(u8, u8)>,
    /// Whether both kings of the pair are on the a1-h8 diagonal.
    on_diagonal: Vec<bool>,
}

fn file(sq: u8) -> u8 {
    sq & 7
}

fn rank(sq: u8) -> u8 {
    sq >> 3
}

fn adjacent_or_equal(a: u8, b: u8) -> bool {
    file(a).abs_diff(file(b)) <= 1 && rank(a).abs_diff(rank(b)) <= 1
}

fn canonical_pair(wk: u8, bk: u8) -> bool {
    let in_triangle = file(wk) <= 3 && rank(wk) <= file(wk);
    in_triangle && (rank(wk) != file(wk) || rank(bk) <= file(bk))
}

fn king_tables() -> &'static KingTables {
    static TABLES: OnceLock<KingTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut sym = [[0u8; 64]; 8];
        for (t, map) in sym.iter_mut().enumerate() {
            for (sq, image) in map.iter_mut().enumerate() {
                let (mut f, mut r) = (file(sq as u8), rank(sq as u8));
                if t & 1 != 0 {
                    f = 7 - f;
                }
                if t & 2 != 0 {
                    r = 7 - r;
                }
                if t & 4 != 0 {
                    (f, r) = (r, f);
                }
                *image = r * 8 + f;
            }
        }
        let mut transform = vec![NO_TRANSFORM; 4096];
        let mut pair_index = vec![u16::MAX; 4096];
        let mut pairs = Vec::new();
        let mut on_diagonal = Vec::new();
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                if adjacent_or_equal(wk, bk) {
                    continue;
                }
                let raw = usize::from(wk) * 64 + usize::from(bk);
                transform[raw] = (0..8)
                    .find(|&t| canonical_pair(sym[t][usize::from(wk)], sym[t][usize::from(bk)]))
                    .expect("every pair has a canonical image")
                    as u8;
                if canonical_pair(wk, bk) {
                    pair_index[raw] = pairs.len() as u16;
                    pairs.push((wk, bk));
                    on_diagonal.push(rank(wk) == file(wk) && rank(bk) == file(bk));
                }
            }
        }
        assert_eq!(pairs.len(), KING_PAIRS);
        KingTables {
            sym,
            transform,
            pair_index,
            pairs,
            on_diagonal,
        }
    })
}

/// Maps the positions of one material to and from their table index.
pub struct Indexer {
    slots: usize,
    /// `[start, end)` slot ranges of like pieces (same colour and role), two or more.
    like: Vec<(usize, usize)>,
    /// `64^(slots - 2)`: piece placements per king pair.
    per_pair: usize,
}

impl Indexer {
    /// The indexer of `material`'s positions.
    pub fn new(material: &Material) -> Indexer {
        let pieces = material.pieces();
        let mut like = Vec::new();
        let mut start = 2;
        for end in 3..=pieces.len() {
            if end == pieces.len() || pieces[end] != pieces[start] {
                if end - start >= 2 {
                    like.push((start, end));
                }
                start = end;
            }
        }
        Indexer {
            slots: pieces.len(),
            like,
            per_pair: 1 << (6 * (pieces.len() - 2)),
        }
    }

    /// Indices of one side to move.
    pub fn per_side(&self) -> usize {
        KING_PAIRS * self.per_pair
    }

    /// The canonical index of a position whose kings are apart and whose squares are
    /// distinct (the caller checks: [`Indexer::kings_apart`]).
    pub fn index(&self, squares: &Squares) -> usize {
        let tables = king_tables();
        let t = tables.transform[usize::from(squares[0]) * 64 + usize::from(squares[1])];
        debug_assert_ne!(t, NO_TRANSFORM, "kings apart");
        let map = &tables.sym[usize::from(t)];
        let mut mapped = [0u8; MAX_PIECES];
        for k in 0..self.slots {
            mapped[k] = map[usize::from(squares[k])];
        }
        let pair =
            usize::from(tables.pair_index[usize::from(mapped[0]) * 64 + usize::from(mapped[1])]);
        let index = self.compose(pair, &mut mapped);
        if !tables.on_diagonal[pair] {
            return index;
        }
        let transpose = &tables.sym[TRANSPOSE];
        for sq in &mut mapped[..self.slots] {
            *sq = transpose[usize::from(*sq)];
        }
        index.min(self.compose(pair, &mut mapped))
    }

    /// Whether the kings of `squares` stand apart (not equal, not adjacent).
    pub fn kings_apart(squares: &Squares) -> bool {
        !adjacent_or_equal(squares[0], squares[1])
    }

    fn compose(&self, pair: usize, mapped: &mut Squares) -> usize {
        for &(start, end) in &self.like {
            mapped[start..end].sort_unstable();
        }
        let pieces = mapped[2..self.slots]
            .iter()
            .fold(0, |i, &sq| i << 6 | usize::from(sq));
        pieces * KING_PAIRS + pair
    }

    /// The squares of index `i` (of one side to move), in its stored orientation.
    pub fn squares(&self, i: usize) -> Squares {
        let mut squares = [0u8; MAX_PIECES];
        (squares[0], squares[1]) = king_tables().pairs[i % KING_PAIRS];
        let mut rest = i / KING_PAIRS;
        for k in (2..self.slots).rev() {
            squares[k] = (rest & 63) as u8;
            rest >>= 6;
        }
        squares
    }

    /// The index of the position of stored index `i` (whose squares are `squares`)
    /// after the piece in `slot` moves to `to` (kings left apart): a new king pair
    /// when the kings end canonical and not both on the diagonal (the stored
    /// orientation stays), a change of one 6-bit field when a piece moves and nothing can change
    /// the orientation or order, else the index computed afresh.
    #[inline]
    pub fn index_after_move(&self, i: usize, squares: &Squares, slot: usize, to: u8) -> usize {
        let tables = king_tables();
        let pair = i % KING_PAIRS;
        if slot < 2 {
            let (wk, bk) = if slot == 0 {
                (to, squares[1])
            } else {
                (squares[0], to)
            };
            // A canonical pair off the diagonal has one canonical orientation: this one.
            let moved = tables.pair_index[usize::from(wk) * 64 + usize::from(bk)];
            if moved != u16::MAX && !tables.on_diagonal[usize::from(moved)] {
                return i - pair + usize::from(moved);
            }
        } else if !tables.on_diagonal[pair]
            && !self
                .like
                .iter()
                .any(|&(start, end)| (start..end).contains(&slot))
        {
            let stride = KING_PAIRS << (6 * (self.slots - 1 - slot));
            return i - usize::from(squares[slot]) * stride + usize::from(to) * stride;
        }
        let mut moved = *squares;
        moved[slot] = to;
        self.index(&moved)
    }

    /// Whether index `i` is the stored representative of a position (distinct
    /// squares, like pieces ascending, the smaller transpose); `squares` are its
    /// squares from [`Indexer::squares`].
    pub fn is_canonical(&self, i: usize, squares: &Squares) -> bool {
        self.pieces_in_order(squares) && self.kings_canonical(i, squares)
    }

    /// Whether the pieces of `squares` (kings aside) stand on distinct squares with
    /// like pieces ascending: the part of [`Indexer::is_canonical`] that the 462
    /// indices of one piece placement share.
    pub fn pieces_in_order(&self, squares: &Squares) -> bool {
        let pieces = &squares[2..self.slots];
        let occupied = pieces.iter().fold(0u64, |o, &sq| o | 1 << sq);
        occupied.count_ones() as usize == pieces.len()
            && !self
                .like
                .iter()
                .any(|&(start, end)| squares[start..end].windows(2).any(|w| w[0] > w[1]))
    }

    /// The rest of [`Indexer::is_canonical`] for pieces in order: the kings stand
    /// off the pieces, and of two transposes index `i` is the smaller.
    pub fn kings_canonical(&self, i: usize, squares: &Squares) -> bool {
        let kings = [squares[0], squares[1]];
        !squares[2..self.slots].iter().any(|sq| kings.contains(sq))
            && (!king_tables().on_diagonal[i % KING_PAIRS] || self.index(squares) == i)
    }

    /// The kings `(white, black)` of king pair `pair` (the index modulo [`KING_PAIRS`]).
    pub fn kings(pair: usize) -> (u8, u8) {
        king_tables().pairs[pair]
    }

    /// Every placement the stored position on `squares` stands for: its images
    /// under the 8 board symmetries, each with its like pieces in every order, as
    /// square tuples (white king, black king, then the material's pieces), each once.
    pub fn placements(&self, squares: &Squares, out: &mut Vec<Squares>) {
        out.clear();
        for map in &king_tables().sym {
            let mut image = [0u8; MAX_PIECES];
            for k in 0..self.slots {
                image[k] = map[usize::from(squares[k])];
            }
            for &(start, end) in &self.like {
                image[start..end].sort_unstable();
            }
            self.push_orders(image, 0, out);
        }
        out.sort_unstable();
        out.dedup();
    }

    /// How many placements the stored position on `squares` stands for (the length
    /// of [`Indexer::placements`]): the 8 symmetries times the orders of the like
    /// pieces, over the symmetries that map the position onto itself (each such
    /// symmetry with one order of the like pieces fixes the placement). Off the
    /// diagonals no symmetry but the identity fixes the white king.
    pub fn weight(&self, squares: &Squares) -> u64 {
        let orders = self
            .like
            .iter()
            .map(|&(start, end)| (1..=(end - start) as u64).product::<u64>())
            .product::<u64>();
        if !Indexer::symmetric_about(squares[0]) {
            return 8 * orders;
        }
        let fixing = king_tables()
            .sym
            .iter()
            .filter(|map| self.maps_onto_itself(squares, map))
            .count() as u64;
        8 * orders / fixing
    }

    /// Whether the board map `map` takes the stored position on `squares` (like
    /// pieces ascending) onto itself: each piece onto its own square, or like pieces
    /// onto each other's.
    fn maps_onto_itself(&self, squares: &Squares, map: &[u8; 64]) -> bool {
        let mut image = [0u8; MAX_PIECES];
        for k in 0..self.slots {
            image[k] = map[usize::from(squares[k])];
        }
        for &(start, end) in &self.like {
            image[start..end].sort_unstable();
        }
        (0..self.slots).all(|k| image[k] == squares[k])
    }

    /// Pushes `image` with the like groups from `group` on in every order.
    fn push_orders(&self, mut image: Squares, group: usize, out: &mut Vec<Squares>) {
        let Some(&(start, end)) = self.like.get(group) else {
            out.push(image);
            return;
        };
        loop {
            self.push_orders(image, group + 1, out);
            if !next_permutation(&mut image[start..end]) {
                return;
            }
        }
    }

    /// A placement's index among all square tuples (6 bits a slot, white king first).
    pub fn raw_index(&self, squares: &Squares) -> usize {
        squares[..self.slots]
            .iter()
            .fold(0, |i, &sq| i << 6 | usize::from(sq))
    }

    /// Whether a symmetry of the board can fix `king` (it stands on a long diagonal):
    /// only then can two moves of the other side lead to one stored position.
    pub fn symmetric_about(king: u8) -> bool {
        rank(king) == file(king) || rank(king) + file(king) == 7
    }
}

/// Rearranges `items` into the next larger order; false (and sorted) after the largest.
fn next_permutation(items: &mut [u8]) -> bool {
    let Some(pivot) = items.windows(2).rposition(|w| w[0] < w[1]) else {
        items.reverse();
        return false;
    };
    let successor = items
        .iter()
        .rposition(|&x| x > items[pivot])
        .expect("a larger item after the pivot");
    items.swap(pivot, successor);
    items[pivot + 1..].reverse();
    true
}
