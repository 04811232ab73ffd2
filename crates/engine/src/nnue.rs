//! The efficiently updatable net on the host, for the search: the feature
//! transformer's sums (accumulators) for both perspectives are kept on a stack, one
//! entry a ply; a move writes the next entry in one pass, the entry below plus or
//! minus the 2-4 columns it changes (a quiet move: its piece off `from`, onto `to`; a
//! capture also takes the victim off; castling moves king and rook; en passant takes
//! the pawn beside), instead of summing all 32 pieces' columns again. The weights
//! are [`quantised`](crate::quantised) to 16-bit integers, as NNUE engines evaluate;
//! the result is `burnmate_models::Nnue`'s forward pass to the quantisation's
//! rounding:
//!
//! ```text
//! acc_p   = b1 + sum of W1's rows of the inputs set from p's side (placed by p's
//!           king: a king move that changes its view sums that side afresh)
//! k       = output_bucket(pieces on the board, B)      (B = 1: always 0)
//! out     = W2[k] . [σ(acc_us), σ(acc_them)] + b2[k]     σ: the net's activation
//! eval    = out x SCALE centipawns        (out is a logit of the win probability)
//! ```

use std::sync::Arc;

use burnmate_encode::nnue::{KingBuckets, KingView, active, feature, output_bucket};
use burnmate_weights::{Activation, LayerWeights};
use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

use super::evaluate::Evaluator;
use super::quantised::{QA, QB, QuantisedNet};

/// Centipawns per unit of the net's output (the logit scale of the training target
/// `sigmoid(centipawns / SCALE)`, as Stockfish's and bullet's trainers use).
pub const SCALE: f32 = 400.0;

/// What a net is beyond its weights: the activation of its transformer's sums and
/// where each perspective's king places its features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NnueForm {
    /// `σ`.
    pub activation: Activation,
    /// The inputs' placement by the king.
    pub king_buckets: KingBuckets,
}

/// The net on the host with its accumulator stack; a clone shares the weights and
/// copies only the stack.
#[derive(Clone, Debug)]
pub struct NnueEvaluator {
    hidden: usize,
    /// Shared read-only by every copy (the searchers of a self-play game, the
    /// threads of a search).
    weights: Arc<QuantisedNet>,
    form: NnueForm,
    /// Per ply, white's then black's accumulator (`2 hidden` values, at scale QA).
    stack: Vec<i16>,
    /// Per ply, white's and black's king views.
    views: Vec<[KingView; 2]>,
    depth: usize,
}

impl NnueEvaluator {
    /// The evaluator of host weights `[transformer, output]` (a `form.king_buckets
    /// .inputs() -> hidden` transformer and a `2 hidden -> B` output of `B` material
    /// buckets) of `form`; an error names what does not fit.
    pub fn new(layers: &[LayerWeights; 2], form: NnueForm) -> Result<NnueEvaluator, String> {
        let [transformer, output] = layers;
        let hidden = transformer.outputs;
        let buckets = output.outputs;
        let inputs = form.king_buckets.inputs();
        if transformer.inputs != inputs || output.inputs != 2 * hidden || buckets == 0 {
            return Err(format!(
                "an NNUE with {:?} king buckets needs {inputs} -> N and 2N -> B layers, not {} -> {} and {} -> {}",
                form.king_buckets,
                transformer.inputs,
                transformer.outputs,
                output.inputs,
                output.outputs
            ));
        }
        Ok(NnueEvaluator {
            hidden,
            weights: Arc::new(QuantisedNet::new(layers, form.activation)?),
            form,
            stack: vec![0; 2 * hidden],
            views: vec![[KingView::default(); 2]],
            depth: 0,
        })
    }

    /// The sums of perspective `side` (0 white, 1 black) on `board` in `view`,
    /// from scratch, written into the top entry.
    fn refresh(&mut self, board: &shakmaty::Board, side: usize, view: KingView) {
        let (hidden, width) = (self.hidden, 2 * self.hidden);
        let start = self.depth * width + side * hidden;
        let acc = &mut self.stack[start..start + hidden];
        acc.copy_from_slice(&self.weights.transformer_bias);
        let perspective = [Color::White, Color::Black][side];
        for f in active(board, perspective) {
            let input = view.input(f);
            let column = &self.weights.transformer[input * hidden..(input + 1) * hidden];
            for (a, w) in acc.iter_mut().zip(column) {
                *a += w;
            }
        }
    }

    /// The accumulators of the ply below the top, changed by `changes` (each a piece
    /// on a square added, sign 1, or removed, -1), written on top in one pass: each
    /// sum is the one below plus the changes' columns in their order (the same sums,
    /// bit for bit, as copying and then adding the columns one after another). A
    /// perspective in `skip` is left alone (refreshed instead).
    fn update(&mut self, changes: &[Change], skip: Option<usize>) {
        let (hidden, width) = (self.hidden, 2 * self.hidden);
        let views = self.views[self.depth];
        let (below, top) = self.stack.split_at_mut(self.depth * width);
        let below = &below[(self.depth - 1) * width..];
        for (side, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            if skip == Some(side) {
                continue;
            }
            let column = |&(piece, square, sign): &Change| {
                let input = views[side].input(feature(perspective, piece, square));
                (
                    &self.weights.transformer[input * hidden..(input + 1) * hidden],
                    sign,
                )
            };
            let src = &below[side * hidden..(side + 1) * hidden];
            let dst = &mut top[side * hidden..(side + 1) * hidden];
            match changes {
                [] => dst.copy_from_slice(src),
                [a, b] => {
                    let ((a, sa), (b, sb)) = (column(a), column(b));
                    for (((d, s), a), b) in dst.iter_mut().zip(src).zip(a).zip(b) {
                        *d = *s + sa * a + sb * b;
                    }
                }
                [a, b, c] => {
                    let ((a, sa), (b, sb), (c, sc)) = (column(a), column(b), column(c));
                    let columns = a.iter().zip(b).zip(c);
                    for ((d, s), ((a, b), c)) in dst.iter_mut().zip(src).zip(columns) {
                        *d = *s + sa * a + sb * b + sc * c;
                    }
                }
                [a, b, c, e] => {
                    let [(a, sa), (b, sb), (c, sc), (e, se)] = [a, b, c, e].map(column);
                    let columns = a.iter().zip(b).zip(c).zip(e);
                    for ((d, s), (((a, b), c), e)) in dst.iter_mut().zip(src).zip(columns) {
                        *d = *s + sa * a + sb * b + sc * c + se * e;
                    }
                }
                _ => unreachable!("a move changes 2-4 pieces' squares"),
            }
        }
    }

