//! FEN text to a position: the parser the tests and most commands use. The few
//! places that word a bad FEN their own way parse with shakmaty directly: the
//! openings file (its line number), `solve`'s positions (the material), `uci`'s
//! `position` (either castling mode, `UCI_Chess960`), endgame starts (the endgame)
//! and stored replay positions (the checkpoint).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// Why a FEN is no position: the text is not FEN, or it describes an illegal setup.
#[derive(Debug, thiserror::Error)]
pub enum FenError {
    /// The text is not FEN.
    #[error("`{fen}` is not FEN: {reason}")]
    Syntax {
        /// The text as given.
        fen: String,
        /// shakmaty's reason.
        reason: String,
    },
    /// The FEN describes no legal chess position (e.g. the side not to move in check).
    #[error("`{fen}` is no legal position: {reason}")]
    Illegal {
        /// The text as given.
        fen: String,
        /// shakmaty's reason.
        reason: String,
    },
}

/// The standard-chess position `fen` describes.
pub fn position(fen: &str) -> Result<Chess, FenError> {
    let parsed: Fen = fen.trim().parse().map_err(|e| FenError::Syntax {
        fen: fen.to_string(),
        reason: format!("{e}"),
    })?;
    parsed
        .into_position(CastlingMode::Standard)
        .map_err(|e| FenError::Illegal {
            fen: fen.to_string(),
            reason: format!("{e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_parses_and_errors_name_the_text_and_the_fault() {
        let start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(start.unwrap(), Chess::default());
        assert_eq!(
            position("8/8/8 w").unwrap_err().to_string(),
            "`8/8/8 w` is not FEN: invalid board part in fen"
        );
        let err = position("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("`4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1` is no legal position: "),
            "{err}"
        );
    }
}
