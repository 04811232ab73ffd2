//! Distance-to-mate tables for any pawnless material up to five pieces
//! (`kqkr`, `krbkr`, `kbnk` ...), both sides to move, solved by retrograde analysis
//! over a symmetry-reduced index (see [`index`] and [`crate::retrograde`]); captures
//! are resolved through the smaller tables, solved first.

pub mod index;
pub mod material;
mod rules;
mod verify;

use std::collections::HashMap;

use shakmaty::{Chess, Color, Position, Role, Square};
use thiserror::Error;

use index::{Indexer, Squares};
pub use material::{MAX_PAWN_PIECES, MAX_PIECES, Material, MaterialError, THREE_AND_FOUR};

/// Stored value of a position never resolved: a draw once solved.
pub(crate) const DRAW: u8 = 0;
/// Stored value of an index that is no legal position's representative.
pub(crate) const ILLEGAL: u8 = u8::MAX;

/// A position's value under perfect play, for the side to move, in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtm {
    /// Not a legal position (the side not to move is in check, pieces overlap ...).
    Illegal,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates in this many plies (odd).
    Win(u32),
    /// The side to move is mated in this many plies (even; 0: checkmated now).
    Loss(u32),
}

impl Dtm {
    /// The value a stored byte holds.
    pub(crate) fn stored(value: u8) -> Dtm {
        match value {
            DRAW => Dtm::Draw,
            ILLEGAL => Dtm::Illegal,
            v => {
                let plies = u32::from(v - 1);
                if plies % 2 == 1 {
                    Dtm::Win(plies)
                } else {
                    Dtm::Loss(plies)
                }
            }
        }
    }
}

/// Why a table cannot be built.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SolveError {
    /// A mate longer than one byte stores (253 plies).
    #[error("{0} has a mate longer than 253 plies, more than one byte a position holds")]
    TooLong(String),
    /// A table a capture leads to was not given.
    #[error("the {0} table a capture leads to is missing")]
    Missing(String),
    /// A material with pawns asked of the pawnless solver.
    #[error("{0} has pawns: its table is a crate::pawns::PawnTable")]
    Pawns(String),
}

/// Counts of one side to move's legal positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Positions the side to move wins.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions the side to move loses.
    pub losses: u64,
    /// The longest win, in plies, with its stored index.
    pub longest_win: Option<(u32, usize)>,
}

/// Counts of one side to move's legal placements: every assignment of the pieces to
/// squares (no symmetry reduction; like pieces in every order), as a table of all
/// 64^n placements would count them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlacementStats {
    /// Legal placements.
    pub legal: u64,
    /// Placements the side to move wins.
    pub wins: u64,
    /// Placements the side to move loses.
    pub losses: u64,
    /// Won placements by plies to mate (index: plies).
    pub win_plies: Vec<u64>,
    /// The longest win in plies, with its first placement in [`Indexer::raw_index`]
    /// order.
    pub longest_win: Option<(u32, Vec<Square>)>,
}

/// A solved pawnless material: one byte per stored position and side to move.
pub struct DtmTable {
    material: Material,
    /// The material's pieces in index order.
    pieces: Vec<(Color, Role)>,
    indexer: Indexer,
    /// White-to-move half, then black-to-move half: [`DRAW`], [`ILLEGAL`] or plies + 1.
    values: Vec<u8>,
}

impl DtmTable {
    /// Solves `material` and, first, every material its captures lead to.
    pub fn solve(material: &Material) -> Result<DtmTable, SolveError> {
        let mut solved = HashMap::new();
        solve_into(material, &mut solved)?;
        Ok(solved.remove(material).expect("solved above"))
    }

    /// Solves `material`, taking the tables of its captures from `known` where they
    /// are (solving the rest).
    pub fn solve_with(
        material: &Material,
        mut known: HashMap<Material, DtmTable>,
    ) -> Result<DtmTable, SolveError> {
        solve_into(material, &mut known)?;
        Ok(known.remove(material).expect("solved above"))
    }

