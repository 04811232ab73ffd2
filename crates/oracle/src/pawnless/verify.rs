//! A solved table checked entry by entry against its successors, as Syzygy's
//! `rtbver` checks its tables: every stored value must be the one its moves give.
//!
//! ```text
//! no legal move        -> lost in 0 (in check) or drawn (stalemate)
//! some move to Loss(d) -> Win(1 + the smallest such d)
//! else a move to Draw  -> Draw
//! else (all to Win(d)) -> Loss(1 + the largest d)
//! ```
//!
//! Captures are valued by the smaller tables; an index that stands for no legal
//! position must hold the illegal mark, and a legal one must not.

use shakmaty::{Color, Role};

use super::index::{Indexer, KING_PAIRS};
use super::rules::{Rules, Sets, bit, color_index};
use super::{Dtm, DtmTable, ILLEGAL};
use crate::retrograde::{expected, in_parallel};

/// The entries of `table` (indices into its whole value array: white-to-move half,
/// then black's) whose stored value is not what their moves give; `subtables` as the
/// solver takes them (per slot, the table after that piece is captured).
pub(super) fn inconsistent(table: &DtmTable, subtables: &[Option<&DtmTable>]) -> Vec<u32> {
    let rules = Rules {
        pieces: table.pieces.clone(),
        indexer: Indexer::new(&table.material),
        subtables,
    };
    let per_side = rules.indexer.per_side();
    let blocks: Vec<usize> = (0..per_side / KING_PAIRS).collect();
    in_parallel(&blocks, |part| {
        let mut wrong = Vec::new();
        let (mut children, mut values) = (Vec::new(), Vec::new());
        for &block in part {
            let first = block * KING_PAIRS;
            let mut squares = rules.indexer.squares(first);
            let pieces_legal = rules.indexer.pieces_in_order(&squares);
            let pieces = rules.piece_sets(&squares);
            for pair in 0..KING_PAIRS {
                let i = first + pair;
                (squares[0], squares[1]) = Indexer::kings(pair);
                let canonical = pieces_legal && rules.indexer.kings_canonical(i, &squares);
                let mut sets: Sets = pieces;
                sets.toggle(Color::White, Role::King, bit(squares[0]));
                sets.toggle(Color::Black, Role::King, bit(squares[1]));
                let attacked = sets.kings_attacked(&squares);
                for turn in [Color::White, Color::Black] {
                    let at = if turn == Color::White {
                        i
                    } else {
                        per_side + i
                    };
                    let stored = table.values[at];
                    let legal = canonical && !attacked[color_index(!turn)];
                    if !legal {
                        if stored != ILLEGAL {
                            wrong.push(at as u32);
                        }
                        continue;
                    }
                    let in_check = attacked[color_index(turn)];
                    let mover = rules.mover(turn, &squares, &sets, in_check);
                    let caps = rules.captures(&mover);
                    rules.quiet_children(i, &mover, &mut children);
                    let other = if turn == Color::White { per_side } else { 0 };
                    values.clear();
                    values.extend(
                        children
                            .iter()
                            .map(|&c| Dtm::stored(table.values[other + c])),
                    );
                    let want = expected(in_check, &caps, &values);
                    if want != Some(Dtm::stored(stored)) {
                        wrong.push(at as u32);
                    }
                }
            }
        }
        wrong
    })
}
