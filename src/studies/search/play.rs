//! `burnmate play` for a search net (a search run's or a matrix's net file): one
//! game of its search, as its evaluation plays, against the perfect defender.

use std::path::Path;

use anyhow::{Context, Result};
use burnmate_env::endgame::{Match, parse_start};
use burnmate_env::endgame_game::Defender as _;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Color, Position};

use crate::device::backend::BackendChoice;
use crate::run::tablebases::{load_or_build, tablebase_dir};
use crate::studies::endgame::config::DefenderKind;
use crate::studies::endgame::game::MatchResult;
use crate::studies::endgame::play::{opponent_name, refuse_queen4x4_options, show_game};
use crate::studies::scenario::ENDGAME_MOVE_CAP;
use crate::studies::search::net_file;
use crate::studies::study::PlayRequest;

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
    let tablebase = load_or_build(endgame, &tablebase_dir())?;
    let mut rng = ChaCha8Rng::seed_from_u64(request.seed);
    let mut game = Match::new(endgame, start.clone(), ENDGAME_MOVE_CAP);
    let mut moves = Vec::new();
    let end = loop {
        let position = game.position().clone();
        let mv = if position.turn() == Color::White {
            net.search_match(&game).best()
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
        opponent_name(&DefenderKind::Perfect),
        &request.run.display().to_string(),
    )
}
