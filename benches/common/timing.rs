//! A small timing harness for the benches (std only, so the bench and test builds
//! enable no crate feature that the run build lacks): each measurement is calibrated
//! to about 50 ms per sample and reported as the median over samples with the
//! fastest and slowest sample, one markdown row per measurement.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Column titles of the rows [`measure`] prints.
pub const HEADER: &str = "| bench | per iteration (median) | items/s (median) | per iteration (fastest - slowest) |\n|---|---|---|---|";

/// Times `run` (one call handles `items` items) and prints one table row named `name`.
pub fn measure<R>(name: &str, items: u64, mut run: impl FnMut() -> R) {
    let started = Instant::now();
    black_box(run());
    let once = started.elapsed().max(Duration::from_nanos(1));
    let iterations = (Duration::from_millis(50).as_nanos() / once.as_nanos()).clamp(1, 10_000_000);
    let samples = if once > Duration::from_secs(1) { 3 } else { 15 };
    let mut seconds: Vec<f64> = (0..samples)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..iterations {
                black_box(run());
            }
            started.elapsed().as_secs_f64() / iterations as f64
        })
        .collect();
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    println!(
        "| {name} | {} | {:.3e} | {} - {} |",
        human(median),
        items as f64 / median,
        human(seconds[0]),
        human(seconds[seconds.len() - 1])
    );
}

/// `seconds` with a unit that keeps 3-4 significant digits.
fn human(seconds: f64) -> String {
    match seconds {
        s if s < 1e-6 => format!("{:.1} ns", s * 1e9),
        s if s < 1e-3 => format!("{:.2} us", s * 1e6),
        s if s < 1.0 => format!("{:.2} ms", s * 1e3),
        s => format!("{s:.2} s"),
    }
}
