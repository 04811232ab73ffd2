//! The Q-table checkpoint of an endgame run: JSON with a checksum that eval and play
//! verify before trusting the table.

use std::path::Path;

use anyhow::{Result, bail};
use burnmate_agents::endgame::{LeastBestQ, QEntry};
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::studies::endgame::config::EndgameConfig;
use crate::studies::experiment::{Experiment, load_config};

const FORMAT: &str = "burnmate-endgame-qtable-v2";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableCheckpoint {
    endgame: String,
    entries: Vec<QEntry>,
}

/// Writes `q` as `checkpoint.json` in `dir`.
pub fn save_table(dir: &Path, endgame: Endgame, q: &LeastBestQ) -> Result<()> {
    let entries = q.entries();
    let checkpoint = TableCheckpoint {
        endgame: endgame.name().into(),
        entries,
    };
    crate::run::checkpoint::save(&dir.join("checkpoint.json"), FORMAT, &checkpoint)
}

/// Loads an endgame run: its config and its verified Q-table.
pub fn load_run(run: &Path) -> Result<(EndgameConfig, Endgame, LeastBestQ)> {
    let config = match load_config(&run.join("config.toml"))? {
        Experiment::Endgame(c) => c,
        _ => bail!("{} is not an endgame run", run.display()),
    };
    config.validate()?;
    let endgame = config.endgame;
    let path = run.join("checkpoint.json");
    let file: TableCheckpoint = crate::run::checkpoint::load(&path, FORMAT)?;
    if file.endgame != endgame.name() {
        bail!(
            "{}: a {} table, but the run's config says {}",
            path.display(),
            file.endgame,
            endgame.name()
        );
    }
    let q = LeastBestQ::from_entries(endgame, config.alpha, config.gamma, &file.entries);
    Ok((config, endgame, q))
}
