//! Upper bounds on sizes a user may ask for: past them an allocation would abort the
//! process (a memory error and a backtrace) instead of a one-line error.

/// Widest hidden layer a config may ask for: past it one layer alone takes
/// gigabytes.
pub const MAX_HIDDEN: usize = 65_536;

/// Most transitions a replay may hold (a knight transition is tens of bytes: about
/// 1 GB at the limit).
pub const MAX_REPLAY: usize = 10_000_000;

/// Largest batch `burnmate bench` may time (a 1,048,576-row batch of the conv
/// selector's input is about 3 GB).
pub const MAX_BENCH_BATCH: usize = 1 << 20;
