//! Material: the pieces each side has besides its king, named as in the tablebase
//! literature (`kqkr`: king and queen against king and rook; `krkp`: king and rook
//! against king and pawn). Pawnless material is solved by [`crate::pawnless`], material
//! with pawns (up to [`MAX_PAWN_PIECES`]) by [`crate::pawns`].

use shakmaty::{Board, Color, Role};
use thiserror::Error;

/// The most pieces (kings included) a table may hold: a 5-piece table takes
/// 2 x 462 x 64^3 bytes (~242 MB) of values and as many of counters while solving.
pub const MAX_PIECES: usize = 5;

/// The most pieces (kings included) a table with pawns may hold: a 4-piece table
/// takes 2 x 32 x 64 x 64 x 48 bytes (~12.6 MB).
pub const MAX_PAWN_PIECES: usize = 4;

/// Every pawnless material of three or four pieces, the stronger side white.
pub const THREE_AND_FOUR: [&str; 24] = [
    "kqk", "krk", "kbk", "knk", "kqqk", "kqrk", "kqbk", "kqnk", "krrk", "krbk", "krnk", "kbbk",
    "kbnk", "knnk", "kqkq", "kqkr", "kqkb", "kqkn", "krkr", "krkb", "krkn", "kbkb", "kbkn", "knkn",
];

/// Which pieces each side has besides its king, strongest first (Q, R, B, N, P).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    white: Vec<Role>,
    black: Vec<Role>,
}

/// Why a material name is refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum MaterialError {
    /// Not `k` + white pieces + `k` + black pieces.
    #[error("material '{0}' is not 'k' + white pieces + 'k' + black pieces, e.g. kqkr")]
    Shape(String),
    /// A letter other than q, r, b, n, p.
    #[error("material '{0}' has a piece other than q, r, b, n, p")]
    Piece(String),
    /// More than [`MAX_PIECES`] pieces.
    #[error("material '{0}' has more than {MAX_PIECES} pieces, kings included")]
    TooMany(String),
    /// Pawns with more than [`MAX_PAWN_PIECES`] pieces.
    #[error(
        "material '{0}' has pawns and more than {MAX_PAWN_PIECES} pieces, kings included (tables with pawns go up to {MAX_PAWN_PIECES})"
    )]
    TooManyWithPawns(String),
}

fn sorted(mut roles: Vec<Role>) -> Vec<Role> {
    roles.sort_by(|a, b| b.cmp(a));
    roles
}

impl Material {
    /// Material from each side's pieces besides the king (any order).
    pub fn new(white: &[Role], black: &[Role]) -> Result<Material, MaterialError> {
        let material = Material {
            white: sorted(white.to_vec()),
            black: sorted(black.to_vec()),
        };
        let name = material.name();
        if white.iter().chain(black).any(|r| matches!(r, Role::King)) {
            return Err(MaterialError::Piece(name));
        }
        if material.slots() > MAX_PIECES {
            return Err(MaterialError::TooMany(name));
        }
        if material.has_pawns() && material.slots() > MAX_PAWN_PIECES {
            return Err(MaterialError::TooManyWithPawns(name));
        }
        Ok(material)
    }

    /// Parses a name such as `kqkr`, `KRBKR` or `kbnk`.
    pub fn parse(name: &str) -> Result<Material, MaterialError> {
        let lower = name.to_ascii_lowercase();
        let shape = || MaterialError::Shape(name.to_string());
        let rest = lower.strip_prefix('k').ok_or_else(shape)?;
        let (white, black) = rest.split_once('k').ok_or_else(shape)?;
        let roles = |letters: &str| -> Result<Vec<Role>, MaterialError> {
            letters
                .chars()
                .map(|c| match Role::from_char(c) {
                    Some(
                        role
                        @ (Role::Queen | Role::Rook | Role::Bishop | Role::Knight | Role::Pawn),
                    ) => Ok(role),
                    _ if c == 'k' => Err(shape()),
                    _ => Err(MaterialError::Piece(name.to_string())),
                })
                .collect()
        };
        let (white, black) = (roles(white)?, roles(black)?);
        if 2 + white.len() + black.len() > MAX_PIECES {
            return Err(MaterialError::TooMany(name.to_string()));
        }
        Material::new(&white, &black)
    }

    /// The material on a board, if it has one king a side and fits a table.
    pub fn of(board: &Board) -> Option<Material> {
        let side = |color: Color| -> Option<Vec<Role>> {
            let own = board.by_color(color);
            if (board.kings() & own).count() != 1 {
                return None;
            }
            let mut roles = Vec::new();
            for role in [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ] {
                roles.extend(std::iter::repeat_n(
                    role,
                    (board.by_role(role) & own).count(),
                ));
            }
            Some(roles)
        };
        Material::new(&side(Color::White)?, &side(Color::Black)?).ok()
    }

    /// The name, e.g. `kqkr`.
    pub fn name(&self) -> String {
        let letters = |roles: &[Role]| roles.iter().map(|r| r.char()).collect::<String>();
        format!("k{}k{}", letters(&self.white), letters(&self.black))
    }

    /// White's pieces besides the king, strongest first.
    pub fn white(&self) -> &[Role] {
        &self.white
    }

    /// Black's pieces besides the king, strongest first.
    pub fn black(&self) -> &[Role] {
        &self.black
    }

    /// Whether either side has a pawn.
    pub fn has_pawns(&self) -> bool {
        self.white
            .iter()
            .chain(&self.black)
            .any(|&r| r == Role::Pawn)
    }

    /// Pieces on the board, kings included.
    pub fn slots(&self) -> usize {
        2 + self.white.len() + self.black.len()
    }

    /// Every piece in index order: white king, black king, white's pieces, black's.
    pub fn pieces(&self) -> Vec<(Color, Role)> {
        let mut pieces = vec![(Color::White, Role::King), (Color::Black, Role::King)];
        pieces.extend(self.white.iter().map(|&r| (Color::White, r)));
        pieces.extend(self.black.iter().map(|&r| (Color::Black, r)));
        pieces
    }

    /// The distinct materials one capture leads to.
    pub fn captures(&self) -> Vec<Material> {
        let mut captures: Vec<Material> = (2..self.slots()).map(|s| self.without(s)).collect();
        captures.dedup();
        captures
    }

    /// The material after the piece in `slot` (2 or more) is captured.
    pub fn without(&self, slot: usize) -> Material {
        let mut m = self.clone();
        let k = slot - 2;
        if k < m.white.len() {
            m.white.remove(k);
        } else {
            m.black.remove(k - m.white.len());
        }
        m
    }
}
