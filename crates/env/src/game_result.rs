//! Who won a game of chess, as PGN writes it: the one result of burnmate's matches
//! and of the full-chess learner's self-play and gating games.

use shakmaty::Color;

/// A finished game's result.
///
/// ```
/// use burnmate_env::game_result::GameResult;
/// use shakmaty::Color;
///
/// let mate = GameResult::win_of(Color::Black);
/// assert_eq!(mate.pgn(), "0-1");
/// assert_eq!(GameResult::parse("0-1"), Some(mate));
/// assert_eq!(mate.for_side(Color::White), 0.0);
/// assert_eq!(GameResult::Draw.for_side(Color::Black), 0.5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// White won.
    WhiteWins,
    /// Black won.
    BlackWins,
    /// A draw (by the rules, by agreement of a match's adjudication, or at a cap).
    Draw,
}

impl GameResult {
    /// The win of `color`.
    pub fn win_of(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Parses [`GameResult::pgn`]'s text.
    pub fn parse(text: &str) -> Option<GameResult> {
        [
            GameResult::WhiteWins,
            GameResult::BlackWins,
            GameResult::Draw,
        ]
        .into_iter()
        .find(|r| r.pgn() == text)
    }

    /// The score of `side`: 1 won, ½ drawn, 0 lost.
    pub fn for_side(self, side: Color) -> f32 {
        match self {
            GameResult::Draw => 0.5,
            won if won == GameResult::win_of(side) => 1.0,
            _ => 0.0,
        }
    }
}
