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

/// The machine's memory in megabytes (`MemTotal` of `/proc/meminfo`); `None` where
/// it cannot be read (not Linux), and then no size is refused for it.
pub fn machine_memory_mb() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
