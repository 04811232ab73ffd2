//! Distance-to-mate tables of the endgames as the learners and studies see them
//! (white's simple mates KQK, KRK, KBBK, KBNK, KQKR, KRKB, KRKN where black keeps a
//! piece, and the pawn endings KPK, KQKP, KRKP, KPKP): every placement of the kings
//! and pieces ([`Placement`]), and a verdict "white mates in N plies" (or black
//! does, or a draw). Solved and stored by the general solvers ([`crate::pawnless`],
//! [`crate::pawns`]: captures and promotions through the tables they lead to, which
//! a tablebase keeps to answer the positions a capture or promotion reaches); this
//! type keeps the placements' view, in which every placement of the pieces counts
//! (no symmetry reduction).

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, File, Move, Position, Rank, Square};

use burnmate_env::endgame_game::Defender;
use rand::{Rng, RngExt};

use crate::pawnless::{Dtm, MAX_PIECES, Material, PlacementStats};
use crate::pawns::Tables;

pub use burnmate_env::endgame::Endgame;

/// Side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// White to move (index half 0).
    White,
    /// Black to move (index half 1).
    Black,
}

/// A placement: white king, black king, white pieces (in [`Endgame::pieces`] order),
/// black's pieces (in [`Endgame::defender_pieces`] order; none in the lone-king mates).
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
    /// Black's other pieces.
    pub defenders: Vec<Square>,
}

/// A solved endgame: for every placement, illegal, drawn, or the plies to mate; with
/// the tables of the materials its captures and promotions lead to.
pub struct Tablebase {
    endgame: Endgame,
    /// The endgame's material.
    material: Material,
    /// Its table and those its captures and promotions lead to.
    tables: Tables,
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
    /// Black mates in this many plies (only where black has a piece).
    BlackMatesInPlies(u32),
}

/// A solved value as a verdict, `turn` to move.
fn verdict(turn: Color, dtm: Dtm) -> Verdict {
    match (turn, dtm) {
        (_, Dtm::Illegal) => Verdict::Illegal,
        (_, Dtm::Draw) => Verdict::Draw,
        (Color::White, Dtm::Win(plies)) | (Color::Black, Dtm::Loss(plies)) => {
            Verdict::MateInPlies(plies)
        }
        (Color::White, Dtm::Loss(plies)) | (Color::Black, Dtm::Win(plies)) => {
            Verdict::BlackMatesInPlies(plies)
        }
    }
}

/// Placements of `endgame`, indexed `wk * 64^(1+n) + bk * 64^n + pieces` (6 bits a
/// square, white's pieces in [`Endgame::pieces`] order, then black's): every
/// placement, legal or not.
fn placements_per_side(endgame: Endgame) -> usize {
    1 << (6 * (2 + endgame.other_pieces().count()))
}

/// The placement of raw index `i` (of one side).
fn placement_at(endgame: Endgame, side: Side, mut i: usize) -> Placement {
    let mut others = vec![Square::A1; endgame.other_pieces().count()];
    for slot in others.iter_mut().rev() {
        *slot = Square::new((i & 63) as u32);
        i >>= 6;
    }
    let defenders = others.split_off(endgame.pieces().len());
    Placement {
        side,
        white_king: Square::new((i >> 6 & 63) as u32),
        black_king: Square::new((i & 63) as u32),
        pieces: others,
        defenders,
    }
}

/// The material of an endgame.
pub fn material(endgame: Endgame) -> Material {
    Material::new(endgame.pieces(), endgame.defender_pieces()).expect("the endgames are small")
}

impl Tablebase {
    /// Builds the table, and those its captures and promotions lead to, by
    /// retrograde analysis (well under a second for KBNK, ~7 s for KQKP).
    pub fn solve(endgame: Endgame) -> Tablebase {
        let mut tables = Tables::new();
        tables
            .solve(&material(endgame))
            .expect("the endgames fit one byte");
        Tablebase::from_tables(endgame, tables).expect("solved above")
    }

    /// The endgame this table solves.
    pub fn endgame(&self) -> Endgame {
        self.endgame
    }

    /// Legal, won and lost placements of each side to move (white first), counted
    /// from the stored positions (as [`Tablebase::entries`] would count them, faster);
    /// `None` for a pawn ending (its index is not the pawnless one).
    pub fn placement_stats(&self) -> Option<[PlacementStats; 2]> {
        let own = self.tables.pawnless_tables().get(&self.material)?;
        Some(own.placement_stats())
    }

