//! `burnmate play RUN` for an endgame run: one game of the frozen table against the
//! run's defender, each move pair with its exact verdict, optionally saved as PGN
//! (the search study's `play` prints its games the same way).

use std::path::Path;

use anyhow::Result;
use burnmate_env::endgame::{MatchEnd, parse_start};
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Position};

use crate::output::pgn::fen_of;
use crate::output::pgn::{game_pgn, write_pgn};
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::endgame::config::DefenderKind;
use crate::studies::endgame::game::{Arena, MatchResult};
use crate::studies::endgame::starts::start_position;
use crate::studies::endgame::table_file::load_run;
use crate::studies::endgame::train::reward_name;
use crate::studies::study::PlayRequest;

/// Refuses the queen4x4 options in a request that plays chess from a FEN.
pub fn refuse_queen4x4_options(request: &PlayRequest, player: &str) -> Result<()> {
    anyhow::ensure!(
        request.start.is_none() && request.max_moves.is_none(),
        "--start and --max-moves apply to queen4x4 runs; {player} takes --fen"
    );
    Ok(())
}

/// Plays and prints one game; the PGN is written only after the game ended.
pub fn play_command(request: &PlayRequest) -> Result<()> {
    refuse_queen4x4_options(request, "an endgame run")?;
    let (config, endgame, mut q) = load_run(request.run)?;
    let start: Chess = match request.fen {
        Some(fen) => parse_start(endgame, fen)?,
        None => start_position(endgame, &config)?,
    };
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let arena = Arena::new(endgame, &tablebase, &config)?;
    let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
    let game = arena.play(&mut q, &start, 0.0, false, &mut rng)?;
    let event = format!(
        "burnmate {} ({} reward)",
        endgame.name(),
        reward_name(config.reward)
    );
    show_game(
        &tablebase,
        &start,
        &game,
        request.pgn,
        &event,
        opponent_name(&config.opponent),
        &request.run.display().to_string(),
    )
}

/// Prints `game` from `start` move by move with the tablebase's verdict after each
/// pair, then its result beside the optimum; saves it as PGN to `pgn` if given.
pub fn show_game(
    tablebase: &Tablebase,
    start: &Chess,
    game: &MatchResult,
    pgn: Option<&Path>,
    event: &str,
    black: &str,
    white: &str,
) -> Result<()> {
    let optimal = tablebase.mate_in(start);
    say!("start   {}", fen_of(start));
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
            tablebase
                .mate_in(&position)
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
    if let Some(path) = pgn {
        let result = if game.end == MatchEnd::Checkmate {
            "1-0"
        } else if game.end == MatchEnd::Cap {
            "*"
        } else {
            "1/2-1/2"
        };
        let tags = [
            ("Event", event),
            ("Site", "burnmate"),
            ("White", white),
            ("Black", black),
            ("Termination", game.end.name()),
        ];
        write_pgn(path, &game_pgn(&tags, start, &game.moves, result))?;
        say!("pgn     {}", path.display());
    }
    Ok(())
}

/// How a game's record names the defender.
pub fn opponent_name(opponent: &DefenderKind) -> &'static str {
    match opponent {
        DefenderKind::Perfect => "perfect defender (tablebase)",
        DefenderKind::Random => "random mover",
        DefenderKind::Stockfish => "Stockfish",
    }
}
