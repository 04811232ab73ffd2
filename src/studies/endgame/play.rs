//! `burnmate play RUN` for an endgame run (one game of the frozen table against the
//! run's defender) or a matrix's search net (its search against the perfect
//! defender): each move pair with its exact verdict, optionally saved as PGN.

use std::path::Path;

use anyhow::{Context, Result};
use burnmate_env::endgame::{Match, MatchEnd, parse_start};
use burnmate_env::endgame_game::Defender as _;
use burnmate_oracle::tablebase::Tablebase;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, Position};

use crate::device::backend::BackendChoice;
use crate::output::pgn::fen_of;
use crate::output::pgn::{game_pgn, write_pgn};
use crate::studies::endgame::config::Opponent;
use crate::studies::endgame::game::{Arena, MatchResult, mate_in};
use crate::studies::endgame::starts::start_position;
use crate::studies::endgame::table_file::load_run;
use crate::studies::endgame::train::reward_name;
use crate::studies::scenario::ENDGAME_MOVE_CAP;
use crate::studies::search::net_file;
use crate::studies::study::PlayRequest;
use crate::tools::solve::load_or_build;

/// Refuses the queen4x4 options in a request that plays chess from a FEN.
fn refuse_queen4x4_options(request: &PlayRequest, player: &str) -> Result<()> {
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
    let tablebase = load_or_build(endgame, &crate::tools::solve::tablebase_dir())?;
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

/// `burnmate play RUN --fen FEN` for a search net (`net`: a matrix's net file or a
/// search run's): one game of its search (as the matrix evaluated it) against the
/// perfect defender, from `fen` (white to move, the net's endgame).
pub fn play_search_net(request: &PlayRequest, net: &Path) -> Result<()> {
    refuse_queen4x4_options(request, "a search net")?;
    let net = net_file::load(net, BackendChoice::Flex.device()?)?;
    let endgame = net.file.endgame;
    let fen = request.fen.with_context(|| {
        format!(
            "a search net plays from --fen FEN (a white-to-move {} position)",
            endgame.name().to_uppercase()
        )
    })?;
    let start = parse_start(endgame, fen)?;
    let tablebase = load_or_build(endgame, &crate::tools::solve::tablebase_dir())?;
    let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
    let mut game = Match::new(endgame, start.clone(), ENDGAME_MOVE_CAP);
    let mut moves = Vec::new();
    let end = loop {
        let position = game.position().clone();
        let mv = if position.turn() == Color::White {
            net.search(std::slice::from_ref(&position)).remove(0).best()
        } else {
            tablebase.reply(&position, &mut rng)
        };
        moves.push(mv);
        if let Some(end) = game.play(mv) {
            break end;
        }
    };
    let result = MatchResult {
        end,
        white_moves: game.white_moves(),
        reward: 0.0,
        moves,
    };
    let event = format!(
        "burnmate {} (search net, {} simulations a move)",
        endgame.name(),
        net.search.simulations
    );
    show_game(
        &tablebase,
        &start,
        &result,
        request.pgn,
        &event,
        opponent_name(&Opponent::Perfect),
        &request.run.display().to_string(),
    )
}

/// Prints `game` from `start` move by move with the tablebase's verdict after each
/// pair, then its result beside the optimum; saves it as PGN to `pgn` if given.
fn show_game(
    tablebase: &Tablebase,
    start: &Chess,
    game: &MatchResult,
    pgn: Option<&Path>,
    event: &str,
    black: &str,
    white: &str,
) -> Result<()> {
    let optimal = mate_in(tablebase, start);
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
            mate_in(tablebase, &position)
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

fn opponent_name(opponent: &Opponent) -> &'static str {
    match opponent {
        Opponent::Perfect => "perfect defender (tablebase)",
        Opponent::Random => "random mover",
        Opponent::Stockfish => "Stockfish",
    }
}
