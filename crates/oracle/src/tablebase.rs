//! Retrograde distance-to-mate tables for white's simple mates: KQK, KRK, KBBK.
//!
//! Every placement of the pieces is indexed as `side * 64^(2+n) + wk * 64^(1+n) +
//! bk * 64^n + pieces` (no symmetry reduction: KBBK is 33.5 M entries of one byte).
//! The solver works backwards from the mates: a black-to-move position resolved as
//! lost at ply `d` makes every white predecessor won in `d + 1` plies (the first time
//! reached is the shortest); a white-to-move position won at ply `d` takes one escape
//! away from each black predecessor, and a black position with no escape left is lost
//! in `d + 1` (the last escape to go is the longest defence). Black captures lead to
//! a bare-king or one-piece draw, so they are escapes that never go. Attacks come
//! from shakmaty's tables.

use shakmaty::attacks::{attacks, king_attacks};
use shakmaty::{Bitboard, Chess, Color, File, Move, Piece, Position, Rank, Role, Square};

use burnmate_env::endgame::has_material;
use burnmate_env::endgame_game::Defender;
use rand::{Rng, RngExt};

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

const UNKNOWN: u8 = 0;
const ILLEGAL: u8 = u8::MAX;

/// A solved endgame: for every placement, illegal, drawn, or the plies to mate.
pub struct Tablebase {
    endgame: Endgame,
    /// `0` unresolved (a draw once solved), `255` illegal, else plies to mate + 1.
    values: Vec<u8>,
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

struct Indexer {
    n: usize,
    per_side: usize,
}

impl Indexer {
    fn new(endgame: Endgame) -> Indexer {
        let n = endgame.pieces().len();
        Indexer {
            n,
            per_side: 1 << (6 * (2 + n)),
        }
    }

    fn index(&self, side: Side, wk: Square, bk: Square, pieces: &[Square]) -> usize {
        let mut i = (wk as usize) << 6 | bk as usize;
        for &p in pieces {
            i = i << 6 | p as usize;
        }
        i + if side == Side::Black {
            self.per_side
        } else {
            0
        }
    }

    /// Squares of a side-less index: (white king, black king, pieces).
    fn squares(&self, mut i: usize, pieces: &mut [Square]) -> (Square, Square) {
        for slot in pieces.iter_mut().rev() {
            *slot = Square::new((i & 63) as u32);
            i >>= 6;
        }
        let bk = Square::new((i & 63) as u32);
        let wk = Square::new((i >> 6 & 63) as u32);
        debug_assert_eq!(pieces.len(), self.n);
        (wk, bk)
    }
}

fn bb(sq: Square) -> Bitboard {
    Bitboard::from_square(sq)
}

/// Squares white attacks, given the occupancy that blocks sliders; the piece at
/// `skip` (a captured one) is left out.
fn white_attacks_without(
    wk: Square,
    roles: &[Role],
    pieces: &[Square],
    occupied: Bitboard,
    skip: Option<usize>,
) -> Bitboard {
    let mut a = king_attacks(wk);
    for (k, (&role, &sq)) in roles.iter().zip(pieces).enumerate() {
        if Some(k) != skip {
            a |= attacks(
                sq,
                Piece {
                    color: Color::White,
                    role,
                },
                occupied,
            );
        }
    }
    a
}

/// Squares white attacks, given the occupancy that blocks sliders.
fn white_attacks(wk: Square, roles: &[Role], pieces: &[Square], occupied: Bitboard) -> Bitboard {
    white_attacks_without(wk, roles, pieces, occupied, None)
}

/// Number of legal black king moves in a black-to-move placement (captures of an
/// undefended piece included).
fn black_moves(wk: Square, bk: Square, roles: &[Role], pieces: &[Square]) -> u8 {
    let all = pieces.iter().fold(bb(wk), |o, &p| o | bb(p));
    let mut count = 0;
    for to in king_attacks(bk) {
        if to.distance(wk) <= 1 {
            continue;
        }
        let captured = pieces.iter().position(|&p| p == to);
        // The king leaves `bk` (already absent from `all`) and stands on `to`.
        let occupied = all | bb(to);
        if !white_attacks_without(wk, roles, pieces, occupied, captured).contains(to) {
            count += 1;
        }
    }
    count
}

impl Tablebase {
    /// Builds the table by retrograde analysis (a few seconds for KBBK).
    pub fn solve(endgame: Endgame) -> Tablebase {
        let roles = endgame.pieces();
        let ix = Indexer::new(endgame);
        let mut values = vec![UNKNOWN; 2 * ix.per_side];
        let mut escapes = vec![0u8; ix.per_side];
        let mut frontier: Vec<usize> = Vec::new();
        let mut pieces = vec![Square::A1; ix.n];
        for i in 0..ix.per_side {
            let (wk, bk) = ix.squares(i, &mut pieces);
            let occupied = pieces.iter().fold(bb(wk) | bb(bk), |o, &p| o | bb(p));
            let distinct = occupied.count() == 2 + ix.n;
            if !distinct || wk.distance(bk) <= 1 {
                values[i] = ILLEGAL;
                values[i + ix.per_side] = ILLEGAL;
                continue;
            }
            let check = white_attacks(wk, roles, &pieces, occupied).contains(bk);
            if check {
                values[i] = ILLEGAL; // white to move with black in check
            }
            let moves = black_moves(wk, bk, roles, &pieces);
            escapes[i] = moves;
            if moves == 0 && check {
                values[i + ix.per_side] = 1;
                frontier.push(i);
            }
        }

        let mut ply: u8 = 0;
        while !frontier.is_empty() {
            // White predecessors of black positions lost at `ply` win in ply + 1.
            let mut won = Vec::new();
            for &lost in &frontier {
                let (wk, bk) = ix.squares(lost, &mut pieces);
                let occupied = pieces.iter().fold(bb(wk) | bb(bk), |o, &p| o | bb(p));
                let mut visit = |q_wk: Square, q_pieces: &[Square], won: &mut Vec<usize>| {
                    let q_occupied = q_pieces.iter().fold(bb(q_wk) | bb(bk), |o, &p| o | bb(p));
                    let q = ix.index(Side::White, q_wk, bk, q_pieces);
                    if values[q] == UNKNOWN
                        && !white_attacks(q_wk, roles, q_pieces, q_occupied).contains(bk)
                    {
                        values[q] = ply + 2;
                        won.push(q);
                    }
                };
                for from in king_attacks(wk) & !occupied {
                    if from.distance(bk) > 1 {
                        visit(from, &pieces, &mut won);
                    }
                }
                for k in 0..ix.n {
                    let piece = Piece {
                        color: Color::White,
                        role: roles[k],
                    };
                    for from in attacks(pieces[k], piece, occupied) & !occupied {
                        let mut q_pieces = pieces.clone();
                        q_pieces[k] = from;
                        visit(wk, &q_pieces, &mut won);
                    }
                }
            }
            // Black predecessors lose one escape; with none left they lose in ply + 2.
            let mut lost_next = Vec::new();
            for &q in &won {
                let (wk, bk) = ix.squares(q, &mut pieces);
                let occupied = pieces.iter().fold(bb(wk) | bb(bk), |o, &p| o | bb(p));
                for from in king_attacks(bk) & !occupied {
                    if from.distance(wk) <= 1 {
                        continue;
                    }
                    let r = ix.index(Side::Black, wk, from, &pieces);
                    if values[r] == UNKNOWN {
                        let side_less = r - ix.per_side;
                        escapes[side_less] -= 1;
                        if escapes[side_less] == 0 {
                            values[r] = ply + 3;
                            lost_next.push(side_less);
                        }
                    }
                }
            }
            frontier = lost_next;
            ply += 2;
        }
        Tablebase { endgame, values }
    }

