//! The match's game log, `results.tsv`: one line a finished game (its number, result,
//! reason and moves), appended and synced as each game ends, so a killed match keeps
//! every finished game and resumes with the rest. A line cut short by a kill is
//! dropped on reading; any other damage is refused.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result, bail};

use burnmate_env::game_result::GameResult;

use crate::tools::match_play::game::PlayedGame;

/// The game log's name in a match directory.
pub const RESULTS_FILE: &str = "results.tsv";

/// A finished game of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The game's number (0-based) in the match's plan.
    pub game: u64,
    /// The game.
    pub record: PlayedGame,
}

impl Row {
    fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\n",
            self.game,
            self.record.result.pgn(),
            self.record.reason,
            self.record.moves.join(" ")
        )
    }

    fn parse(line: &str) -> Option<Row> {
        let mut fields = line.split('\t');
        let game = fields.next()?.parse().ok()?;
        let result = GameResult::parse(fields.next()?)?;
        let reason = fields.next()?.to_string();
        let moves = fields
            .next()?
            .split_whitespace()
            .map(String::from)
            .collect();
        fields.next().is_none().then_some(Row {
            game,
            record: PlayedGame {
                moves,
                result,
                reason,
            },
        })
    }
}

/// The rows of the log in `dir` (none if it has no log). A last line without its
/// newline (a kill during the write) is cut off the file.
pub fn read_rows(dir: &Path) -> Result<Vec<Row>> {
    let path = dir.join(RESULTS_FILE);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut text =
        fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))?;
    if !text.is_empty() && !text.ends_with('\n') {
        let kept = text.rfind('\n').map_or(0, |i| i + 1);
        text.truncate(kept);
        OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_len(kept as u64))
            .with_context(|| format!("cannot cut the unfinished line off {}", path.display()))?;
    }
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            Row::parse(line)
                .with_context(|| format!("{} line {} is damaged: '{line}'", path.display(), i + 1))
        })
        .collect()
}

/// Appends rows to the log, each synced to disk before the next game counts.
pub struct RowWriter {
    file: File,
}

impl RowWriter {
    /// Opens the log in `dir` for appending (creating it).
    pub fn open(dir: &Path) -> Result<RowWriter> {
        let path = dir.join(RESULTS_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        Ok(RowWriter { file })
    }

    /// Appends `row` and syncs it.
    pub fn append(&mut self, row: &Row) -> Result<()> {
        self.file
            .write_all(row.line().as_bytes())
            .and_then(|()| self.file.sync_data())
            .with_context(|| format!("cannot append to {RESULTS_FILE}"))
    }
}

/// Refuses a row whose game number is outside the plan or seen before.
pub fn check_numbers(rows: &[Row], planned: u64) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for row in rows {
        if row.game >= planned || !seen.insert(row.game) {
            bail!(
                "{RESULTS_FILE} lists game {} {}; it does not belong to this match",
                row.game,
                if row.game >= planned {
                    "beyond the plan"
                } else {
                    "twice"
                }
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cut_by_a_kill_is_dropped_and_damage_is_refused() {
        let dir = std::env::temp_dir().join(format!("burnmate-record-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let row = Row {
            game: 3,
            record: PlayedGame {
                moves: vec!["e2e4".into(), "e7e5".into()],
                result: GameResult::Draw,
                reason: "ply cap".into(),
            },
        };
        let mut writer = RowWriter::open(&dir).unwrap();
        writer.append(&row).unwrap();
        let path = dir.join(RESULTS_FILE);
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("4\t1-0\tcheck");
        fs::write(&path, &text).unwrap();
        assert_eq!(read_rows(&dir).unwrap(), vec![row.clone()]);
        assert_eq!(fs::read_to_string(&path).unwrap(), row.line());
        fs::write(&path, "3\t2-0\tply cap\te2e4\n").unwrap();
        let err = read_rows(&dir).unwrap_err().to_string();
        assert!(
            err.ends_with("line 1 is damaged: '3\t2-0\tply cap\te2e4'"),
            "{err}"
        );
        assert!(check_numbers(&[row.clone(), row.clone()], 10).is_err());
        assert!(check_numbers(&[row], 3).is_err());
        fs::remove_dir_all(dir).unwrap();
    }
}
