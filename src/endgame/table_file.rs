//! The Q-table checkpoint of an endgame run: JSON with a checksum that eval and play
//! verify before trusting the table.

use std::path::Path;

use anyhow::{Result, bail};
use burnmate_agents::endgame::{LeastBestQ, QEntry};
use burnmate_env::endgame::Endgame;
use serde::{Deserialize, Serialize};

use crate::config::{Experiment, load_config};
use crate::endgame::config::EndgameConfig;

const FORMAT: &str = "burnmate-endgame-qtable-v1";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableCheckpoint {
    format: String,
    endgame: String,
    checksum: u64,
    entries: Vec<QEntry>,
}

fn entries_checksum(entries: &[QEntry]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for e in entries {
        for byte in e
            .position
            .to_le_bytes()
            .into_iter()
            .chain(e.mv.to_le_bytes())
            .chain(e.value.to_le_bytes())
        {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// Writes `q` as `checkpoint.json` in `dir`.
pub fn save_table(dir: &Path, endgame: Endgame, q: &LeastBestQ) -> Result<()> {
    let entries = q.entries();
    let checkpoint = TableCheckpoint {
        format: FORMAT.into(),
        endgame: endgame.name().into(),
        checksum: entries_checksum(&entries),
        entries,
    };
    crate::checkpoint::save(&dir.join("checkpoint.json"), &checkpoint)
}

/// Loads an endgame run: its config and its verified Q-table.
pub fn load_run(run: &Path) -> Result<(EndgameConfig, Endgame, LeastBestQ)> {
    let config = match load_config(&run.join("config.toml"))? {
        Experiment::Endgame(c) => c,
        _ => bail!("{} is not an endgame run", run.display()),
    };
    config.validate()?;
    let endgame = Endgame::parse(&config.endgame).expect("validated");
    let path = run.join("checkpoint.json");
    let file: TableCheckpoint = crate::checkpoint::load(&path)?;
    if file.format != FORMAT || file.endgame != endgame.name() {
        bail!(
            "{}: not a {} {} checkpoint",
            path.display(),
            endgame.name(),
            FORMAT
        );
    }
    crate::checkpoint::verify(&path, file.checksum, entries_checksum(&file.entries))?;
    let q = LeastBestQ::from_entries(endgame, config.alpha, config.gamma, &file.entries);
    Ok((config, endgame, q))
}
