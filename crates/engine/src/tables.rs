//! Endgame tables in the search: a seam the engine probes for exact values, filled
//! by whoever holds tables (burnmate's own pawnless distance-to-mate tables, in the
//! `burnmate` crate). A node the tables hold is not searched: its value is the
//! table's, a mate counted from the root, so the search plays the shortest mates
//! and never lets a won ending go.
//!
//! ```text
//! ply > 0, pieces <= max_pieces, table holds s:
//!   win in n plies  -> MATE - (ply + n)      loss in n plies -> -(MATE - (ply + n))
//!   won, distance unknown -> TABLE_WIN       lost, distance unknown -> -TABLE_WIN
//!   draw            -> 0
//! ```

use std::sync::Arc;

use shakmaty::{Chess, Position};

use super::score::{MATE, TABLE_WIN};

/// What a table says of a position, for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableValue {
    /// Neither side can force mate.
    Draw,
    /// The side to move mates in this many plies.
    Win(u32),
    /// The side to move is mated in this many plies.
    Loss(u32),
    /// The side to move wins, in a number of moves the table does not give.
    Won,
    /// The side to move loses, in a number of moves the table does not give.
    Lost,
}

impl TableValue {
    /// The search's score of the value `ply` plies from the root.
    pub fn score(self, ply: usize) -> i32 {
        match self {
            TableValue::Draw => 0,
            TableValue::Win(plies) => MATE - (ply as i32 + plies as i32),
            TableValue::Loss(plies) => -(MATE - (ply as i32 + plies as i32)),
            TableValue::Won => TABLE_WIN,
            TableValue::Lost => -TABLE_WIN,
        }
    }
}

/// Several sets of tables, probed in order: the first that holds a position gives
/// its value (burnmate's distance-to-mate tables before Syzygy's win-draw-loss ones).
pub struct TableChain(pub Vec<Arc<dyn Tables>>);

impl Tables for TableChain {
    fn max_pieces(&self) -> usize {
        self.0.iter().map(|t| t.max_pieces()).max().unwrap_or(0)
    }

    fn probe(&self, position: &Chess) -> Option<TableValue> {
        let pieces = position.board().occupied().count();
        self.0
            .iter()
            .filter(|t| pieces <= t.max_pieces())
            .find_map(|t| t.probe(position))
    }
}

/// Tables a search may probe.
pub trait Tables: Send + Sync {
    /// The most pieces (kings included) of a position any table holds: positions
    /// with more are not probed.
    fn max_pieces(&self) -> usize;
    /// The value of `position` if a table holds it.
    fn probe(&self, position: &Chess) -> Option<TableValue>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::Material;
    use crate::limits::Limits;
    use crate::score::mate_in_moves;
    use crate::search::{Searcher, key_of};
    use shakmaty::uci::UciMove;

    /// A table that holds one position: lost for its side to move in 7 plies.
    struct One(u64);

    impl Tables for One {
        fn max_pieces(&self) -> usize {
            32
        }
        fn probe(&self, position: &Chess) -> Option<TableValue> {
            (key_of(position) == self.0).then_some(TableValue::Loss(7))
        }
    }

    /// A table that holds every position as a draw.
    struct Drawn;

    impl Tables for Drawn {
        fn max_pieces(&self) -> usize {
            32
        }
        fn probe(&self, _: &Chess) -> Option<TableValue> {
            Some(TableValue::Draw)
        }
    }

    #[test]
    fn a_position_the_tables_hold_takes_their_value_counted_from_the_root() {
        let root = Chess::default();
        let mv = "g1f3".parse::<UciMove>().unwrap().to_move(&root).unwrap();
        let mut after = root.clone();
        after.play_unchecked(mv);
        let tables: Arc<dyn Tables> = Arc::new(One(key_of(&after)));
        let mut searcher = Searcher::new(Material, 1).with_tables(Some(tables.clone()));
        let found = searcher
            .search(&root, &[], &[], Limits::depth(3), |_| {})
            .unwrap();
        assert_eq!(found.best, mv);
        assert_eq!(found.score, MATE - 8, "mated 7 plies after the move");
        assert_eq!(mate_in_moves(found.score), Some(4));
        assert_eq!(TableValue::Draw.score(5), 0);
        assert_eq!(TableValue::Win(3).score(2), MATE - 5);
        assert_eq!(TableValue::Won.score(9), TABLE_WIN);
        assert!(!crate::score::is_mate(TableValue::Lost.score(1)));
        // A chain takes the first set that holds the position.
        let chain = TableChain(vec![tables, Arc::new(Drawn)]);
        assert_eq!(chain.probe(&after), Some(TableValue::Loss(7)));
        assert_eq!(chain.probe(&root), Some(TableValue::Draw));
        assert_eq!(chain.max_pieces(), 32);
    }
}
