//! Distance-to-mate tables for material with pawns up to four pieces (`kpk`,
//! `kqkp`, `krkp`, `kpkp`, `kbpk` ...), both sides to move, solved by the retrograde
//! solver the pawnless tables use ([`crate::retrograde`]) over an index that keeps
//! the pawns' direction ([`index`]). Captures and promotions are conversions to
//! tables solved first (pawnless or with pawns); en passant is part of the index
//! (a flag: the side to move may capture en passant). Values count plies to mate
//! under perfect play, as the pawnless tables do, without the fifty-move rule.

pub mod index;
mod moves;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use shakmaty::{Board, Chess, Color, EnPassantMode, Position, Role, Square};

pub use crate::pawnless::{Dtm, Material};
use crate::pawnless::{DtmTable, ILLEGAL, SideStats, SolveError, squares_in_order};
use crate::retrograde::{Captures, expected, in_parallel};
use index::{PawnIndexer, Squares};
use moves::{Child, PawnGraph, Wanted};

/// Every table solved so far, pawnless and with pawns, by material.
#[derive(Default)]
pub struct Tables {
    pawnless: HashMap<Material, DtmTable>,
    pawns: HashMap<Material, PawnTable>,
}

impl Tables {
    /// No table yet.
    pub fn new() -> Tables {
        Tables::default()
    }

    /// Solves `material` (pawnless or with pawns) and, first, every material its
    /// captures and promotions lead to, each once.
    pub fn solve(&mut self, material: &Material) -> Result<(), SolveError> {
        if self.contains(material) {
            return Ok(());
        }
        if !material.has_pawns() {
            return DtmTable::solve_among(material, &mut self.pawnless);
        }
        for converted in conversions(material) {
            self.solve(&converted)?;
        }
        let graph = PawnGraph {
            pieces: material.pieces(),
            indexer: PawnIndexer::new(material),
            tables: self,
        };
        let values = crate::retrograde::solve(&graph, &material.name())?;
        let table = PawnTable::from_bytes(material.clone(), values).expect("sized by the indexer");
        self.pawns.insert(material.clone(), table);
        Ok(())
    }

    /// The table of `material` with pawns, if solved.
    pub fn pawn_table(&self, material: &Material) -> Option<&PawnTable> {
        self.pawns.get(material)
    }

    /// Whether `material`'s table is here.
    pub fn contains(&self, material: &Material) -> bool {
        self.pawnless.contains_key(material) || self.pawns.contains_key(material)
    }

    /// Adds a pawnless table (loaded from a cache).
    pub fn insert_pawnless(&mut self, table: DtmTable) {
        self.pawnless.insert(table.material().clone(), table);
    }

    /// Adds a table with pawns (loaded from a cache).
    pub fn insert_pawns(&mut self, table: PawnTable) {
        self.pawns.insert(table.material().clone(), table);
    }

    /// Every pawnless table solved, by material.
    pub fn pawnless_tables(&self) -> &HashMap<Material, DtmTable> {
        &self.pawnless
    }

    /// Every table with pawns solved, by material.
    pub fn pawn_tables(&self) -> &HashMap<Material, PawnTable> {
        &self.pawns
    }

    /// The value of a shakmaty position (its en passant right included) from the
    /// solved tables; `None` where its material's table is not here (bare kings
    /// among them).
    pub fn probe_position(&self, position: &Chess) -> Option<Dtm> {
        let material = Material::of(position.board())?;
        match self.pawns.get(&material) {
            Some(table) => table.probe_position(position),
            None => self.pawnless.get(&material)?.probe_position(position),
        }
    }

    /// The value of `turn` to move on `board` (no en passant right) from the
    /// solved tables; bare kings draw.
    pub fn value(&self, board: &Board, turn: Color) -> Dtm {
        let material = Material::of(board).expect("one king a side");
        if material.slots() == 2 {
            return Dtm::Draw;
        }
        let found = if material.has_pawns() {
            self.pawns
                .get(&material)
                .map(|t| t.probe_board(board, turn, false))
        } else {
            self.pawnless
                .get(&material)
                .and_then(|t| t.probe_board(board, turn))
        };
        found.unwrap_or_else(|| panic!("the {} table is solved first", material.name()))
    }
}

