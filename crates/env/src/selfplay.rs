//! Full chess on shakmaty's rules with its endings (mate, stalemate, threefold
//! repetition, fifty-move rule, insufficient material, a ply cap): the selfplay
//! study's games and `burnmate match`'s; and the study's material values.

use std::collections::HashMap;

use crate::game_result::GameResult;
use crate::two_player::position_key;

use shakmaty::{Chess, Color, Move, Position, Role};

/// The study's material values: pawn 1, knight 3, bishop 3, rook 5, queen 9, king 255.
pub fn material_value(role: Role) -> f32 {
    match role {
        Role::Pawn => 1.0,
        Role::Knight | Role::Bishop => 3.0,
        Role::Rook => 5.0,
        Role::Queen => 9.0,
        Role::King => 255.0,
    }
}

/// Value of what `m` captures (0 for a quiet move).
pub fn captured_value(m: &Move) -> f32 {
    m.capture().map_or(0.0, material_value)
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The side to move is mated; the other side won.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// The same position occurred a third time.
    Repetition,
    /// A hundred plies without capture or pawn move.
    FiftyMoves,
    /// Neither side can mate.
    InsufficientMaterial,
    /// The ply cap was reached.
    Cap,
}

impl GameEnd {
    /// The name used in metrics files.
    pub fn name(self) -> &'static str {
        match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::Repetition => "repetition",
            GameEnd::FiftyMoves => "fifty-moves",
            GameEnd::InsufficientMaterial => "insufficient-material",
            GameEnd::Cap => "cap",
        }
    }
}

impl std::fmt::Display for GameEnd {
    /// The ending in words, as a PGN `Termination` tag or a match report gives it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Stalemate => "stalemate",
            GameEnd::Repetition => "threefold repetition",
            GameEnd::FiftyMoves => "fifty-move rule",
            GameEnd::InsufficientMaterial => "insufficient material",
            GameEnd::Cap => "ply cap",
        })
    }
}

/// One game from the initial position (or any start), with its repetition history:
/// each position's Zobrist key ([`position_key`]: board, side to move, castling
/// rights, a legal en-passant square), one key a ply.
#[derive(Clone)]
pub struct FullGame {
    position: Chess,
    seen: HashMap<u64, u8>,
    /// The keys of the positions before the current one, oldest first.
    earlier: Vec<u64>,
    /// The current position's key.
    key: u64,
    plies: u32,
    cap: u32,
    end: Option<GameEnd>,
}

impl FullGame {
    /// A game from the standard start, ending after `cap` plies at most.
    pub fn new(cap: u32) -> FullGame {
        FullGame::from_position(Chess::default(), cap)
    }

