//! Syzygy endgame tables (pawns included) for the engine, read by `shakmaty-syzygy`
//! from the directories of the `SyzygyPath` option. In the tree a position of the
//! tables takes its win-draw-loss value under the fifty-move rule (a win the rule
//! may spoil is searched on); at the root the search is given the one move that
//! keeps the table's value best by distance to zeroing (DTZ: the win that resets
//! the fifty-move count soonest, the loss that delays it longest), so a won ending
//! is always converted, as Stockfish's root ranking does.
//!
//! ```text
//! WDL (side to move)  Win -> won      Loss -> lost      Draw, CursedWin, BlessedLoss -> draw
//!                     MaybeWin, MaybeLoss (the fifty-move count decides) -> not probed
//! ```

use burnmate_engine::tables::{TableValue, Tables};
use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{AmbiguousWdl, Tablebase};

/// The tables of one `SyzygyPath`.
pub struct SyzygyTables {
    tablebase: Tablebase<Chess>,
}

impl SyzygyTables {
    /// The tables in `paths` (directories joined as the system joins `PATH`:
    /// `:` on Unix, `;` on Windows); an error naming the directory that cannot be
    /// read, or saying that none holds a table.
    pub fn open(paths: &str) -> Result<SyzygyTables, String> {
        let mut tablebase = Tablebase::new();
        let mut files = 0;
        for dir in std::env::split_paths(paths) {
            files += tablebase
                .add_directory(&dir)
                .map_err(|e| format!("SyzygyPath {}: {e}", dir.display()))?;
        }
        if files == 0 {
            return Err(format!(
                "SyzygyPath {paths} holds no Syzygy table (KQvK.rtbw and the like)"
            ));
        }
        Ok(SyzygyTables { tablebase })
    }

    /// The move that keeps `position`'s table value best by DTZ, if the tables hold
    /// it and every position it leads to.
    pub fn best_move(&self, position: &Chess) -> Option<Move> {
        if position.board().occupied().count() > self.tablebase.max_pieces() {
            return None;
        }
        self.tablebase
            .best_move(position)
            .ok()
            .flatten()
            .map(|(m, _)| m)
    }
}

impl Tables for SyzygyTables {
    fn max_pieces(&self) -> usize {
        self.tablebase.max_pieces()
    }

    fn probe(&self, position: &Chess) -> Option<TableValue> {
        match self.tablebase.probe_wdl(position).ok()? {
            AmbiguousWdl::Win => Some(TableValue::Won),
            AmbiguousWdl::Loss => Some(TableValue::Lost),
            AmbiguousWdl::Draw | AmbiguousWdl::CursedWin | AmbiguousWdl::BlessedLoss => {
                Some(TableValue::Draw)
            }
            AmbiguousWdl::MaybeWin | AmbiguousWdl::MaybeLoss => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, uci::UciMove};

    /// The directory of the test tables (`tests/fixtures/syzygy`).
    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/syzygy");

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).unwrap()
    }

    #[test]
    fn the_tables_give_won_drawn_and_lost_positions_and_the_converting_move() {
        let tables = SyzygyTables::open(FIXTURES).unwrap();
        // KQvKP, KRvKP and KPvKP's WDL files make it four.
        assert_eq!(tables.max_pieces(), 4);
        // KPK: the pawn on b3, black to move, is rtbgen's longest win (20 plies).
        let longest = position("8/8/7k/8/7K/1P6/8/8 b - - 0 1");
        assert_eq!(tables.probe(&longest), Some(TableValue::Lost));
        let dtz = tables
            .tablebase
            .probe_dtz(&longest)
            .unwrap()
            .ignore_rounding();
        assert_eq!(dtz.0, -20);
        // The king in front of its rook pawn, the defender in the corner: a draw.
        let rook_pawn = position("7k/8/7K/7P/8/8/8/8 w - - 0 1");
        assert_eq!(tables.probe(&rook_pawn), Some(TableValue::Draw));
        // The king on the sixth in front of its pawn wins with either side to move;
        // with white to move, stepping back beside the pawn spoils it.
        let sixth = position("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1");
        assert_eq!(tables.probe(&sixth), Some(TableValue::Won));
        let value_after = |uci: &str| {
            let m = uci.parse::<UciMove>().unwrap().to_move(&sixth).unwrap();
            let mut after = sixth.clone();
            after.play_unchecked(m);
            tables.probe(&after)
        };
        let best = tables.best_move(&sixth).unwrap();
        assert_eq!(
            value_after(&best.to_uci(CastlingMode::Standard).to_string()),
            Some(TableValue::Lost)
        );
        for (uci, value) in [
            ("e6d6", TableValue::Lost),
            ("e6f6", TableValue::Lost),
            ("e6d5", TableValue::Draw),
            ("e6f5", TableValue::Draw),
        ] {
            assert_eq!(value_after(uci), Some(value), "{uci}");
        }
        // Four pieces are beyond these tables.
        let four = position("8/8/8/8/8/2k5/1q6/K6R w - - 0 1");
        assert_eq!(tables.best_move(&four), None);
    }

    #[test]
    fn a_path_without_tables_is_a_one_line_error() {
        let error = SyzygyTables::open("/nonexistent-syzygy").err().unwrap();
        assert!(
            error.starts_with("SyzygyPath /nonexistent-syzygy: "),
            "{error}"
        );
        let empty = std::env::temp_dir().join(format!("burnmate-no-syzygy-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let error = SyzygyTables::open(empty.to_str().unwrap()).err().unwrap();
        assert!(error.contains("holds no Syzygy table"), "{error}");
        std::fs::remove_dir(empty).unwrap();
    }
}
