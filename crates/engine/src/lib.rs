#![warn(missing_docs)]
//! An engine-grade alpha-beta search for learned (or hand-set) evaluations, as the
//! chess-engine world builds one (chessprogramming.org's pages on each idea):
//! iterative deepening with aspiration windows, principal-variation search, a
//! transposition table, move ordering (table move, MVV-LVA captures, killers,
//! history, losing captures last by static exchange), null-move pruning, late-move reductions, check extension, quiescence,
//! mate scores that stay correct through the table, draws by repetition and the
//! fifty-move rule, and limits by depth, nodes, time or a stop flag.
//!
//! Each concern is one file: [`score`] (centipawns and mates), [`table`] (the
//! transposition table), [`ordering`] (killers, history, capture order),
//! [`exchange`] (static exchange evaluation of a capture),
//! [`evaluate`] (the [`evaluate::Evaluator`] seam, material as generation 0),
//! [`nnue`] (the efficiently updatable net, incrementally on the host),
//! [`quantised`] (its weights as 16-bit integers),
//! [`limits`] (when a search stops), [`parameters`] (the search's margins and
//! depths), [`search`] (the loop) and [`smp`] (threads sharing the table); the net's weights
//! are `burnmate-weights`' plain types, which the Burn trainer writes.
//!
//! No Burn: `cargo test -p burnmate-engine` builds shakmaty, serde and the encoder
//! alone.

pub mod bench;
pub mod evaluate;
pub mod exchange;
pub mod limits;
pub mod nnue;
pub mod ordering;
pub mod packed;
pub mod parameters;
pub mod quantised;
pub mod score;
pub mod search;
pub mod smp;
pub mod table;
pub mod tables;
pub mod tactical;

#[cfg(test)]
mod tests;

pub use burnmate_weights::{Activation, LayerWeights};
pub use evaluate::{Evaluator, Material};
pub use limits::Limits;
pub use nnue::{NnueEvaluator, NnueForm};
pub use search::{Features, Info, SearchResult, Searcher};
pub use smp::ThreadPool;
