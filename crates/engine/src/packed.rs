//! A training position in 32 bytes, packed as bulletformat packs its boards: seen
//! from the side to move (its pieces white, the board turned when black moves), the
//! occupied squares as a bitboard and one nibble a piece in square order, the
//! search's score and the game's result for the side to move. Any input encoding is
//! computed from it; the net's 768 features a perspective are [`PackedPosition::features`].
//!
//! ```text
//! bytes 0..8    occupancy (u64, little-endian; bit s: square s, a1 = 0)
//! bytes 8..24   a nibble a piece, low nibble first, in square order:
//!               role - 1 (pawn 0 .. king 5), plus 8 for the side not to move
//! bytes 24..26  score (i16, centipawns, side to move)
//! byte  26      result for the side to move in halves (0 loss, 1 draw, 2 win)
//! bytes 27..32  zero
//! ```

use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};

use burnmate_encode::nnue::feature;

/// Bytes a packed position takes on disk and in memory.
pub const PACKED_BYTES: usize = 32;

/// One training position (see the module's layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedPosition {
    /// Occupied squares, seen from the side to move.
    occupancy: u64,
    /// A nibble a piece in square order.
    pieces: [u8; 16],
    /// The search's score, centipawns for the side to move.
    pub score: i16,
    /// The game's result for the side to move in halves (0, 1, 2).
    pub result: u8,
}

/// Which perspective's features: the side to move's or the other side's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    /// The side to move.
    Us,
    /// The side not to move.
    Them,
}

impl PackedPosition {
    /// `board` with `turn` to move, its search `score` and the game's result for
    /// `turn` in halves; `None` with more than 32 pieces.
    pub fn new(board: &Board, turn: Color, score: i32, result: u8) -> Option<PackedPosition> {
        let placed = board.occupied().into_iter().map(|square| {
            let piece = board.piece_at(square).expect("occupied");
            let seen = if turn.is_white() {
                square
            } else {
                square.flip_vertical()
            };
            (seen, piece.role, piece.color == turn)
        });
        PackedPosition::from_placed(placed, score, result)
    }

    /// The position whose side-to-move features are `us` (the 768 encoding), with
    /// `score` and `result` (how files of format 1 are read).
    pub fn from_features(us: &[u16], score: i32, result: u8) -> Option<PackedPosition> {
        let placed = us.iter().map(|&f| {
            let f = usize::from(f);
            let role = Role::ALL[(f % 384) / 64];
            (Square::new((f % 64) as u32), role, f < 384)
        });
        PackedPosition::from_placed(placed, score, result)
    }

    /// Packs pieces given as (square seen from the side to move, role, whether the
    /// side to move owns it), in any order.
    fn from_placed(
        placed: impl Iterator<Item = (Square, Role, bool)>,
        score: i32,
        result: u8,
    ) -> Option<PackedPosition> {
        let mut squares: Vec<(Square, u8)> = placed
            .map(|(square, role, ours)| (square, role as u8 - 1 + if ours { 0 } else { 8 }))
            .collect();
        if squares.len() > 32 || result > 2 {
            return None;
        }
        squares.sort_by_key(|(square, _)| *square);
        let mut pieces = [0u8; 16];
        let mut occupancy = 0u64;
        for (i, (square, nibble)) in squares.into_iter().enumerate() {
            if occupancy & (1 << u32::from(square)) != 0 {
                return None;
            }
            occupancy |= 1 << u32::from(square);
            pieces[i / 2] |= nibble << (4 * (i % 2));
        }
        Some(PackedPosition {
            occupancy,
            pieces,
            score: score.clamp(-32_000, 32_000) as i16,
            result,
        })
    }

    /// The same position with the game's `result` for the side to move in halves
    /// (known once the game ends).
    pub fn with_result(self, result: u8) -> PackedPosition {
        PackedPosition {
            result: result.min(2),
            ..self
        }
    }

    /// Pieces on the board.
    pub fn piece_count(&self) -> usize {
        self.occupancy.count_ones() as usize
    }

