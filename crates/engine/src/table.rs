//! The transposition table: a fixed number of 16-byte slots (size in MB), a
//! position's slot chosen by its Zobrist key, the full key kept to tell positions
//! apart, shared by the threads of a search. **Replacement rule:** a new entry always replaces another position's; for
//! the same position it replaces unless the stored entry was searched deeper and the
//! new one is not exact (so a deep result survives a shallow re-search).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

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

impl Bound {
    /// What a node's `best` score bounds, searched in the window `(alpha, beta)`.
    pub fn of(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
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

/// The table: slots of two atomic words, shared by every thread of a search (Lazy
/// SMP) without locks. A slot holds `key ^ data` and `data` (Hyatt and Mann's
/// lockless hashing): a slot torn by two threads writing at once fails the key check
/// and reads as empty, never as another position's entry.
pub struct Table {
    slots: Vec<[AtomicU64; 2]>,
}

/// `data`'s bit that marks a slot in use (an empty slot is all zeros).
const USED: u64 = 1 << 42;

/// `entry` without its key, packed in one word.
fn pack_entry(entry: &Entry) -> u64 {
    let bound = match entry.bound {
        Bound::Exact => 0u64,
        Bound::Lower => 1,
        Bound::Upper => 2,
    };
    u64::from(entry.best)
        | u64::from(entry.score as u16) << 16
        | u64::from(entry.depth as u8) << 32
        | bound << 40
        | USED
}

/// The entry of `key` packed in `data`.
fn unpack_entry(key: u64, data: u64) -> Entry {
    Entry {
        key,
        best: data as u16,
        score: (data >> 16) as u16 as i16,
        depth: (data >> 32) as u8 as i8,
        bound: match (data >> 40) & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        },
    }
}

impl Table {
    /// A table of about `megabytes` MB (at least one slot).
    pub fn new(megabytes: usize) -> Table {
        let slots = (megabytes << 20) / std::mem::size_of::<[AtomicU64; 2]>();
        Table {
            slots: (0..slots.max(1))
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
        }
    }

    fn index(&self, key: u64) -> usize {
        // The high half of key x len: uniform over the slots without a division.
        ((u128::from(key) * self.slots.len() as u128) >> 64) as usize
    }

    /// The entry stored for `key`, if the slot holds that position.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let [check, data] = &self.slots[self.index(key)];
        let data = data.load(Relaxed);
        (data & USED != 0 && check.load(Relaxed) ^ data == key).then(|| unpack_entry(key, data))
    }

    /// Asks the CPU to bring `key`'s slot into its cache (a hint that changes no
    /// result): a search computes a child's key, then updates its net while the
    /// slot arrives for the child's probe.
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let slot = self.slots[self.index(key)].as_ptr();
            // A prefetch reads nothing and cannot fault; the slot is in bounds.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Stores `entry` by the replacement rule above.
    pub fn store(&self, entry: Entry) {
        if let Some(old) = self.probe(entry.key)
            && old.depth > entry.depth
            && entry.bound != Bound::Exact
        {
            return;
        }
        let [check, data] = &self.slots[self.index(entry.key)];
        let packed = pack_entry(&entry);
        check.store(entry.key ^ packed, Relaxed);
        data.store(packed, Relaxed);
    }

    /// Empties every slot (a new game).
    pub fn clear(&self) {
        for [check, data] in &self.slots {
            check.store(0, Relaxed);
            data.store(0, Relaxed);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_follow_the_replacement_rule() {
        let table = Table::new(1);
        let entry = Entry {
            key: 0xdead_beef_0123_4567,
            best: 0x8abc,
            score: -31_000,
            depth: -1,
            bound: Bound::Upper,
        };
        assert_eq!(table.probe(entry.key), None);
        table.store(entry);
        assert_eq!(table.probe(entry.key), Some(entry));
        assert_eq!(table.probe(entry.key ^ 1), None, "another key misses");
        // A deeper entry survives a shallower bound, not a shallower exact score.
        let deep = Entry {
            depth: 9,
            bound: Bound::Lower,
            ..entry
        };
        table.store(deep);
        table.store(Entry {
            depth: 3,
            score: 7,
            ..deep
        });
        assert_eq!(table.probe(entry.key), Some(deep));
        let exact = Entry {
            depth: 3,
            bound: Bound::Exact,
            ..deep
        };
        table.store(exact);
        assert_eq!(table.probe(entry.key), Some(exact));
        // Key 0 in an empty table is not found.
        assert_eq!(Table::new(1).probe(0), None);
        table.clear();
        assert_eq!(table.probe(entry.key), None);
        assert_eq!(std::mem::size_of::<[AtomicU64; 2]>(), 16, "16-byte slots");
    }
}
