//! The tools around the studies: the matrix of every algorithm on every game, matches with Elo, the UCI server, tablebase solving, comparison and throughput benches.

#[cfg(test)]
mod backend_agreement;
pub mod compare;
pub mod engine_bench;
pub mod match_play;
pub mod matrix;
pub mod search_throughput;
pub mod solve;
pub mod throughput;
pub mod uci_server;
