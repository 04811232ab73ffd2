//! Distance-to-mate tables for white's simple mates: KQK, KRK, KBBK, KBNK, as the
//! learners and studies see them: every placement of white king, black king and
//! white's pieces ([`Placement`]), and a verdict "white mates in N plies". Solved and
//! stored by the general pawnless solver ([`crate::pawnless`]: symmetry-reduced
//! index, captures through the smaller tables); this type keeps the placements'
//! view, in which every placement of the pieces counts (no symmetry reduction).

use shakmaty::{Chess, Color, File, Move, Position, Rank, Square};

use burnmate_env::endgame::has_material;
use burnmate_env::endgame_game::Defender;
use rand::{Rng, RngExt};

use crate::pawnless::{Dtm, DtmTable, MAX_PIECES, Material};

pub use burnmate_env::endgame::Endgame;

/// Side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White to move (index half 0).
    White,
    /// Black to move (index half 1).
    Black,
}

/// A placement: white king, black king, white pieces (in [`Endgame::pieces`] order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Side to move.
    pub side: Side,
    /// White king.
    pub white_king: Square,
    /// Black king.
    pub black_king: Square,
    /// White's other pieces.
    pub pieces: Vec<Square>,
}

/// A solved endgame: for every placement, illegal, drawn, or the plies to mate.
pub struct Tablebase {
    endgame: Endgame,
    table: DtmTable,
}

/// How a placement stands under perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not a legal position.
    Illegal,
    /// A draw.
    Draw,
    /// White mates in this many plies (0: black is checkmated now).
    MateInPlies(u32),
}

/// Placements of `endgame`, indexed `wk * 64^(1+n) + bk * 64^n + pieces` (6 bits a
/// square, white's pieces in [`Endgame::pieces`] order): every placement, legal or not.
fn placements_per_side(endgame: Endgame) -> usize {
    1 << (6 * (2 + endgame.pieces().len()))
}

/// The placement of raw index `i` (of one side).
fn placement_at(endgame: Endgame, side: Side, mut i: usize) -> Placement {
    let mut pieces = vec![Square::A1; endgame.pieces().len()];
    for slot in pieces.iter_mut().rev() {
        *slot = Square::new((i & 63) as u32);
        i >>= 6;
    }
    Placement {
        side,
        white_king: Square::new((i >> 6 & 63) as u32),
        black_king: Square::new((i & 63) as u32),
        pieces,
    }
}

/// The material of a lone-king endgame.
fn material(endgame: Endgame) -> Material {
    Material::new(endgame.pieces(), &[]).expect("the four endgames are pawnless and small")
}

impl Tablebase {
    /// Builds the table by retrograde analysis (well under a second for KBNK).
    pub fn solve(endgame: Endgame) -> Tablebase {
        let table = DtmTable::solve(&material(endgame)).expect("lone-king mates fit one byte");
        Tablebase { endgame, table }
    }

    /// The endgame this table solves.
    pub fn endgame(&self) -> Endgame {
        self.endgame
    }

