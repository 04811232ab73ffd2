//! `burnmate play` on a chess net (the shipped one, a compact file, a chess run):
//! one game of the net against itself from the start or `--fen`, both sides the
//! engine-grade search at [`PLAY_NODES`] nodes a move, printed move by move with the
//! mover's score, then the result and why the game ended; `--pgn` keeps it.

use anyhow::Result;
use burnmate_engine::score::mate_in_moves;
use burnmate_engine::{Limits, NnueEvaluator, Searcher};
use burnmate_env::selfplay::FullGame;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

use crate::output::pgn::{game_pgn, write_pgn};
use crate::studies::study::PlayRequest;

/// Nodes each side searches a move.
pub const PLAY_NODES: u64 = 100_000;

/// Plies before the game is called a draw unless `--max-moves` says (moves of both
/// sides, so a move is two plies).
const DEFAULT_MAX_PLIES: u32 = 400;

/// Plays and prints the game `request` asks of `net` (named `detail`).
pub fn play_game(net: NnueEvaluator, detail: &str, request: &PlayRequest) -> Result<()> {
    let start = match request.fen {
        Some(fen) => burnmate_env::fen::position(fen)?,
        None => Chess::default(),
    };
    let cap = request
        .max_moves
        .map_or(DEFAULT_MAX_PLIES, |m| m.saturating_mul(2));
    let mut game = FullGame::from_position(start.clone(), cap);
    let mut sides = [Searcher::new(net.clone(), 16), Searcher::new(net, 16)];
    crate::say!("{detail}: both sides at {PLAY_NODES} nodes a move");
    let mut moves = Vec::new();
    while game.result().is_none() {
        let position = game.position().clone();
        let side = usize::from(position.turn() == Color::Black);
        let Some(found) = sides[side].search(
            &position,
            &[],
            game.earlier_keys(),
            Limits::nodes(PLAY_NODES),
            |_| {},
        ) else {
            break;
        };
        let score = match mate_in_moves(found.score) {
            Some(m) => format!("mate {m}"),
            None => format!("{:+.2}", f64::from(found.score) / 100.0),
        };
        let number = position.fullmoves().get();
        let dots = if side == 0 { "." } else { "..." };
        let san = San::from_move(&position, found.best);
        crate::say!(
            "{number}{dots} {san}  ({score} for the mover, depth {})",
            found.depth
        );
        moves.push(found.best);
        game.play(found.best);
    }
    let result = game.result().map_or("*", |r| r.pgn());
    let end = game.end().map_or("no move".to_string(), |e| e.to_string());
    crate::say!("{result} ({end}, {} plies)", moves.len());
    if let Some(path) = request.pgn {
        let tags = [
            ("Event", "burnmate play"),
            ("White", detail),
            ("Black", detail),
        ];
        write_pgn(path, &game_pgn(&tags, &start, &moves, result))?;
        crate::say!("wrote {}", path.display());
    }
    Ok(())
}
