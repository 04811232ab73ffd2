//! The search's margins and depths in one place, as Viridithas keeps them in
//! `search/parameters.rs` (there tuned by SPSA; here set by hand and measured as
//! `docs/results/chess.md` says). Depths in plies, margins in centipawns.

/// Aspiration windows from this depth on (the whole window below it).
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
/// The first aspiration window: the last iteration's score +- this; a fail widens
/// that side twice as far each time.
pub const ASPIRATION_WINDOW: i32 = 25;

/// Reverse futility pruning at depths up to this.
pub const REVERSE_FUTILITY_MAX_DEPTH: i32 = 6;
/// Reverse futility: an evaluation above β by this much a ply of depth fails high.
pub const REVERSE_FUTILITY_MARGIN: i32 = 80;

/// Null-move pruning from this depth on.
pub const NULL_MOVE_MIN_DEPTH: i32 = 3;
/// The null move's reduction: this many plies ...
pub const NULL_MOVE_REDUCTION: i32 = 3;
/// ... and one more for each this many plies of depth.
pub const NULL_MOVE_DEPTH_DIVISOR: i32 = 6;

/// Futility and late-move pruning of quiet moves at depths up to this.
pub const FUTILITY_MAX_DEPTH: i32 = 3;
/// Futility: quiet moves are skipped where the evaluation + this + [`FUTILITY_PER_DEPTH`]
/// a ply of depth cannot reach α.
pub const FUTILITY_MARGIN: i32 = 100;
/// See [`FUTILITY_MARGIN`].
pub const FUTILITY_PER_DEPTH: i32 = 100;
/// Late-move pruning: quiet moves after the (this + [`LATE_MOVES_PER_DEPTH_SQUARED`]
/// depth²)-th are skipped.
pub const LATE_MOVES_BASE: usize = 3;
/// See [`LATE_MOVES_BASE`].
pub const LATE_MOVES_PER_DEPTH_SQUARED: usize = 2;

/// Late-move reductions from this depth on ...
pub const LMR_MIN_DEPTH: i32 = 3;
/// ... for the moves from this index on (the first is 0).
pub const LMR_MIN_INDEX: usize = 3;
/// The reduction `LMR_BASE + ln(depth) ln(index) / LMR_DIVISOR` plies (rounded down,
/// at most depth - 2), Stockfish's and Viridithas's log-log form.
pub const LMR_BASE: f64 = 0.75;
/// See [`LMR_BASE`].
pub const LMR_DIVISOR: f64 = 2.25;