    /// The pieces seen from the side to move (its own white), in square order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Bitboard(self.occupancy)
            .into_iter()
            .enumerate()
            .map(|(i, square)| {
                let nibble = (self.pieces[i / 2] >> (4 * (i % 2))) & 0xf;
                let color = if nibble & 8 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                let role = Role::ALL[usize::from(nibble & 7)];
                (square, Piece { color, role })
            })
    }

    /// The set features (768 encoding) from `perspective`, in square order: what
    /// `burnmate_encode::nnue::active` gives for that side of the unturned board.
    pub fn features(&self, perspective: Perspective) -> impl Iterator<Item = u16> + '_ {
        let side = match perspective {
            Perspective::Us => Color::White,
            Perspective::Them => Color::Black,
        };
        self.pieces()
            .map(move |(square, piece)| feature(side, piece, square) as u16)
    }

    /// The result for the side to move: 0 lost, ½ drawn, 1 won.
    pub fn result_value(&self) -> f32 {
        f32::from(self.result) / 2.0
    }

    /// The 32 bytes of the layout.
    pub fn to_bytes(&self) -> [u8; PACKED_BYTES] {
        let mut bytes = [0u8; PACKED_BYTES];
        bytes[..8].copy_from_slice(&self.occupancy.to_le_bytes());
        bytes[8..24].copy_from_slice(&self.pieces);
        bytes[24..26].copy_from_slice(&self.score.to_le_bytes());
        bytes[26] = self.result;
        bytes
    }

    /// The position of 32 bytes; `None` where they are not one (a nibble past a
    /// king, pieces past the occupancy, a result past 2, padding not zero).
    pub fn from_bytes(bytes: &[u8; PACKED_BYTES]) -> Option<PackedPosition> {
        let occupancy = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        let pieces: [u8; 16] = bytes[8..24].try_into().expect("16 bytes");
        let count = occupancy.count_ones() as usize;
        let nibbles_ok = (0..32).all(|i| {
            let nibble = (pieces[i / 2] >> (4 * (i % 2))) & 0xf;
            if i < count {
                nibble & 7 <= 5
            } else {
                nibble == 0
            }
        });
        let packed = PackedPosition {
            occupancy,
            pieces,
            score: i16::from_le_bytes([bytes[24], bytes[25]]),
            result: bytes[26],
        };
        (nibbles_ok && packed.result <= 2 && bytes[27..].iter().all(|&b| b == 0)).then_some(packed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_encode::nnue::active;
    use shakmaty::{Chess, Position};

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).unwrap()
    }

    fn sorted(features: impl Iterator<Item = usize>) -> Vec<usize> {
        let mut v: Vec<usize> = features.collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn features_are_the_boards_from_either_side_and_bytes_round_trip() {
        assert_eq!(std::mem::size_of::<PackedPosition>(), PACKED_BYTES);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
        ] {
            let p = position(fen);
            let (board, turn) = (p.board(), p.turn());
            let packed = PackedPosition::new(board, turn, -123, 2).unwrap();
            let us: Vec<u16> = packed.features(Perspective::Us).collect();
            let them: Vec<u16> = packed.features(Perspective::Them).collect();
            let f = |v: &[u16]| sorted(v.iter().map(|&x| usize::from(x)));
            assert_eq!(f(&us), sorted(active(board, turn)), "{fen}");
            assert_eq!(f(&them), sorted(active(board, !turn)), "{fen}");
            assert_eq!(packed.piece_count(), board.occupied().count());
            assert_eq!(PackedPosition::from_bytes(&packed.to_bytes()), Some(packed));
            // A file of format 1 held the side to move's features: the same position.
            let old: Vec<u16> = active(board, turn).map(|x| x as u16).collect();
            assert_eq!(PackedPosition::from_features(&old, -123, 2), Some(packed));
            assert_eq!((packed.score, packed.result_value()), (-123, 1.0));
        }
        let start = position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let packed = PackedPosition::new(start.board(), Color::White, 0, 1).unwrap();
        let mut bytes = packed.to_bytes();
        bytes[26] = 3;
        assert_eq!(PackedPosition::from_bytes(&bytes), None, "a result past 2");
        let mut bytes = packed.to_bytes();
        bytes[31] = 1;
        assert_eq!(PackedPosition::from_bytes(&bytes), None, "padding");
        assert_eq!(
            PackedPosition::from_features(&[4, 4], 0, 1),
            None,
            "two pieces on a square"
        );
    }
}
