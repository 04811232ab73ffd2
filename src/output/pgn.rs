//! PGN export of a game played from any start position.

use std::path::Path;

use anyhow::Result;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, fen::Fen};

use crate::run::files::write_new_atomic;

/// The FEN of a position (what an engine and a PGN `FEN` tag take).
pub fn fen_of(position: &Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

/// The PGN text of `moves` played from `start`, with the seven-tag roster filled
/// from `tags` (name, value) and a `FEN` tag when the start is not the initial position.
pub fn game_pgn(tags: &[(&str, &str)], start: &Chess, moves: &[Move], result: &str) -> String {
    let mut text = String::new();
    for name in ["Event", "Site", "Date", "Round", "White", "Black"] {
        let value = tags
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("?", |(_, v)| v);
        text.push_str(&format!("[{name} \"{value}\"]\n"));
    }
    text.push_str(&format!("[Result \"{result}\"]\n"));
    if *start != Chess::default() {
        let fen = Fen::from_position(start, EnPassantMode::Legal);
        text.push_str(&format!("[SetUp \"1\"]\n[FEN \"{fen}\"]\n"));
    }
    for (name, value) in tags {
        if !["Event", "Site", "Date", "Round", "White", "Black", "Result"].contains(name) {
            text.push_str(&format!("[{name} \"{value}\"]\n"));
        }
    }
    text.push('\n');
    let mut position = start.clone();
    let mut tokens = Vec::new();
    for (i, m) in moves.iter().enumerate() {
        let number = position.fullmoves();
        if position.turn() == Color::White {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        tokens.push(SanPlus::from_move_and_play_unchecked(&mut position, *m).to_string());
    }
    tokens.push(result.to_string());
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + token.len() + 1 > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    text.push_str(&line);
    text.push('\n');
    text
}

/// Writes a PGN file, refusing to replace an existing one (also one another process
/// creates at the same moment).
pub fn write_pgn(path: &Path, pgn: &str) -> Result<()> {
    write_new_atomic(path, pgn.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn play(start: &Chess, ucis: &[&str]) -> Vec<Move> {
        let mut position = start.clone();
        ucis.iter()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&position).unwrap();
                position.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn the_initial_position_needs_no_fen_tag_and_moves_are_numbered() {
        let start = Chess::default();
        let moves = play(&start, &["f2f3", "e7e5", "g2g4", "d8h4"]);
        let pgn = game_pgn(&[("White", "a"), ("Black", "b")], &start, &moves, "0-1");
        assert!(pgn.contains("[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n"));
        assert!(!pgn.contains("FEN"));
        assert!(pgn.ends_with("\n1. f3 e5 2. g4 Qh4# 0-1\n"), "{pgn}");
    }

    #[test]
    fn a_black_first_move_from_a_fen_start_gets_an_ellipsis_and_the_fen_tag() {
        let start: Chess = burnmate_env::fen::position("8/8/8/8/8/5k2/7q/4K3 b - - 3 40").unwrap();
        let moves = play(&start, &["h2h1", "e1d2"]);
        let pgn = game_pgn(&[], &start, &moves, "*");
        assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/5k2/7q/4K3 b - - 3 40\"]"));
        assert!(pgn.ends_with("\n40... Qh1+ 41. Kd2 *\n"), "{pgn}");
    }
}