/// The materials a capture or a promotion in `material` leads to: the tables its
/// table is built from.
pub fn conversions(material: &Material) -> Vec<Material> {
    let mut found = material.captures();
    found.extend(promotions(material));
    found
}

/// The distinct materials a promotion of one of `material`'s pawns leads to.
fn promotions(material: &Material) -> Vec<Material> {
    let mut found = Vec::new();
    for (color, own) in [
        (Color::White, material.white()),
        (Color::Black, material.black()),
    ] {
        let Some(at) = own.iter().position(|&r| r == Role::Pawn) else {
            continue;
        };
        for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
            let mut promoted = own.to_vec();
            promoted[at] = role;
            let (white, black) = match color {
                Color::White => (promoted.as_slice(), material.black()),
                Color::Black => (material.white(), promoted.as_slice()),
            };
            found.push(Material::new(white, black).expect("as many pieces"));
        }
    }
    found
}

/// A solved material with pawns: one byte per stored position and side to move.
pub struct PawnTable {
    material: Material,
    /// The material's pieces in index order.
    pieces: Vec<(Color, Role)>,
    indexer: PawnIndexer,
    /// White-to-move half, then black-to-move half, as the pawnless tables store them.
    values: Vec<u8>,
}

impl PawnTable {
    /// Solves `material` and every table its captures and promotions lead to.
    pub fn solve(material: &Material) -> Result<PawnTable, SolveError> {
        let mut tables = Tables::new();
        tables.solve(material)?;
        Ok(tables.pawns.remove(material).expect("solved above"))
    }

    /// A table from raw values; `None` if the length does not fit the material.
    pub fn from_bytes(material: Material, values: Vec<u8>) -> Option<PawnTable> {
        let indexer = PawnIndexer::new(&material);
        (material.has_pawns() && values.len() == 2 * indexer.per_side()).then_some(PawnTable {
            pieces: material.pieces(),
            material,
            indexer,
            values,
        })
    }

    /// The material this table solves.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The raw values, one byte per stored position (for caching).
    pub fn bytes(&self) -> &[u8] {
        &self.values
    }

    /// The value of the position with `turn` to move, pieces on `squares` (white
    /// king, black king, then [`Material::pieces`] order) and `en_passant`: whether
    /// `turn` may capture en passant (illegal where no such capture is legal).
    pub fn probe(&self, turn: Color, squares: &[Square], en_passant: bool) -> Dtm {
        assert_eq!(squares.len(), self.indexer.slots(), "one square a piece");
        let mut raw: Squares = [0; 4];
        for (slot, sq) in raw.iter_mut().zip(squares) {
            *slot = *sq as u8;
        }
        let pawns_placeable = (2..self.indexer.slots())
            .filter(|&slot| self.pieces[slot].1 == Role::Pawn)
            .all(|slot| (8..56).contains(&raw[slot]));
        if !pawns_placeable || (en_passant && !self.indexer.has_en_passant()) {
            return Dtm::Illegal;
        }
        let half = if turn == Color::White {
            0
        } else {
            self.indexer.per_side()
        };
        Dtm::stored(self.values[half + self.indexer.index(&raw, en_passant)])
    }

    /// The value of `turn` to move on `board` (its material this table's; `None`
    /// otherwise), `en_passant` as in [`PawnTable::probe`].
    pub fn probe_board(&self, board: &Board, turn: Color, en_passant: bool) -> Dtm {
        debug_assert_eq!(Material::of(board).as_ref(), Some(&self.material));
        let squares = squares_in_order(board, &self.pieces);
        self.probe(turn, &squares[..self.indexer.slots()], en_passant)
    }

    /// The value of a shakmaty position (its en passant right included); `None` if
    /// its material is another.
    pub fn probe_position(&self, position: &Chess) -> Option<Dtm> {
        if Material::of(position.board()).as_ref() != Some(&self.material) {
            return None;
        }
        let en_passant = position.ep_square(EnPassantMode::Legal).is_some();
        Some(self.probe_board(position.board(), position.turn(), en_passant))
    }

