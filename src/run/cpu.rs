//! The CPU time a run has used, for the results' "CPU seconds" (a study's own
//! loop reports it beside the wall time).

use std::time::Instant;

/// CPU seconds this process has used (user + system, every thread), where the
/// system says; else wall seconds since `started` times the threads.
pub fn cpu_seconds(started: Instant) -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the command's closing parenthesis; utime and stime are the
            // 12th and 13th of them, in clock ticks (100 a second on Linux).
            let rest = &stat[stat.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
        })
        .unwrap_or_else(|| started.elapsed().as_secs_f64() * rayon::current_num_threads() as f64)
}
