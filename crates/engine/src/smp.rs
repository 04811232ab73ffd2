//! Lazy SMP, as Stockfish and most engines since 2015 search on several cores: every
//! thread runs the same iterative deepening on the same root, sharing one lock-free
//! transposition table ([`super::table`]), so each thread finds the others' results
//! there and they drift apart into different parts of the tree. The main thread
//! keeps the limits and gives the answer; the helpers search until it returns.
//!
//! ```text
//! search(root, limits):
//!   helpers 1..T-1: search(root, depth limit only), stopped when the main one ends
//!   main:           search(root, limits)                -> its move, nodes of all T
//! ```
//! One thread is the plain [`Searcher`], bit for bit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::{Chess, Move};

use super::evaluate::Evaluator;
use super::limits::Limits;
use super::search::{Features, Info, SearchResult, Searcher};
use super::table::Table;
use super::tables::Tables;

/// Most threads a pool may hold.
pub const MAX_THREADS: usize = 256;

/// A main searcher and its helpers, on one shared table.
pub struct ThreadPool<E> {
    main: Searcher<E>,
    helpers: Vec<Searcher<E>>,
}

impl<E: Evaluator + Clone + Send> ThreadPool<E> {
    /// `threads` searchers (at least one) on copies of `evaluator`, sharing a table
    /// of `table_mb` MB, with `features` on, probing `tables` if given.
    pub fn new(
        evaluator: E,
        table_mb: usize,
        threads: usize,
        features: Features,
        tables: Option<Arc<dyn Tables>>,
    ) -> Self {
        let table = Arc::new(Table::new(table_mb));
        let searcher = |e: E| {
            Searcher::sharing(e, Arc::clone(&table))
                .with_features(features)
                .with_tables(tables.clone())
        };
        ThreadPool {
            helpers: (1..threads.clamp(1, MAX_THREADS))
                .map(|_| searcher(evaluator.clone()))
                .collect(),
            main: searcher(evaluator),
        }
    }

    /// The threads searching.
    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Forgets the table (a new game).
    pub fn new_game(&mut self) {
        self.main.new_game();
    }

    /// [`Searcher::search`] on every thread; the main thread's answer, with the
    /// nodes of all.
    pub fn search(
        &mut self,
        root: &Chess,
        among: &[Move],
        history: &[u64],
        limits: Limits,
        report: impl FnMut(&Info),
    ) -> Option<SearchResult> {
        if self.helpers.is_empty() {
            return self.main.search(root, among, history, limits, report);
        }
        let done = Arc::new(AtomicBool::new(false));
        let helper_limits = Limits {
            depth: limits.depth,
            nodes: None,
            time: None,
            stop: Some(Arc::clone(&done)),
        };
        let (main, helpers) = (&mut self.main, &mut self.helpers);
        std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .iter_mut()
                .map(|helper| {
                    let limits = helper_limits.clone();
                    scope.spawn(move || {
                        helper
                            .search(root, among, history, limits, |_| {})
                            .map_or(0, |r| r.nodes)
                    })
                })
                .collect();
            let answer = main.search(root, among, history, limits, report);
            done.store(true, Ordering::Relaxed);
            let helper_nodes: u64 = running
                .into_iter()
                .map(|h| h.join().expect("a search thread panicked"))
                .sum();
            answer.map(|a| SearchResult {
                nodes: a.nodes + helper_nodes,
                ..a
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::Material;

    #[test]
    fn one_thread_is_the_plain_searcher_and_more_threads_find_the_mate() {
        let root: Chess =
            burnmate_env::fen::position("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
        let plain = Searcher::new(Material, 1)
            .search(&root, &[], &[], Limits::depth(5), |_| {})
            .unwrap();
        let mut one = ThreadPool::new(Material, 1, 1, Features::default(), None);
        assert_eq!(
            one.search(&root, &[], &[], Limits::depth(5), |_| {}),
            Some(plain.clone())
        );
        let mut four = ThreadPool::new(Material, 1, 4, Features::default(), None);
        assert_eq!(four.threads(), 4);
        let found = four
            .search(&root, &[], &[], Limits::depth(5), |_| {})
            .unwrap();
        assert_eq!(found.best, plain.best, "Ra8 mates");
        assert_eq!(found.score, plain.score);
    }
}