    /// The endgame this table solves.
    pub fn endgame(&self) -> Endgame {
        self.endgame
    }

    /// The verdict for a placement.
    pub fn probe(&self, p: &Placement) -> Verdict {
        let ix = Indexer::new(self.endgame);
        match self.values[ix.index(p.side, p.white_king, p.black_king, &p.pieces)] {
            ILLEGAL => Verdict::Illegal,
            UNKNOWN => Verdict::Draw,
            v => Verdict::MateInPlies(u32::from(v - 1)),
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

    /// Every placement with its verdict, in index order.
    pub fn entries(&self) -> impl Iterator<Item = (Placement, Verdict)> + '_ {
        let ix = Indexer::new(self.endgame);
        (0..self.values.len()).map(move |i| {
            let side = if i < ix.per_side {
                Side::White
            } else {
                Side::Black
            };
            let mut pieces = vec![Square::A1; ix.n];
            let (white_king, black_king) = ix.squares(i % ix.per_side, &mut pieces);
            let verdict = match self.values[i] {
                ILLEGAL => Verdict::Illegal,
                UNKNOWN => Verdict::Draw,
                v => Verdict::MateInPlies(u32::from(v - 1)),
            };
            (
                Placement {
                    side,
                    white_king,
                    black_king,
                    pieces,
                },
                verdict,
            )
        })
    }

    /// `count` positions drawn uniformly, with replacement, from the legal
    /// white-to-move positions white wins (rejection sampling over the placements;
    /// every position has the same number of placements).
    pub fn random_won_starts(&self, count: usize, rng: &mut (impl Rng + ?Sized)) -> Vec<Chess> {
        let ix = Indexer::new(self.endgame);
        let mut starts = Vec::with_capacity(count);
        let mut pieces = vec![Square::A1; ix.n];
        while starts.len() < count {
            let i = rng.random_range(0..ix.per_side);
            if matches!(self.values[i], UNKNOWN | ILLEGAL) {
                continue;
            }
            let (white_king, black_king) = ix.squares(i, &mut pieces);
            let placement = Placement {
                side: Side::White,
                white_king,
                black_king,
                pieces: pieces.clone(),
            };
            let fen = placement.fen(self.endgame);
            starts.push(
                burnmate_env::endgame::parse_start(self.endgame, &fen)
                    .expect("a legal placement parses"),
            );
        }
        starts
    }

    /// The raw table, one byte per placement (for caching).
    pub fn bytes(&self) -> &[u8] {
        &self.values
    }

    /// A table from raw bytes; `None` if the length does not fit the endgame.
    pub fn from_bytes(endgame: Endgame, values: Vec<u8>) -> Option<Tablebase> {
        (values.len() == 2 * Indexer::new(endgame).per_side)
            .then_some(Tablebase { endgame, values })
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
