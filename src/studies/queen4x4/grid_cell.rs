//! The grid's record types: one cell (beta, gamma) and what it produced, as one line
//! of the grid directory's `results.jsonl`.

use serde::{Deserialize, Serialize};

use crate::run::grid_dir::GridRecord;
use crate::studies::queen4x4::summary::Summary;

/// One cell of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridCell {
    /// Exploration decay.
    pub beta: f64,
    /// Discount factor.
    pub gamma: f64,
}

/// What one cell produced (one line of `results.jsonl`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridCellResult {
    /// Which cell.
    #[serde(flatten)]
    pub cell: GridCell,
    /// The cell run's summary (as in its `summary.json`).
    pub summary: Summary,
}

impl GridRecord for GridCellResult {
    type Key = GridCell;
    fn key(&self) -> GridCell {
        self.cell
    }
}
