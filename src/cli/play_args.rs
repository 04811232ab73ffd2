//! `burnmate play`: its arguments and the game they ask of a run's study.

use std::path::PathBuf;

use anyhow::Result;
use burnmate::studies::experiment::load_config;
use burnmate::studies::study::PlayRequest;

/// `burnmate play`'s arguments.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// A run directory written by `train`, or a search net file a matrix wrote
    /// (`nets/kqk-mcts-0.json`; it plays from --fen against the perfect defender).
    pub run: PathBuf,
    /// queen4x4: start position, e.g. "Qa1 Ka2 / Kc2" (white pieces / black king;
    /// the default).
    #[arg(long)]
    pub start: Option<String>,
    /// endgame or search net: start position as FEN, white to move (default: the
    /// run's start; a search net needs one).
    #[arg(long)]
    pub fen: Option<String>,
    /// endgame: save the game as PGN to this new file.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// Seed of the defender's random moves or tie breaks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// queen4x4: stop after this many white moves (default 50).
    #[arg(long)]
    pub max_moves: Option<u32>,
}

impl PlayArgs {
    /// Plays the game the arguments describe.
    pub fn run(self) -> Result<()> {
        let PlayArgs {
            run,
            start,
            fen,
            pgn,
            seed,
            max_moves,
        } = self;
        // Checked before the game: a game played for nothing is minutes lost.
        if let Some(path) = &pgn {
            let dir = path
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            anyhow::ensure!(
                dir.is_dir(),
                "--pgn {}: directory {} does not exist",
                path.display(),
                dir.display()
            );
            anyhow::ensure!(
                !path.exists(),
                "{} already exists; choose another name",
                path.display()
            );
        }
        let request = PlayRequest {
            run: &run,
            start: start.as_deref(),
            fen: fen.as_deref(),
            pgn: pgn.as_deref(),
            seed,
            max_moves,
        };
        if burnmate::studies::chess::compact::names_a_compact_net(&run) {
            return burnmate::studies::chess::play_net(&request);
        }
        if run.is_file() {
            // A search net file (a matrix's or a shipped compact one): no run directory.
            return burnmate::studies::search::play::play_search_net(&request, &run);
        }
        load_config(&run.join("config.toml"))?
            .study()
            .play(&request)
    }
}