    /// Solves every material of `materials` and every material their captures lead
    /// to, each once.
    pub fn solve_all(materials: &[Material]) -> Result<HashMap<Material, DtmTable>, SolveError> {
        let mut solved = HashMap::new();
        for material in materials {
            solve_into(material, &mut solved)?;
        }
        Ok(solved)
    }

    /// Solves `material` into `solved`, with every table its captures lead to that
    /// `solved` lacks.
    pub fn solve_among(
        material: &Material,
        solved: &mut HashMap<Material, DtmTable>,
    ) -> Result<(), SolveError> {
        solve_into(material, solved)
    }

    /// The material this table solves.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The value of the position with `turn` to move and pieces on `squares`
    /// (white king, black king, then [`Material::pieces`] order; like pieces in any
    /// order).
    pub fn probe(&self, turn: Color, squares: &[Square]) -> Dtm {
        assert_eq!(squares.len(), self.material.slots(), "one square a piece");
        let mut raw: Squares = [0; MAX_PIECES];
        for (slot, sq) in raw.iter_mut().zip(squares) {
            *slot = *sq as u8;
        }
        let distinct = squares
            .iter()
            .fold(0u64, |o, &sq| o | 1 << (sq as u32))
            .count_ones() as usize
            == squares.len();
        if !distinct || !Indexer::kings_apart(&raw) {
            return Dtm::Illegal;
        }
        self.value(turn, &raw)
    }

    fn value(&self, turn: Color, squares: &Squares) -> Dtm {
        Dtm::stored(self.values[self.offset(turn) + self.indexer.index(squares)])
    }

    fn offset(&self, turn: Color) -> usize {
        match turn {
            Color::White => 0,
            Color::Black => self.indexer.per_side(),
        }
    }

    /// The value of a shakmaty position; `None` if its material is another.
    pub fn probe_position(&self, position: &Chess) -> Option<Dtm> {
        self.probe_board(position.board(), position.turn())
    }

    /// The value of `turn` to move on `board`; `None` if its material is another.
    pub fn probe_board(&self, board: &shakmaty::Board, turn: Color) -> Option<Dtm> {
        if Material::of(board).as_ref() != Some(&self.material) {
            return None;
        }
        let squares = squares_in_order(board, &self.pieces);
        Some(self.probe(turn, &squares[..self.material.slots()]))
    }

