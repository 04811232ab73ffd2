//! The `go` arguments a match sends an engine, checked before any game, and the
//! deadline of each of its moves.
//!
//! A match must end, so `--go` must bound the search: `nodes`, `depth`, `movetime`
//! or a clock (`wtime` and `btime`, with optional `winc`, `binc`, `movestogo`).
//! `infinite`, `ponder`, an empty limit or an unknown word are refused: an engine
//! searches forever on them. Each move may take the time the limit grants (the
//! `movetime`, or the larger clock) plus `--move-timeout` (default 60 s); an engine
//! still searching then is told `stop`, and one that sends no move at once ends the
//! match with an error naming the engine, game and ply (finished games are kept, so
//! the match resumes).

use std::time::Duration;

use anyhow::{Result, bail};

/// The default slack a move gets beyond the time its limit grants.
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(60);

/// The words of `go` a match may send, each followed by a number.
const KNOWN: [&str; 8] = [
    "nodes",
    "depth",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
];

/// Checks the `go` arguments `limit` and returns the deadline of each engine move:
/// the time the limit grants plus `slack`.
pub fn move_deadline(limit: &str, slack: Duration) -> Result<Duration> {
    let words: Vec<&str> = limit.split_whitespace().collect();
    let mut values: Vec<(&str, u64)> = Vec::new();
    for pair in words.chunks(2) {
        let key = pair[0];
        if !KNOWN.contains(&key) {
            bail!(
                "--go '{limit}': '{key}' is not a finite search limit; use nodes N, depth N, movetime MS or wtime MS btime MS"
            );
        }
        let Some(value) = pair.get(1).and_then(|v| v.parse::<u64>().ok()) else {
            bail!("--go '{limit}': '{key}' needs a whole number after it");
        };
        values.push((key, value));
    }
    let get = |key: &str| values.iter().find(|(k, _)| *k == key).map(|&(_, v)| v);
    let clocks = (get("wtime"), get("btime"));
    if clocks.0.is_some() != clocks.1.is_some() {
        bail!("--go '{limit}': give both wtime and btime (the engine plays either colour)");
    }
    let bounded = ["nodes", "depth", "movetime"]
        .iter()
        .any(|k| get(k).is_some_and(|v| v > 0))
        || clocks.0.is_some_and(|w| w > 0) && clocks.1.is_some_and(|b| b > 0);
    if !bounded {
        bail!(
            "--go '{limit}' does not bound the search; give nodes N, depth N, movetime MS or wtime MS btime MS (at least 1)"
        );
    }
    let granted = get("movetime")
        .or(clocks.0.max(clocks.1))
        .map_or(Duration::ZERO, Duration::from_millis);
    Ok(granted + slack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finite_limits_get_their_time_plus_the_slack() {
        let slack = Duration::from_secs(60);
        let secs = |limit| move_deadline(limit, slack).unwrap().as_secs_f64();
        assert_eq!(secs("nodes 50000"), 60.0);
        assert_eq!(secs("depth 12"), 60.0);
        assert_eq!(secs("movetime 2500"), 62.5);
        assert_eq!(secs("wtime 30000 btime 90000 winc 100 binc 100"), 150.0);
        assert_eq!(secs("nodes 100 movetime 1000"), 61.0);
    }

    #[test]
    fn unbounded_or_malformed_limits_are_one_line_errors() {
        let err = |limit| {
            move_deadline(limit, DEFAULT_MOVE_TIMEOUT)
                .unwrap_err()
                .to_string()
        };
        assert!(err("infinite").contains("'infinite' is not a finite search limit"));
        assert!(err("").contains("does not bound the search"));
        assert!(err("garbage words").contains("'garbage' is not a finite search limit"));
        assert!(err("nodes").contains("'nodes' needs a whole number"));
        assert!(err("nodes x").contains("'nodes' needs a whole number"));
        assert!(err("nodes 0").contains("does not bound the search"));
        assert!(err("movestogo 10 winc 5").contains("does not bound the search"));
        assert!(err("wtime 1000").contains("give both wtime and btime"));
        assert!(err("ponder nodes 10").contains("'ponder' is not a finite"));
        assert!(!err("infinite").contains('\n'));
    }
}
