//! Per-episode metrics: the CSV rows, running means and exponential moving averages.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::run::files::StreamedFile;

/// Smoothing of the study's EMA curves: alpha = 2 / (N + 1) with N = 2000.
pub const STUDY_EMA_ALPHA: f64 = 2.0 / 2001.0;

/// One training episode as written to `metrics.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpisodeRow {
    /// 0-based episode number.
    pub episode: u64,
    /// The study's episode reward.
    pub reward: f64,
    /// White moves played.
    pub moves: u32,
    /// How the episode ended.
    pub outcome: &'static str,
    /// Exploration rate used.
    pub epsilon: f64,
    /// Whether the episode was won.
    pub won: bool,
}

/// What every run reports about its training (flattened into `summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingStats {
    /// Training episodes.
    pub episodes: u64,
    /// Mean episode reward over all training episodes (the studies' measure).
    pub mean_reward: f64,
    /// Mean moves per training episode.
    pub mean_moves: f64,
    /// Share of training episodes won.
    pub win_rate: f64,
    /// Training wall time.
    pub wall_seconds: f64,
    /// Training episodes per second.
    pub episodes_per_second: f64,
    /// Burn backend (or none, for tables).
    pub backend: String,
    /// Run seed.
    pub seed: u64,
}

/// An exponential moving average, started at the first value.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ema {
    value: Option<f64>,
    alpha: f64,
}

impl Ema {
    /// An empty average with smoothing factor `alpha`.
    pub fn new(alpha: f64) -> Ema {
        Ema { value: None, alpha }
    }

    /// Adds one value and returns the new average.
    pub fn push(&mut self, x: f64) -> f64 {
        let v = match self.value {
            None => x,
            Some(v) => v + self.alpha * (x - v),
        };
        self.value = Some(v);
        v
    }
}

/// The header line of `metrics.csv` with the study's extra columns.
fn header(extra: &[&str]) -> String {
    let mut header = String::from("episode,reward,moves,outcome,epsilon");
    for column in extra {
        header.push(',');
        header.push_str(column);
    }
    header
}

/// Collects episode rows: streams them to `metrics.csv`, keeps running sums and
/// the EMA curves for the plots.
pub struct MetricsRecorder {
    file: Option<StreamedFile>,
    reward_ema: Ema,
    moves_ema: Ema,
    /// EMA of reward after each episode.
    pub reward_curve: Vec<f64>,
    /// EMA of moves after each episode.
    pub moves_curve: Vec<f64>,
    reward_sum: f64,
    moves_sum: f64,
    wins: u64,
    episodes: u64,
}

impl MetricsRecorder {
    /// A recorder writing to `path` (through a temporary name until `finish`), with
    /// the study's `extra` columns after the common ones.
    pub fn create(path: &Path, extra: &[&str]) -> Result<MetricsRecorder> {
        let mut file = StreamedFile::create(path)?;
        file.line(&header(extra))?;
        Ok(MetricsRecorder::with_file(Some(file)))
    }

    fn with_file(file: Option<StreamedFile>) -> MetricsRecorder {
        MetricsRecorder {
            file,
            reward_ema: Ema::new(STUDY_EMA_ALPHA),
            moves_ema: Ema::new(STUDY_EMA_ALPHA),
            reward_curve: Vec::new(),
            moves_curve: Vec::new(),
            reward_sum: 0.0,
            moves_sum: 0.0,
            wins: 0,
            episodes: 0,
        }
    }

    /// Reopens the partial metrics of a killed run at its resume point: keeps the
    /// header and the first `episodes` rows (later ones are dropped), checks them
    /// against the point's `digest` (rows changed since are refused), replays their
    /// rewards and moves into the sums and EMA curves, and takes `wins` from the
    /// resume point.
    pub fn resume(
        path: &Path,
        extra: &[&str],
        episodes: u64,
        wins: u64,
        digest: Option<u64>,
    ) -> Result<MetricsRecorder> {
        let keep = usize::try_from(episodes).context("too many episodes")? + 1;
        let (file, lines) = StreamedFile::reopen(path, keep)?;
        if let Some(digest) = digest {
            anyhow::ensure!(
                file.digest() == digest,
                "{}: its first {episodes} rows changed since the resume point was saved; the run cannot resume from them",
                crate::run::files::partial_path(path).display()
            );
        }
        let mut recorder = MetricsRecorder::with_file(Some(file));
        let expected = header(extra);
        anyhow::ensure!(
            lines.first() == Some(&expected),
            "{} does not start with the header {expected}",
            path.display()
        );
        for (i, line) in lines[1..].iter().enumerate() {
            let mut fields = line.split(',').skip(1);
            let mut number = || -> Result<f64> {
                fields
                    .next()
                    .and_then(|f| f.parse().ok())
                    .with_context(|| format!("{} row {}: malformed", path.display(), i + 1))
            };
            let (reward, moves) = (number()?, number()?);
            recorder.tally(reward, moves);
        }
        recorder.wins = wins;
        Ok(recorder)
    }