    /// The verdict for a placement.
    pub fn probe(&self, p: &Placement) -> Verdict {
        let mut squares = [Square::A1; MAX_PIECES];
        let slots = 2 + p.pieces.len() + p.defenders.len();
        squares[0] = p.white_king;
        squares[1] = p.black_king;
        squares[2..2 + p.pieces.len()].copy_from_slice(&p.pieces);
        squares[2 + p.pieces.len()..slots].copy_from_slice(&p.defenders);
        let turn = match p.side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        };
        let squares = &squares[..slots];
        let dtm = match self.tables.pawn_table(&self.material) {
            Some(table) => table.probe(turn, squares, false),
            None => self.tables.pawnless_tables()[&self.material].probe(turn, squares),
        };
        verdict(turn, dtm)
    }

    /// The verdict for a shakmaty position (its en passant right included); `None`
    /// if it is not this endgame.
    pub fn probe_position(&self, position: &Chess) -> Option<Verdict> {
        if Material::of(position.board()).as_ref() != Some(&self.material) {
            return None;
        }
        self.probe_family(position)
    }

    /// Mate distance in white moves of a white-to-move position of this endgame or
    /// of one its captures and promotions lead to, if white mates.
    pub fn mate_in(&self, position: &Chess) -> Option<u32> {
        match self.probe_family(position) {
            Some(Verdict::MateInPlies(n)) => Some(n.div_ceil(2)),
            _ => None,
        }
    }

    /// The verdict for a position of this endgame or of one its captures and
    /// promotions lead to; `None` for any other material (bare kings among them: a
    /// draw).
    fn probe_family(&self, position: &Chess) -> Option<Verdict> {
        let dtm = self.tables.probe_position(position)?;
        Some(verdict(position.turn(), dtm))
    }

    /// Every legal move of `position` with the verdict of the position it leads to
    /// (a capture or promotion leads to another table's verdict; bare kings are a
    /// draw), best
    /// first for the side to move: its own fastest mate, then a draw, then the
    /// slowest mate of the other side.
    pub fn move_verdicts(&self, position: &Chess) -> Vec<(Move, Verdict)> {
        let mut moves: Vec<(Move, Verdict)> = position
            .legal_moves()
            .into_iter()
            .map(|m| {
                let mut next = position.clone();
                next.play_unchecked(m);
                let verdict = self.probe_family(&next).unwrap_or(Verdict::Draw);
                (m, verdict)
            })
            .collect();
        let white = position.turn() == Color::White;
        moves.sort_by_key(|(_, v)| match (v, white) {
            (Verdict::MateInPlies(n), true) | (Verdict::BlackMatesInPlies(n), false) => {
                (0, i64::from(*n))
            }
            (Verdict::Draw | Verdict::Illegal, _) => (1, 0),
            (Verdict::BlackMatesInPlies(n), true) | (Verdict::MateInPlies(n), false) => {
                (2, -i64::from(*n))
            }
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
        self.random_starts(Side::White, count, rng, |v| {
            matches!(v, Verdict::MateInPlies(_))
        })
    }

    /// `count` positions drawn uniformly, with replacement, from the legal positions
    /// with `side` to move whose verdict `keep` accepts (rejection sampling over the
    /// placements, as [`Tablebase::random_won_starts`]; a check no move can give is
    /// not a legal position).
    pub fn random_starts(
        &self,
        side: Side,
        count: usize,
        rng: &mut (impl Rng + ?Sized),
        keep: impl Fn(Verdict) -> bool,
    ) -> Vec<Chess> {
        let per_side = placements_per_side(self.endgame);
        let mut starts = Vec::with_capacity(count);
        while starts.len() < count {
            let i = rng.random_range(0..per_side);
            let placement = placement_at(self.endgame, side, i);
            let verdict = self.probe(&placement);
            if verdict == Verdict::Illegal || !keep(verdict) {
                continue;
            }
            let fen: Fen = placement
                .fen(self.endgame)
                .parse()
                .expect("a placement's FEN");
            // The tables hold every placement whose side not to move is out of
            // check; chess also rules out checks no move can give (two bishops
            // checking along one diagonal from both sides), which are drawn again.
            if let Ok(position) = fen.into_position(CastlingMode::Standard) {
                starts.push(position);
            }
        }
        starts
    }

    /// The endgame's view of solved general tables (its own material's and those
    /// its captures and promotions lead to); `None` if its own material's is missing.
    pub fn from_tables(endgame: Endgame, tables: Tables) -> Option<Tablebase> {
        let material = material(endgame);
        tables.contains(&material).then_some(Tablebase {
            endgame,
            material,
            tables,
        })
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
        for (&sq, role) in self.defenders.iter().zip(endgame.defender_pieces()) {
            put(sq, role.char());
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
