//! Injected crashes for the crash-safety tests: `BURNMATE_CRASH_AT=<point>` makes the
//! process abort (as a `kill -9` would: no destructor runs, no buffer is flushed) when
//! it reaches the named point of a run's finish. Unset, a point costs one lookup of
//! the environment at the end of a run.

/// The points of a run's finish, in order (see [`crate::run::Run::finish`]).
pub const FINISH_POINTS: [&str; 5] = [
    "trained",
    "outputs-written",
    "streams-renamed",
    "plots-written",
    "summary-written",
];

/// Aborts the process if `BURNMATE_CRASH_AT` names `point`.
pub fn crash_point(point: &str) {
    if std::env::var_os("BURNMATE_CRASH_AT").is_some_and(|at| at == point) {
        std::process::abort();
    }
}