    /// Writes the rows recorded so far to the partial file.
    pub fn flush(&mut self) -> Result<()> {
        match &mut self.file {
            Some(file) => file.flush(),
            None => Ok(()),
        }
    }

    /// FNV-1a of the lines written so far (`None` without a file).
    pub fn digest(&self) -> Option<u64> {
        self.file.as_ref().map(StreamedFile::digest)
    }

    /// Wins recorded so far.
    pub fn wins(&self) -> u64 {
        self.wins
    }

    /// Records one episode with the values of the extra columns.
    pub fn record(&mut self, row: EpisodeRow, extra: &[f64]) -> Result<()> {
        if let Some(file) = &mut self.file {
            let mut line = format!(
                "{},{},{},{},{}",
                row.episode, row.reward, row.moves, row.outcome, row.epsilon
            );
            for value in extra {
                line.push(',');
                line.push_str(&value.to_string());
            }
            file.line(&line)?;
        }
        self.tally(row.reward, f64::from(row.moves));
        self.wins += u64::from(row.won);
        Ok(())
    }

    /// Adds one episode's reward and moves to the sums and curves.
    fn tally(&mut self, reward: f64, moves: f64) {
        self.reward_curve.push(self.reward_ema.push(reward));
        self.moves_curve.push(self.moves_ema.push(moves));
        self.reward_sum += reward;
        self.moves_sum += moves;
        self.episodes += 1;
    }

    /// Plain mean reward over all episodes so far (the study's headline measure).
    pub fn mean_reward(&self) -> f64 {
        self.reward_sum / self.episodes.max(1) as f64
    }

    /// Plain mean moves per episode so far.
    pub fn mean_moves(&self) -> f64 {
        self.moves_sum / self.episodes.max(1) as f64
    }

    /// Share of episodes won so far.
    pub fn win_rate(&self) -> f64 {
        self.wins as f64 / self.episodes.max(1) as f64
    }

    /// Latest EMA of reward and of moves.
    pub fn latest_ema(&self) -> (f64, f64) {
        (
            self.reward_curve.last().copied().unwrap_or(0.0),
            self.moves_curve.last().copied().unwrap_or(0.0),
        )
    }

    /// The training statistics of the episodes recorded so far.
    pub fn stats(&self, wall_seconds: f64, backend: &str, seed: u64) -> TrainingStats {
        TrainingStats {
            episodes: self.episodes,
            mean_reward: self.mean_reward(),
            mean_moves: self.mean_moves(),
            win_rate: self.win_rate(),
            wall_seconds,
            episodes_per_second: self.episodes as f64 / wall_seconds.max(1e-9),
            backend: backend.to_string(),
            seed,
        }
    }

    /// Renames `metrics.csv` into place.
    pub fn finish(&mut self) -> Result<()> {
        match self.file.take() {
            Some(file) => file.finish(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ema_starts_at_the_first_value_and_moves_by_alpha() {
        let mut ema = Ema::new(0.5);
        assert_eq!(ema.push(4.0), 4.0);
        assert_eq!(ema.push(0.0), 2.0);
        assert_eq!(ema.push(2.0), 2.0);
    }

    #[test]
    fn recorder_writes_a_header_and_one_row_per_episode() {
        let dir = crate::temp_dir::TempDir::new();
        let path = dir.path().join("metrics.csv");
        let mut rec = MetricsRecorder::create(&path, &["legal"]).unwrap();
        for (i, outcome) in ["checkmate", "stalemate"].into_iter().enumerate() {
            let row = EpisodeRow {
                episode: i as u64,
                reward: f64::from(u8::from(i == 0)),
                moves: 3 + i as u32,
                outcome,
                epsilon: 0.2,
                won: i == 0,
            };
            rec.record(row, &[7.0]).unwrap();
        }
        assert!(!path.exists(), "only the temporary exists before finish");
        rec.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "episode,reward,moves,outcome,epsilon,legal\n0,1,3,checkmate,0.2,7\n1,0,4,stalemate,0.2,7\n"
        );
        assert_eq!(rec.mean_reward(), 0.5);
        assert_eq!(rec.mean_moves(), 3.5);
        assert_eq!(rec.win_rate(), 0.5);
    }
}
