//! Settings shared by the table-printing benches: comma-separated lists from the
//! environment and backend names.

use crate::backend::BackendChoice;

/// The comma-separated items of environment variable `var`, or of `default`.
pub fn list(var: &str, default: &str) -> Vec<String> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The backend called `name` (as on the command line); panics on an unknown name.
pub fn backend_named(name: &str) -> BackendChoice {
    <BackendChoice as clap::ValueEnum>::from_str(name, true)
        .unwrap_or_else(|_| panic!("unknown backend {name}"))
}