    /// Wins, draws and losses of each side to move (white first) over the stored
    /// positions without an en passant right: each stands for itself and its mirror
    /// image, so placements are twice these counts.
    pub fn stats(&self) -> [SideStats; 2] {
        let per_side = self.indexer.per_side();
        let plain = per_side / (1 + usize::from(self.indexer.has_en_passant()));
        [0, 1].map(|side| {
            let mut stats = SideStats::default();
            for (i, &v) in self.values[side * per_side..][..plain].iter().enumerate() {
                match Dtm::stored(v) {
                    Dtm::Illegal => {}
                    Dtm::Draw => stats.draws += 1,
                    Dtm::Loss(_) => stats.losses += 1,
                    Dtm::Win(plies) => {
                        stats.wins += 1;
                        if stats.longest_win.is_none_or(|(p, _)| plies > p) {
                            stats.longest_win = Some((plies, i));
                        }
                    }
                }
            }
            stats
        })
    }

    /// The FEN of stored index `i` with `turn` to move (no castling; the en passant
    /// square where the index holds the right).
    pub fn fen(&self, turn: Color, i: usize) -> String {
        let (squares, en_passant) = self.indexer.squares(i);
        let mut board = Board::empty();
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            board.set_piece_at(
                Square::new(u32::from(squares[slot])),
                shakmaty::Piece { color, role },
            );
        }
        let target = en_passant
            .then(|| {
                let pawn = (board.pawns() & board.by_color(!turn)).first()?;
                // The square the pawn passed: behind it as it moves.
                let behind = if turn == Color::White { 8 } else { -8 };
                Some(Square::new((pawn as i32 + behind) as u32).to_string())
            })
            .flatten()
            .unwrap_or_else(|| "-".into());
        let side = if turn == Color::White { "w" } else { "b" };
        format!("{board} {side} - {target} 0 1")
    }

    /// The entries whose stored value is not the one their moves give, as whole-table
    /// indices (white-to-move half first; none for a sound table): every legal
    /// entry against its children (stored here or in `tables`, which must hold every
    /// table a capture or promotion leads to), every other entry marked illegal.
    pub fn inconsistent_entries(&self, tables: &Tables) -> Vec<usize> {
        let graph = PawnGraph {
            pieces: self.pieces.clone(),
            indexer: PawnIndexer::new(&self.material),
            tables,
        };
        let per_side = self.indexer.per_side();
        let entries: Vec<u32> = (0..2 * per_side as u32).collect();
        in_parallel(&entries, |part| {
            let mut wrong = Vec::new();
            let mut quiet = Vec::new();
            for &at in part {
                let at = at as usize;
                let stored = self.values[at];
                let (turn, squares, en_passant) = graph.decode(at);
                let Some(in_check) = graph.legal(turn, &squares, en_passant) else {
                    if stored != ILLEGAL {
                        wrong.push(at as u32);
                    }
                    continue;
                };
                let other = if turn == Color::White { per_side } else { 0 };
                let mut caps = Captures::default();
                quiet.clear();
                graph.for_each_move(&squares, turn, en_passant, Wanted::All, &mut |child| {
                    caps.any_move = true;
                    match child {
                        Child::Stored(c) => quiet.push(Dtm::stored(self.values[other + c])),
                        Child::Converted(after) => match tables.value(&after, !turn) {
                            Dtm::Loss(d) => {
                                caps.win = Some(caps.win.map_or(d + 1, |w| w.min(d + 1)))
                            }
                            Dtm::Win(d) => caps.loss = Some(caps.loss.map_or(d, |l| l.max(d))),
                            Dtm::Draw => caps.draw = true,
                            Dtm::Illegal => quiet.push(Dtm::Illegal),
                        },
                    }
                });
                if expected(in_check, &caps, &quiet) != Some(Dtm::stored(stored)) {
                    wrong.push(at as u32);
                }
            }
            wrong
        })
        .into_iter()
        .map(|at| at as usize)
        .collect()
    }
}
