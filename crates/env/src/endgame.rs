//! The 8x8 endgames of the Boar (2022) study, on shakmaty's rules: which material,
//! the study's start-position generator, and validation of user-given FENs.

use rand::{Rng, RngExt};
use shakmaty::fen::Fen;
use shakmaty::{
    Board, CastlingMode, Chess, Color, FromSetup, Piece, Position, Role, Setup, Square,
};
use thiserror::Error;

/// Which endgame: white king and pieces against a lone black king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endgame {
    /// King and queen against king.
    Kqk,
    /// King and rook against king.
    Krk,
    /// King and two bishops against king.
    Kbbk,
}

impl Endgame {
    /// All three, in the study's order.
    pub const ALL: [Endgame; 3] = [Endgame::Kqk, Endgame::Krk, Endgame::Kbbk];

    /// White's pieces besides the king.
    pub fn pieces(self) -> &'static [Role] {
        match self {
            Endgame::Kqk => &[Role::Queen],
            Endgame::Krk => &[Role::Rook],
            Endgame::Kbbk => &[Role::Bishop, Role::Bishop],
        }
    }

    /// Lowercase name, e.g. "kqk".
    pub fn name(self) -> &'static str {
        match self {
            Endgame::Kqk => "kqk",
            Endgame::Krk => "krk",
            Endgame::Kbbk => "kbbk",
        }
    }

    /// Parses "kqk", "krk" or "kbbk" (any case).
    pub fn parse(name: &str) -> Option<Endgame> {
        Endgame::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name))
    }
}

/// Why a start position was rejected.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum StartError {
    /// Not parseable as FEN.
    #[error("'{0}' is not a FEN")]
    Syntax(String),
    /// Parseable, but not a legal chess position.
    #[error("'{0}' is not a legal position")]
    Illegal(String),
    /// Legal, but not this endgame with white to move.
    #[error(
        "'{fen}' is not {endgame} with white to move (expected white king{pieces}, black king alone)"
    )]
    Material {
        /// The FEN.
        fen: String,
        /// The expected endgame, upper case.
        endgame: String,
        /// The expected white pieces, e.g. " and queen".
        pieces: String,
    },
}

/// Parses a FEN and checks that it is a legal position of `endgame`, white to move.
pub fn parse_start(endgame: Endgame, fen: &str) -> Result<Chess, StartError> {
    let parsed: Fen = fen
        .trim()
        .parse()
        .map_err(|_| StartError::Syntax(fen.to_string()))?;
    let position: Chess = parsed
        .into_position(CastlingMode::Standard)
        .map_err(|_| StartError::Illegal(fen.to_string()))?;
    if !has_material(endgame, position.board()) || position.turn() != Color::White {
        let names: Vec<&str> = endgame
            .pieces()
            .iter()
            .map(|r| match r {
                Role::Queen => "queen",
                Role::Rook => "rook",
                _ => "bishop",
            })
            .collect();
        return Err(StartError::Material {
            fen: fen.to_string(),
            endgame: endgame.name().to_uppercase(),
            pieces: format!(" and {}", names.join(" and ")),
        });
    }
    Ok(position)
}

/// Whether `board` holds exactly this endgame's material.
pub fn has_material(endgame: Endgame, board: &Board) -> bool {
    let mut want = Board::empty();
    want.set_piece_at(
        Square::A1,
        Piece {
            color: Color::White,
            role: Role::King,
        },
    );
    want.set_piece_at(
        Square::A2,
        Piece {
            color: Color::Black,
            role: Role::King,
        },
    );
    for (i, &role) in endgame.pieces().iter().enumerate() {
        want.set_piece_at(
            Square::new(40 + i as u32),
            Piece {
                color: Color::White,
                role,
            },
        );
    }
    board.material() == want.material()
}

/// Draws a start position as the study's generator does: every piece uniformly on a
/// distinct square, no two pieces on adjacent squares, a legal position with white to
/// move (black not in check); KBBK's bishops on opposite colours (same-coloured
/// bishops cannot mate).
pub fn random_start(endgame: Endgame, rng: &mut impl Rng) -> Chess {
    loop {
        let count = 2 + endgame.pieces().len();
        let squares: Vec<Square> = (0..count)
            .map(|_| Square::new(rng.random_range(0..64)))
            .collect();
        let apart = squares
            .iter()
            .enumerate()
            .all(|(i, a)| squares[i + 1..].iter().all(|b| a.distance(*b) > 1));
        if !apart {
            continue;
        }
        if endgame == Endgame::Kbbk && squares[2].is_light() == squares[3].is_light() {
            continue;
        }
        let mut board = Board::empty();
        board.set_piece_at(
            squares[0],
            Piece {
                color: Color::White,
                role: Role::King,
            },
        );
        board.set_piece_at(
            squares[1],
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        for (&sq, &role) in squares[2..].iter().zip(endgame.pieces()) {
            board.set_piece_at(
                sq,
                Piece {
                    color: Color::White,
                    role,
                },
            );
        }
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = Color::White;
        // shakmaty refuses a position whose side not to move (black) is in check.
        if let Ok(position) = Chess::from_setup(setup, CastlingMode::Standard) {
            return position;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn generated_starts_are_legal_apart_and_of_the_right_material() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for endgame in Endgame::ALL {
            for _ in 0..200 {
                let p = random_start(endgame, &mut rng);
                assert!(has_material(endgame, p.board()));
                assert_eq!(p.turn(), Color::White);
                let occupied: Vec<Square> = p.board().occupied().into_iter().collect();
                for (i, a) in occupied.iter().enumerate() {
                    for b in &occupied[i + 1..] {
                        assert!(a.distance(*b) > 1, "{endgame:?}: pieces adjacent");
                    }
                }
                if endgame == Endgame::Kbbk {
                    let bishops: Vec<Square> = p.board().bishops().into_iter().collect();
                    assert_ne!(bishops[0].is_light(), bishops[1].is_light());
                }
            }
        }
    }

    #[test]
    fn the_studys_printed_start_parses_and_bad_fens_are_named() {
        assert!(parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1").is_ok());
        assert!(matches!(
            parse_start(Endgame::Kqk, "not a fen"),
            Err(StartError::Syntax(_))
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7R/8/8 w - - 0 1"),
            Err(StartError::Material { .. })
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 b - - 0 1"),
            Err(StartError::Material { .. })
        ));
        // Kings touching: not a legal position.
        assert!(!has_material(
            Endgame::Kbbk,
            parse_start(Endgame::Kqk, "8/8/1K6/8/3k4/7Q/8/8 w - - 0 1")
                .unwrap()
                .board()
        ));
        assert!(matches!(
            parse_start(Endgame::Kqk, "8/8/8/3Kk3/8/7Q/8/8 w - - 0 1"),
            Err(StartError::Illegal(_))
        ));
    }
}
