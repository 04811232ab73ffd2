//! `burnmate play RUN` for an endgame run: one game of the frozen table against the
//! run's defender, each white move with its exact verdict, optionally saved as PGN.

use std::path::Path;

use anyhow::Result;
use burnmate_env::endgame::{MatchEnd, parse_start};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

use crate::endgame::game::{Arena, mate_in};
use crate::endgame::starts::start_position;
use crate::endgame::table_file::load_run;
use crate::endgame::train::reward_name;
use crate::pgn::fen_of;
use crate::pgn::{game_pgn, write_pgn};
use crate::solve::load_or_build;

/// What to play: the run, an optional other start, the defender's seed, a PGN path.
pub struct EndgamePlay<'a> {
    /// The run directory.
    pub run: &'a Path,
    /// A start FEN (white to move) instead of the run's own start.
    pub fen: Option<&'a str>,
    /// Seed of the defender's tie breaks.
    pub seed: u64,
    /// Where to save the game as PGN.
    pub pgn: Option<&'a Path>,
}

/// Plays and prints one game; the PGN is written only after the game ended.
pub fn play_command(request: &EndgamePlay) -> Result<()> {
    let (config, endgame, mut q) = load_run(request.run)?;
    let start: Chess = match request.fen {
        Some(fen) => parse_start(endgame, fen)?,
        None => start_position(endgame, &config)?,
    };
    let tablebase = load_or_build(endgame, &crate::solve::tablebase_dir())?;
    let arena = Arena::new(endgame, &tablebase, &config)?;
    let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
    let game = arena.play(&mut q, &start, 0.0, false, &mut rng)?;

    let optimal = mate_in(&tablebase, &start);
    say!("start   {}", fen_of(&start));
    say!(
        "optimal {}",
        optimal.map_or("no forced mate".into(), |m| format!("mate in {m}"))
    );
    let mut position = start.clone();
    for pair in game.moves.chunks(2) {
        let number = position.fullmoves();
        let white = SanPlus::from_move_and_play_unchecked(&mut position, pair[0]).to_string();
        let black = pair
            .get(1)
            .map(|m| SanPlus::from_move_and_play_unchecked(&mut position, *m).to_string())
            .unwrap_or_default();
        let verdict = if position.is_checkmate() {
            "mate".to_string()
        } else {
            mate_in(&tablebase, &position)
                .map_or("no forced mate".into(), |m| format!("mate in {m} left"))
        };
        say!("{number:>3}. {white:<8} {black:<8} {verdict}");
    }
    let extra = match (game.end, optimal) {
        (MatchEnd::Checkmate, Some(best)) => {
            format!(", {} over the optimum", game.white_moves - best)
        }
        _ => String::new(),
    };
    say!(
        "result  {} after {} white moves{extra}",
        game.end.name(),
        game.white_moves
    );
    if let Some(path) = request.pgn {
        let result = if game.end == MatchEnd::Checkmate {
            "1-0"
        } else if game.end == MatchEnd::Cap {
            "*"
        } else {
            "1/2-1/2"
        };
        let event = format!(
            "burnmate {} ({} reward)",
            endgame.name(),
            reward_name(config.reward)
        );
        let run = request.run.display().to_string();
        let tags = [
            ("Event", event.as_str()),
            ("Site", "burnmate"),
            ("White", run.as_str()),
            ("Black", opponent_name(&config.opponent)),
            ("Termination", game.end.name()),
        ];
        write_pgn(path, &game_pgn(&tags, &start, &game.moves, result))?;
        say!("pgn     {}", path.display());
    }
    Ok(())
}

fn opponent_name(opponent: &crate::endgame::config::Opponent) -> &'static str {
    use crate::endgame::config::Opponent;
    match opponent {
        Opponent::Perfect => "perfect defender (tablebase)",
        Opponent::Random => "random mover",
        Opponent::Stockfish => "Stockfish",
    }
}
