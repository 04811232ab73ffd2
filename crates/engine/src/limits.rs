//! When a search stops: a depth, a node count, a time, or a flag another thread
//! raises (UCI's `stop`). A limit stops the search at once, even inside depth 1
//! (whose quiescence can be large on an untrained net); the time and the flag are
//! checked every 1,024 nodes, and a new iteration starts only while less than half
//! the time is spent (it would rarely finish otherwise).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The deepest iteration a search starts.
pub const MAX_DEPTH: u32 = 64;

/// What bounds a search.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Deepest iteration (default [`MAX_DEPTH`]).
    pub depth: Option<u32>,
    /// Nodes at most (positions visited, quiescence included).
    pub nodes: Option<u64>,
    /// Thinking time at most.
    pub time: Option<Duration>,
    /// Raised by another thread to stop at once.
    pub stop: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// A search to `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A search of `nodes` nodes.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }
}

/// A running search's clock and counters.
pub(crate) struct Budget {
    limits: Limits,
    started: Instant,
    /// Nodes visited.
    pub nodes: u64,
    /// Set once a limit is reached (the search unwinds).
    pub stopped: bool,
}

impl Budget {
    pub(crate) fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            started: Instant::now(),
            nodes: 0,
            stopped: false,
        }
    }

    /// Counts a node; true when the search must stop.
    pub(crate) fn tick(&mut self) -> bool {
        // A stopped search unwinds without counting: `nodes` never passes the budget.
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.nodes & 1023 == 0 || self.limits.nodes.is_some() {
            self.stopped = self.limits.nodes.is_some_and(|n| self.nodes >= n)
                || self
                    .limits
                    .time
                    .is_some_and(|t| self.started.elapsed() >= t)
                || self
                    .limits
                    .stop
                    .as_ref()
                    .is_some_and(|s| s.load(Ordering::Relaxed));
        }
        self.stopped
    }

    /// The deepest iteration to search.
    pub(crate) fn max_depth(&self) -> u32 {
        self.limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH)
    }

    /// Whether another iteration may start.
    pub(crate) fn may_deepen(&self) -> bool {
        !self.stopped
            && self
                .limits
                .time
                .is_none_or(|t| self.started.elapsed() < t / 2)
            && self.limits.nodes.is_none_or(|n| self.nodes < n)
            && !self
                .limits
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Time since the search started.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}