    /// The verdict for a placement.
    pub fn probe(&self, p: &Placement) -> Verdict {
        let mut squares = [Square::A1; MAX_PIECES];
        let slots = 2 + p.pieces.len();
        squares[0] = p.white_king;
        squares[1] = p.black_king;
        squares[2..slots].copy_from_slice(&p.pieces);
        let turn = match p.side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        };
        match self.table.probe(turn, &squares[..slots]) {
            Dtm::Illegal => Verdict::Illegal,
            Dtm::Draw => Verdict::Draw,
            // Black has a lone king: every decided position is white's mate.
            Dtm::Win(plies) | Dtm::Loss(plies) => Verdict::MateInPlies(plies),
        }
    }

    /// The verdict for a shakmaty position; `None` if it is not this endgame.
    pub fn probe_position(&self, position: &Chess) -> Option<Verdict> {
        let board = position.board();
        if !has_material(self.endgame, board) {
            return None;
        }
        let white = board.by_color(Color::White);
        let pieces: Vec<Square> = self
            .endgame
            .pieces()
            .iter()
            .enumerate()
            .map(|(i, &role)| {
                // Two bishops: the first and the second in square order.
                let mut squares = (board.by_role(role) & white).into_iter();
                let first = squares.next().expect("material checked");
                if i > 0 && self.endgame.pieces()[i - 1] == role {
                    squares.next().expect("material checked")
                } else {
                    first
                }
            })
            .collect();
        Some(self.probe(&Placement {
            side: if position.turn() == Color::White {
                Side::White
            } else {
                Side::Black
            },
            white_king: board.king_of(Color::White)?,
            black_king: board.king_of(Color::Black)?,
            pieces,
        }))
    }

    /// Every legal move of `position` with the verdict of the position it leads to
    /// (a capture of a white piece leaves a drawn endgame), best first for the side
    /// to move: white prefers the fastest mate, black a draw, then the slowest mate.
    pub fn move_verdicts(&self, position: &Chess) -> Vec<(Move, Verdict)> {
        let mut moves: Vec<(Move, Verdict)> = position
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut next = position.clone();
                next.play_unchecked(m);
                let verdict = self.probe_position(&next).unwrap_or(Verdict::Draw);
                (m, verdict)
            })
            .collect();
        let white = position.turn() == Color::White;
        moves.sort_by_key(|(_, v)| match (v, white) {
            (Verdict::MateInPlies(n), true) => i64::from(*n),
            (_, true) => i64::MAX,
            (Verdict::MateInPlies(n), false) => -i64::from(*n),
            (_, false) => i64::MIN,
        });
        moves
    }

    /// Every placement with its verdict, in index order (white to move first).
    pub fn entries(&self) -> impl Iterator<Item = (Placement, Verdict)> + '_ {
        let per_side = placements_per_side(self.endgame);
        (0..2 * per_side).map(move |i| {
            let side = if i < per_side {
                Side::White
            } else {
                Side::Black
            };
            let placement = placement_at(self.endgame, side, i % per_side);
            let verdict = self.probe(&placement);
            (placement, verdict)
        })
    }

    /// `count` positions drawn uniformly, with replacement, from the legal
    /// white-to-move positions white wins (rejection sampling over the placements;
    /// every position has the same number of placements).
    pub fn random_won_starts(&self, count: usize, rng: &mut (impl Rng + ?Sized)) -> Vec<Chess> {
        let per_side = placements_per_side(self.endgame);
        let mut starts = Vec::with_capacity(count);
        while starts.len() < count {
            let i = rng.random_range(0..per_side);
            let placement = placement_at(self.endgame, Side::White, i);
            if !matches!(self.probe(&placement), Verdict::MateInPlies(_)) {
                continue;
            }
            let fen = placement.fen(self.endgame);
            starts.push(
                burnmate_env::endgame::parse_start(self.endgame, &fen)
                    .expect("a legal placement parses"),
            );
        }
        starts
    }

    /// The stored table, one byte per symmetry class of positions (for caching).
    pub fn bytes(&self) -> &[u8] {
        self.table.bytes()
    }

    /// A table from stored bytes; `None` if the length does not fit the endgame.
    pub fn from_bytes(endgame: Endgame, values: Vec<u8>) -> Option<Tablebase> {
        let table = DtmTable::from_bytes(material(endgame), values)?;
        Some(Tablebase { endgame, table })
    }

    /// The endgame's view of a solved general table; `None` if its material is not
    /// the endgame's.
    pub fn from_table(endgame: Endgame, table: DtmTable) -> Option<Tablebase> {
        (*table.material() == material(endgame)).then_some(Tablebase { endgame, table })
    }

    /// The general table underneath (both sides' view, any material's API).
    pub fn table(&self) -> &DtmTable {
        &self.table
    }
}

impl Placement {
    /// The placement as FEN (no castling, no en passant).
    pub fn fen(&self, endgame: Endgame) -> String {
        let mut board = [[None::<char>; 8]; 8];
        let mut put = |sq: Square, c: char| board[sq.rank() as usize][sq.file() as usize] = Some(c);
        put(self.white_king, 'K');
        put(self.black_king, 'k');
        for (&sq, role) in self.pieces.iter().zip(endgame.pieces()) {
            put(sq, role.upper_char());
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for cell in board[rank] {
                match cell {
                    Some(c) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let side = if self.side == Side::White { "w" } else { "b" };
        format!("{fen} {side} - - 0 1")
    }
}

/// A square from file and rank indices 0..8.
pub fn square(file: u32, rank: u32) -> Square {
    Square::from_coords(File::new(file), Rank::new(rank))
}

/// The perfect defender: a reply to a drawn position if there is one, else the one
/// that delays mate longest; ties broken at random.
impl Defender for Tablebase {
    fn reply<R: Rng + ?Sized>(&self, position: &Chess, rng: &mut R) -> Move {
        let ranked = self.move_verdicts(position);
        let best = ranked[0].1;
        let ties: Vec<Move> = ranked
            .iter()
            .filter(|(_, v)| *v == best)
            .map(|(m, _)| *m)
            .collect();
        ties[rng.random_range(0..ties.len())]
    }
}

#[cfg(test)]
mod tests;
