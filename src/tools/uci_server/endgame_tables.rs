//! burnmate's own pawnless distance-to-mate tables as the engine's endgame tables
//! ([`burnmate_engine::tables`]): every table of up to four pieces cached in the
//! tablebase directory (`burnmate solve kqkr` puts one there), loaded when the engine
//! starts; a position with the colours of a cached table's material swapped is
//! probed mirrored. Five-piece tables (hundreds of MB each) are not loaded.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use burnmate_engine::tables::{TableValue, Tables};
use burnmate_oracle::pawnless::{Dtm, DtmTable, Material};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use crate::run::tablebases::load_cached;

/// Most pieces of a table loaded for the search.
pub const MAX_LOADED_PIECES: usize = 4;

/// The tables loaded, by material.
pub struct CachedTables {
    tables: HashMap<Material, DtmTable>,
}

impl CachedTables {
    /// The tables of up to [`MAX_LOADED_PIECES`] pieces cached in `dir`; `None`
    /// when it holds none.
    pub fn load(dir: &Path) -> Option<Arc<dyn Tables>> {
        let tables: HashMap<Material, DtmTable> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                let material = Material::parse(name.strip_suffix(".bmtb")?).ok()?;
                // Tables with pawns are not probed in the search.
                (material.slots() <= MAX_LOADED_PIECES && !material.has_pawns())
                    .then(|| load_cached(&material, dir))
                    .flatten()
                    .map(|table| (material, table))
            })
            .collect();
        (!tables.is_empty()).then(|| Arc::new(CachedTables { tables }) as Arc<dyn Tables>)
    }

    /// The value of `position` if a table of its material holds it.
    fn probe_as_is(&self, position: &Chess) -> Option<TableValue> {
        let table = self.tables.get(&Material::of(position.board())?)?;
        match table.probe_position(position)? {
            Dtm::Illegal => None,
            Dtm::Draw => Some(TableValue::Draw),
            Dtm::Win(plies) => Some(TableValue::Win(plies)),
            Dtm::Loss(plies) => Some(TableValue::Loss(plies)),
        }
    }
}

impl Tables for CachedTables {
    fn max_pieces(&self) -> usize {
        self.tables.keys().map(Material::slots).max().unwrap_or(0)
    }

    fn probe(&self, position: &Chess) -> Option<TableValue> {
        self.probe_as_is(position).or_else(|| {
            // The same position with the colours swapped: the same value for the
            // side to move.
            let mirrored: Chess = position
                .to_setup(EnPassantMode::Legal)
                .into_mirrored()
                .position(CastlingMode::Standard)
                .ok()?;
            self.probe_as_is(&mirrored)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_tables_give_mates_for_either_colour_and_skip_other_material() {
        let dir = std::env::temp_dir().join(format!("burnmate-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert!(
            CachedTables::load(&dir).is_none(),
            "an empty cache holds none"
        );
        crate::run::tablebases::load_or_build_table(&Material::parse("krk").unwrap(), &dir)
            .unwrap();
        let tables = CachedTables::load(&dir).unwrap();
        assert_eq!(tables.max_pieces(), 3);
        let position = |fen: &str| burnmate_env::fen::position(fen).unwrap();
        // White mates in one (Ra8#); the same with the colours swapped.
        let win = tables.probe(&position("6k1/8/6K1/8/8/8/8/R7 w - - 0 1"));
        assert_eq!(win, Some(TableValue::Win(1)));
        let mirrored = tables.probe(&position("r7/8/8/8/8/6k1/8/6K1 b - - 0 1"));
        assert_eq!(mirrored, Some(TableValue::Win(1)));
        // Black to move in a mate: lost now.
        let mated = tables.probe(&position("R5k1/8/6K1/8/8/8/8/8 b - - 0 1"));
        assert_eq!(mated, Some(TableValue::Loss(0)));
        assert_eq!(tables.probe(&Chess::default()), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