    /// The net's output for `position` from the accumulators on top, at scale
    /// `QA QB` (see [`QuantisedNet::output`]).
    fn output_of(&self, position: &Chess) -> i32 {
        let width = 2 * self.hidden;
        let top = &self.stack[self.depth * width..(self.depth + 1) * width];
        let (white, black) = top.split_at(self.hidden);
        let (us, them) = match position.turn() {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let pieces = position.board().occupied().count();
        let k = output_bucket(pieces, self.weights.buckets());
        self.weights.output(us, them, k)
    }

    /// The net's output (a logit) for `position` from the accumulators on top of the
    /// stack (those of the last [`Evaluator::root`] and the moves pushed since).
    pub fn output(&self, position: &Chess) -> f32 {
        self.output_of(position) as f32 / (QA * QB) as f32
    }
}

impl Evaluator for NnueEvaluator {
    /// `out x SCALE` centipawns, in integers (rounded toward zero).
    fn evaluate(&mut self, position: &Chess) -> i32 {
        let centipawns = i64::from(self.output_of(position)) * SCALE as i64 / i64::from(QA * QB);
        centipawns.clamp(-20_000, 20_000) as i32
    }

    fn root(&mut self, root: &Chess) {
        self.depth = 0;
        let buckets = self.form.king_buckets;
        let views = [Color::White, Color::Black].map(|p| buckets.view_of(root.board(), p));
        self.views[0] = views;
        for (side, view) in views.into_iter().enumerate() {
            self.refresh(root.board(), side, view);
        }
    }

    fn push(&mut self, position: &Chess, mv: Option<&Move>) {
        let next = (self.depth + 2) * 2 * self.hidden;
        if self.stack.len() < next {
            self.stack.resize(next, 0);
        }
        if self.views.len() < self.depth + 2 {
            self.views.push([KingView::default(); 2]);
        }
        self.views[self.depth + 1] = self.views[self.depth];
        self.depth += 1;
        let Some(mv) = mv else {
            self.update(&[], None);
            return;
        };
        let us = position.turn();
        let side = usize::from(us == Color::Black);
        // A king move may change its own side's view: that side starts afresh.
        if mv.role() == Role::King && self.form.king_buckets != KingBuckets::Plain {
            let mut after = position.clone();
            after.play_unchecked(*mv);
            let view = self.form.king_buckets.view_of(after.board(), us);
            if view != self.views[self.depth][side] {
                self.views[self.depth][side] = view;
                self.refresh(after.board(), side, view);
                self.update(changes_of(position, mv).as_slice(), Some(side));
                return;
            }
        }
        self.update(changes_of(position, mv).as_slice(), None);
    }

    fn pop(&mut self) {
        self.depth -= 1;
    }
}

/// A piece put on a square (sign 1) or taken off it (-1).
type Change = (Piece, Square, i16);

/// The 2-4 changes of a move, without a heap allocation.
struct Changes {
    items: [Change; 4],
    len: usize,
}

impl Changes {
    fn of<const N: usize>(changes: [Change; N]) -> Changes {
        let mut items = [changes[0]; 4];
        items[..N].copy_from_slice(&changes);
        Changes { items, len: N }
    }

    fn as_slice(&self) -> &[Change] {
        &self.items[..self.len]
    }
}

/// The pieces `mv` takes off (sign -1) and puts on (sign 1) in `position`: 2-4 of
/// them (a quiet move: its piece off `from`, onto `to`; a capture also takes the
/// victim off; castling moves king and rook; en passant takes the pawn beside).
fn changes_of(position: &Chess, mv: &Move) -> Changes {
    let us = position.turn();
    let piece = |color, role| Piece { color, role };
    match *mv {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            let arrives = (piece(us, promotion.unwrap_or(role)), to, 1);
            let leaves = (piece(us, role), from, -1);
            match capture {
                Some(victim) => Changes::of([leaves, (piece(!us, victim), to, -1), arrives]),
                None => Changes::of([leaves, arrives]),
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            Changes::of([
                (piece(us, Role::Pawn), from, -1),
                (piece(us, Role::Pawn), to, 1),
                (piece(!us, Role::Pawn), taken, -1),
            ])
        }
        Move::Castle { king, rook } => {
            let side = mv.castling_side().expect("a castling move");
            let rank = king.rank();
            Changes::of([
                (piece(us, Role::King), king, -1),
                (piece(us, Role::Rook), rook, -1),
                (
                    piece(us, Role::King),
                    Square::from_coords(side.king_to_file(), rank),
                    1,
                ),
                (
                    piece(us, Role::Rook),
                    Square::from_coords(side.rook_to_file(), rank),
                    1,
                ),
            ])
        }
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
}