    /// Legal positions, wins, draws and losses of each side to move (white first).
    pub fn stats(&self) -> [SideStats; 2] {
        let per_side = self.indexer.per_side();
        [0, 1].map(|side| {
            let mut stats = SideStats::default();
            for (i, &v) in self.values[side * per_side..][..per_side]
                .iter()
                .enumerate()
            {
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

    /// [`PlacementStats`] of each side to move (white first), each stored position
    /// weighed by the placements it stands for.
    pub fn placement_stats(&self) -> [PlacementStats; 2] {
        let per_side = self.indexer.per_side();
        let mut stats = [PlacementStats::default(), PlacementStats::default()];
        let mut longest_raw = [usize::MAX; 2];
        let mut placements = Vec::new();
        for i in 0..per_side {
            let values = [self.values[i], self.values[per_side + i]];
            if values == [ILLEGAL; 2] {
                continue;
            }
            let squares = self.indexer.squares(i);
            let weight = self.indexer.weight(&squares);
            for (side, stats) in stats.iter_mut().enumerate() {
                match Dtm::stored(values[side]) {
                    Dtm::Illegal => continue,
                    Dtm::Draw => {}
                    Dtm::Loss(_) => stats.losses += weight,
                    Dtm::Win(plies) => {
                        stats.wins += weight;
                        let at = plies as usize;
                        stats.win_plies.resize(stats.win_plies.len().max(at + 1), 0);
                        stats.win_plies[at] += weight;
                        let best = stats.longest_win.as_ref().map(|(p, _)| *p);
                        if best.is_none_or(|b| plies >= b) {
                            self.indexer.placements(&squares, &mut placements);
                            let first = placements
                                .iter()
                                .min_by_key(|p| self.indexer.raw_index(p))
                                .expect("a position stands for itself");
                            let raw = self.indexer.raw_index(first);
                            if best != Some(plies) || raw < longest_raw[side] {
                                longest_raw[side] = raw;
                                let slots = self.material.slots();
                                let squares = first[..slots]
                                    .iter()
                                    .map(|&sq| Square::new(u32::from(sq)))
                                    .collect();
                                stats.longest_win = Some((plies, squares));
                            }
                        }
                    }
                }
                stats.legal += weight;
            }
        }
        stats
    }

    /// The FEN of stored index `i` with `turn` to move (no castling, no en passant).
    pub fn fen(&self, turn: Color, i: usize) -> String {
        let squares = self.indexer.squares(i);
        let mut board = shakmaty::Board::empty();
        for (slot, &(color, role)) in self.pieces.iter().enumerate() {
            board.set_piece_at(
                Square::new(u32::from(squares[slot])),
                shakmaty::Piece { color, role },
            );
        }
        let side = if turn == Color::White { "w" } else { "b" };
        format!("{board} {side} - - 0 1")
    }

    /// The entries whose stored value is not the one their moves give, as
    /// `(side to move, stored index)` (none for a sound table); `tables` must hold
    /// every material one capture away (see [`Material::captures`]).
    pub fn inconsistent_entries(
        &self,
        tables: &HashMap<Material, DtmTable>,
    ) -> Result<Vec<(Color, usize)>, SolveError> {
        let subtables = (0..self.material.slots())
            .map(|slot| {
                (slot >= 2)
                    .then(|| {
                        let smaller = self.material.without(slot);
                        tables
                            .get(&smaller)
                            .ok_or(SolveError::Missing(smaller.name()))
                    })
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()?;
        let per_side = self.indexer.per_side();
        Ok(verify::inconsistent(self, &subtables)
            .into_iter()
            .map(|at| {
                let at = at as usize;
                if at < per_side {
                    (Color::White, at)
                } else {
                    (Color::Black, at - per_side)
                }
            })
            .collect())
    }

    /// The raw values, one byte per stored position (for caching).
    pub fn bytes(&self) -> &[u8] {
        &self.values
    }

    /// A table from raw values; `None` if the length does not fit the material.
    pub fn from_bytes(material: Material, values: Vec<u8>) -> Option<DtmTable> {
        let indexer = Indexer::new(&material);
        (values.len() == 2 * indexer.per_side()).then_some(DtmTable {
            pieces: material.pieces(),
            material,
            indexer,
            values,
        })
    }
}

/// The squares of `pieces` (index order; like pieces in board order) on `board`,
/// which holds exactly those pieces.
pub(crate) fn squares_in_order(
    board: &shakmaty::Board,
    pieces: &[(Color, Role)],
) -> [Square; MAX_PIECES] {
    let mut squares = [Square::A1; MAX_PIECES];
    let mut taken = shakmaty::Bitboard::EMPTY;
    for (slot, &(color, role)) in pieces.iter().enumerate() {
        let sq = (board.by_color(color) & board.by_role(role) & !taken)
            .first()
            .expect("material checked");
        taken.add(sq);
        squares[slot] = sq;
    }
    squares
}

/// Solves `material` into `solved` after every material one capture away.
fn solve_into(
    material: &Material,
    solved: &mut HashMap<Material, DtmTable>,
) -> Result<(), SolveError> {
    if solved.contains_key(material) {
        return Ok(());
    }
    if material.has_pawns() {
        return Err(SolveError::Pawns(material.name()));
    }
    let captures = material.captures();
    for smaller in &captures {
        solve_into(smaller, solved)?;
    }
    let subtables: Vec<Option<&DtmTable>> = (0..material.slots())
        .map(|slot| (slot >= 2).then(|| &solved[&material.without(slot)]))
        .collect();
    let rules = rules::Rules {
        pieces: material.pieces(),
        indexer: Indexer::new(material),
        subtables: &subtables,
    };
    let values = crate::retrograde::solve(&rules, &material.name())?;
    let table = DtmTable::from_bytes(material.clone(), values).expect("sized by the indexer");
    solved.insert(material.clone(), table);
    Ok(())
}

#[cfg(test)]
mod tests;
