//! The transposition table: a fixed number of 16-byte slots (size in MB), a
//! position's slot chosen by its Zobrist key, the full key kept to tell positions
//! apart. **Replacement rule:** a new entry always replaces another position's; for
//! the same position it replaces unless the stored entry was searched deeper and the
//! new one is not exact (so a deep result survives a shallow re-search).

use shakmaty::Move;

/// What a stored score says about the true score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (a beta cutoff).
    Lower,
    /// The true score is at most this (no move raised alpha).
    Upper,
}

/// One stored search result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position's Zobrist key.
    pub key: u64,
    /// Its best (or refuting) move, packed by [`pack`]; 0 when none.
    pub best: u16,
    /// The score, mates counted from this node ([`super::score::to_table`]).
    pub score: i16,
    /// The depth searched.
    pub depth: i8,
    /// What the score bounds.
    pub bound: Bound,
}

/// The table.
pub struct Table {
    slots: Vec<Option<Entry>>,
}

impl Table {
    /// A table of about `megabytes` MB (at least one slot).
    pub fn new(megabytes: usize) -> Table {
        let slots = (megabytes << 20) / std::mem::size_of::<Option<Entry>>();
        Table {
            slots: vec![None; slots.max(1)],
        }
    }

    fn index(&self, key: u64) -> usize {
        // The high half of key x len: uniform over the slots without a division.
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    /// The entry stored for `key`, if the slot holds that position.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|e| e.key == key)
    }

    /// Stores `entry` by the replacement rule above.
    pub fn store(&mut self, entry: Entry) {
        let index = self.index(entry.key);
        let slot = &mut self.slots[index];
        if let Some(old) = slot
            && old.key == entry.key
            && old.depth > entry.depth
            && entry.bound != Bound::Exact
        {
            return;
        }
        *slot = Some(entry);
    }

    /// Empties every slot (a new game).
    pub fn clear(&mut self) {
        self.slots.fill(None);
    }
}

/// A move as 16 bits: from (6), to (6), promotion role (3). Castling is the king's
/// square to the rook's, as shakmaty names it; 0 is no move.
pub fn pack(m: &Move) -> u16 {
    let from = m.from().map_or(0, u16::from);
    let promotion = m.promotion().map_or(0, |r| r as u16);
    1 << 15 | promotion << 12 | u16::from(m.to()) << 6 | from
}

/// Whether `m` is the move `packed` names.
pub fn is_packed(m: &Move, packed: u16) -> bool {
    packed != 0 && pack(m) == packed
}