    /// A game from `start`.
    pub fn from_position(start: Chess, cap: u32) -> FullGame {
        let key = position_key(&start);
        let mut game = FullGame {
            position: start,
            seen: HashMap::new(),
            earlier: Vec::new(),
            key,
            plies: 0,
            cap,
            end: None,
        };
        game.remember();
        game.end = game.ending(0);
        game
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// Plies played.
    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// Why the game ended, once it has.
    pub fn end(&self) -> Option<GameEnd> {
        self.end
    }

    /// The winner: the side that mated.
    pub fn winner(&self) -> Option<Color> {
        (self.end == Some(GameEnd::Checkmate)).then(|| !self.position.turn())
    }

    /// The result once the game has ended: the mating side's win, else a draw.
    pub fn result(&self) -> Option<GameResult> {
        self.end
            .map(|_| self.winner().map_or(GameResult::Draw, GameResult::win_of))
    }

    /// The keys of the positions before the current one, oldest first (a search's
    /// history, for its repetitions).
    pub fn earlier_keys(&self) -> &[u64] {
        &self.earlier
    }

    fn remember(&mut self) -> u8 {
        let count = self.seen.entry(self.key).or_insert(0);
        *count += 1;
        *count
    }

    /// The position after `m` (legal for the side to move) and how the game would
    /// end there, without playing it.
    pub fn after(&self, m: &Move) -> (Chess, Option<GameEnd>) {
        let mut position = self.position.clone();
        position.play_unchecked(*m);
        let repetitions = self.seen.get(&position_key(&position)).map_or(1, |n| n + 1);
        let end = ending(&position, repetitions, self.plies + 1, self.cap);
        (position, end)
    }

    fn ending(&self, repetitions: u8) -> Option<GameEnd> {
        ending(&self.position, repetitions, self.plies, self.cap)
    }

    /// Plays `m` (legal for the side to move); returns the ending if the game ended.
    pub fn play(&mut self, m: Move) -> Option<GameEnd> {
        debug_assert!(self.end.is_none(), "the game is over");
        self.position.play_unchecked(m);
        self.earlier.push(self.key);
        self.key = position_key(&self.position);
        self.plies += 1;
        let repetitions = self.remember();
        self.end = self.ending(repetitions);
        self.end
    }
}

/// How a game in `p`, seen `repetitions` times, `plies` into a game capped at `cap`,
/// has ended (if it has).
fn ending(p: &Chess, repetitions: u8, plies: u32, cap: u32) -> Option<GameEnd> {
    if p.legal_moves().is_empty() {
        Some(if p.is_check() {
            GameEnd::Checkmate
        } else {
            GameEnd::Stalemate
        })
    } else if p.is_insufficient_material() {
        Some(GameEnd::InsufficientMaterial)
    } else if repetitions >= 3 {
        Some(GameEnd::Repetition)
    } else if p.halfmoves() >= 100 {
        Some(GameEnd::FiftyMoves)
    } else if plies >= cap {
        Some(GameEnd::Cap)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn play(game: &mut FullGame, uci: &str) -> Option<GameEnd> {
        let m = uci
            .parse::<UciMove>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        game.play(m)
    }

    fn from_fen(fen: &str, cap: u32) -> FullGame {
        FullGame::from_position(crate::fen::position(fen).unwrap(), cap)
    }

    #[test]
    fn fools_mate_ends_the_game_with_black_winning() {
        let mut game = FullGame::new(100);
        for uci in ["f2f3", "e7e5", "g2g4"] {
            assert_eq!(play(&mut game, uci), None);
        }
        assert_eq!(play(&mut game, "d8h4"), Some(GameEnd::Checkmate));
        assert_eq!(game.winner(), Some(Color::Black));
        assert_eq!(game.result(), Some(GameResult::BlackWins));
        assert_eq!(game.plies(), 4);
    }

    #[test]
    fn knights_shuffling_back_and_forth_repeat_the_start_a_third_time_on_ply_eight() {
        let mut game = FullGame::new(100);
        let cycle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        for uci in cycle.iter().cycle().take(7) {
            assert_eq!(play(&mut game, uci), None);
        }
        assert_eq!(game.result(), None, "not over yet");
        assert_eq!(play(&mut game, "f6g8"), Some(GameEnd::Repetition));
        assert_eq!(game.winner(), None);
        assert_eq!(game.result(), Some(GameResult::Draw));
        assert_eq!(GameEnd::Repetition.to_string(), "threefold repetition");
    }

    #[test]
    fn after_foresees_an_ending_without_playing_the_move() {
        let mut game = FullGame::new(100);
        for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
            play(&mut game, uci);
        }
        let back = "f6g8"
            .parse::<UciMove>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        let (position, end) = game.after(&back);
        assert_eq!(end, Some(GameEnd::Repetition), "the start a third time");
        assert_eq!(position.board(), Chess::default().board());
        assert_eq!(
            (game.plies(), game.end()),
            (7, None),
            "the game itself is unchanged"
        );
        let other = "b8c6"
            .parse::<UciMove>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        assert_eq!(game.after(&other).1, None);
        let mut capped = FullGame::new(1);
        let first = capped.position().legal_moves()[0];
        assert_eq!(capped.after(&first).1, Some(GameEnd::Cap));
        assert_eq!(capped.play(first), Some(GameEnd::Cap));
    }

    #[test]
    fn the_cap_the_fifty_move_rule_and_bare_kings_end_games() {
        let mut game = FullGame::new(2);
        assert_eq!(play(&mut game, "e2e4"), None);
        assert_eq!(play(&mut game, "e7e5"), Some(GameEnd::Cap));

        let mut game = from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80", 500);
        assert_eq!(play(&mut game, "a1a2"), Some(GameEnd::FiftyMoves));

        let mut game = from_fen("4k3/8/8/8/8/8/3p4/4K3 w - - 0 1", 500);
        assert_eq!(play(&mut game, "e1d2"), Some(GameEnd::InsufficientMaterial));
    }

    #[test]
    fn captures_are_valued_as_the_study_says() {
        let game = from_fen("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1", 500);
        let capture = "e1d2"
            .parse::<UciMove>()
            .unwrap()
            .to_move(game.position())
            .unwrap();
        assert_eq!(captured_value(&capture), 9.0);
        assert_eq!(material_value(Role::King), 255.0);
        assert_eq!(material_value(Role::Bishop), 3.0);
    }
}
