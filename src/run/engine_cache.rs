//! The engine answers every run of this process shares, kept in `stockfish-cache/`
//! (beside `tablebases/`) for later runs and other shards: one [`AnswerCache`] per
//! engine setting (name and version, depth, threads, hash).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, Result};
use burnmate_oracle::uci::{AnswerCache, CacheStats, UciEngine};

/// Directory of the answer files.
pub const CACHE_DIR: &str = "stockfish-cache";

/// The caches opened by this process, by setting.
fn caches() -> &'static Mutex<HashMap<String, Arc<AnswerCache>>> {
    static CACHES: OnceLock<Mutex<HashMap<String, Arc<AnswerCache>>>> = OnceLock::new();
    CACHES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// `engine` answering from (and into) the shared cache of its setting.
pub fn with_shared_cache(engine: UciEngine) -> Result<UciEngine> {
    let key = engine.settings_key();
    let mut open = caches().lock().expect("cache registry lock");
    let cache = match open.get(&key) {
        Some(cache) => Arc::clone(cache),
        None => {
            let cache = Arc::new(
                AnswerCache::open(Path::new(CACHE_DIR), &key)
                    .with_context(|| format!("cannot open the engine cache in {CACHE_DIR}/"))?,
            );
            open.insert(key, Arc::clone(&cache));
            cache
        }
    };
    Ok(engine.with_cache(cache))
}

/// Lookups of every shared cache of this process, summed.
pub fn total_stats() -> Option<CacheStats> {
    let open = caches().lock().expect("cache registry lock");
    open.values().map(|c| c.stats()).reduce(|a, b| CacheStats {
        hits: a.hits + b.hits,
        misses: a.misses + b.misses,
        positions: a.positions + b.positions,
        damaged: a.damaged + b.damaged,
    })
}
