//! Indexing of positions with pawns: only the mirror between the a-d and e-h files
//! keeps a pawn's moves, so a table stores the white king on files a-d (32 squares)
//! and every other piece as it stands: the black king on 64 squares, a piece on 64,
//! a pawn on the 48 squares of ranks 2-7. With a pawn on each side one bit more
//! says whether the side to move may capture en passant (the other side's pawn has
//! just advanced two squares). The kings are innermost (`index = ((ep x pieces) x 32
//! + white king) x 64 + black king`), so a king move changes the index by little.
//!
//! Like pieces are stored in every order (each order a position of its own).

use shakmaty::{Color, Role};

use super::super::pawnless::{MAX_PAWN_PIECES, Material};

/// Squares of a position: white king, black king, then the material's pieces.
pub type Squares = [u8; MAX_PAWN_PIECES];
/// King placements: the white king on files a-d, the black king anywhere.
const KINGS: usize = 32 * 64;

/// Maps the positions of one material with pawns to and from their table index.
pub struct PawnIndexer {
    slots: usize,
    /// Per slot from 2 on, whether it holds a pawn (48 squares) or a piece (64).
    pawn: [bool; MAX_PAWN_PIECES],
    /// Piece placements per en passant flag.
    per_flag: usize,
    /// Whether the index holds the en passant flag (one pawn a side).
    en_passant: bool,
}

/// The field of `sq` in a slot that holds a pawn or a piece.
fn field(sq: u8, pawn: bool) -> usize {
    usize::from(if pawn { sq - 8 } else { sq })
}

impl PawnIndexer {
    /// The indexer of `material`'s positions.
    pub fn new(material: &Material) -> PawnIndexer {
        let pieces = material.pieces();
        let mut pawn = [false; MAX_PAWN_PIECES];
        for (slot, &(_, role)) in pieces.iter().enumerate() {
            pawn[slot] = role == Role::Pawn;
        }
        let pawns_of = |color: Color| pieces.iter().filter(|&&p| p == (color, Role::Pawn)).count();
        let per_flag = (2..pieces.len())
            .map(|slot| if pawn[slot] { 48 } else { 64 })
            .product::<usize>()
            * KINGS;
        PawnIndexer {
            slots: pieces.len(),
            pawn,
            per_flag,
            en_passant: pawns_of(Color::White) == 1 && pawns_of(Color::Black) == 1,
        }
    }

    /// Indices of one side to move.
    pub fn per_side(&self) -> usize {
        self.per_flag * (1 + usize::from(self.en_passant))
    }

    /// Whether the index holds the en passant flag.
    pub fn has_en_passant(&self) -> bool {
        self.en_passant
    }

    /// Pieces on the board, kings included.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The index of the position on `squares` (pawns on ranks 2-7), `en_passant`:
    /// whether the side to move may capture en passant (only where the index holds
    /// the flag).
    pub fn index(&self, squares: &Squares, en_passant: bool) -> usize {
        debug_assert!(!en_passant || self.en_passant);
        let flip = if squares[0] & 7 >= 4 { 7 } else { 0 };
        let mut pieces = usize::from(en_passant);
        for (&sq, &pawn) in squares[2..self.slots].iter().zip(&self.pawn[2..]) {
            let size = if pawn { 48 } else { 64 };
            pieces = pieces * size + field(sq ^ flip, pawn);
        }
        let wk = squares[0] ^ flip;
        let white_king = usize::from(wk >> 3) * 4 + usize::from(wk & 7);
        (pieces * 32 + white_king) * 64 + usize::from(squares[1] ^ flip)
    }

    /// The squares of index `i` (of one side to move) and its en passant flag.
    pub fn squares(&self, i: usize) -> (Squares, bool) {
        let mut squares = [0u8; MAX_PAWN_PIECES];
        squares[1] = (i % 64) as u8;
        let white_king = (i / 64) % 32;
        squares[0] = ((white_king / 4) * 8 + white_king % 4) as u8;
        let mut rest = i / KINGS;
        for slot in (2..self.slots).rev() {
            let size = if self.pawn[slot] { 48 } else { 64 };
            let f = (rest % size) as u8;
            squares[slot] = if self.pawn[slot] { f + 8 } else { f };
            rest /= size;
        }
        (squares, rest == 1)
    }
}
