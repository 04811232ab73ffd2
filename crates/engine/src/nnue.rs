//! The efficiently updatable net on the host, for the search: the feature
//! transformer's sums (accumulators) for both perspectives are kept on a stack, one
//! entry a ply; a move writes the next entry in one pass, the entry below plus or
//! minus the 2-4 columns it changes (a quiet move: its piece off `from`, onto `to`; a
//! capture also takes the victim off; castling moves king and rook; en passant takes
//! the pawn beside), instead of summing all 32 pieces' columns again. Same weights, same sums as
//! `burnmate_models::Nnue`'s forward pass (within f32 rounding):
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

/// The net's weights as the evaluator reads them, shared read-only by every copy
/// of an evaluator (the searchers of a self-play game, the threads of a search).
#[derive(Debug)]
struct HostWeights {
    /// `[inputs, hidden]`, row-major: the column of an input is a row here.
    transformer: Vec<f32>,
    transformer_bias: Vec<f32>,
    /// Per output bucket `[2 hidden]`, the side to move's half first.
    output: Vec<Vec<f32>>,
    output_bias: Vec<f32>,
}

/// The net on the host with its accumulator stack; a clone shares the weights and
/// copies only the stack.
#[derive(Clone, Debug)]
pub struct NnueEvaluator {
    hidden: usize,
    weights: Arc<HostWeights>,
    form: NnueForm,
    /// Per ply, white's then black's accumulator (`2 hidden` values).
    stack: Vec<f32>,
    /// Per ply, white's and black's king views.
    views: Vec<[KingView; 2]>,
    depth: usize,
}

impl NnueEvaluator {
    /// The evaluator of host weights `[transformer, output]` (a `form.king_buckets
    /// .inputs() -> hidden` transformer and a `2 hidden -> B` output of `B` material
    /// buckets) of `form`.
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
        // `[2 hidden, B]` row-major, a bucket a column: one row a bucket here.
        let bucket_row = |k: usize| output.weight.iter().skip(k).step_by(buckets).copied();
        Ok(NnueEvaluator {
            hidden,
            weights: Arc::new(HostWeights {
                transformer: transformer.weight.clone(),
                transformer_bias: transformer.bias.clone(),
                output: (0..buckets).map(|k| bucket_row(k).collect()).collect(),
                output_bias: output.bias.clone(),
            }),
            form,
            stack: vec![0.0; 2 * hidden],
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

    /// The net's output (a logit) for `position` from the accumulators on top.
    fn output_of(&self, position: &Chess) -> f32 {
        let width = 2 * self.hidden;
        let top = &self.stack[self.depth * width..(self.depth + 1) * width];
        let (white, black) = top.split_at(self.hidden);
        let (us, them) = match position.turn() {
            Color::White => (white, black),
            Color::Black => (black, white),
        };
        let pieces = position.board().occupied().count();
        let k = output_bucket(pieces, self.weights.output.len());
        let (w_us, w_them) = self.weights.output[k].split_at(self.hidden);
        let dot = |acc, w| dot_activated(acc, w, self.form.activation);
        self.weights.output_bias[k] + dot(us, w_us) + dot(them, w_them)
    }

    /// The net's output for `position` from the accumulators on top of the stack
    /// (those of the last [`Evaluator::root`] and the moves pushed since).
    pub fn output(&self, position: &Chess) -> f32 {
        self.output_of(position)
    }
}

impl Evaluator for NnueEvaluator {
    fn evaluate(&mut self, position: &Chess) -> i32 {
        (self.output_of(position) * SCALE)
            .round()
            .clamp(-20_000.0, 20_000.0) as i32
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
            self.stack.resize(next, 0.0);
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
type Change = (Piece, Square, f32);

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
            let arrives = (piece(us, promotion.unwrap_or(role)), to, 1.0);
            let leaves = (piece(us, role), from, -1.0);
            match capture {
                Some(victim) => Changes::of([leaves, (piece(!us, victim), to, -1.0), arrives]),
                None => Changes::of([leaves, arrives]),
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            Changes::of([
                (piece(us, Role::Pawn), from, -1.0),
                (piece(us, Role::Pawn), to, 1.0),
                (piece(!us, Role::Pawn), taken, -1.0),
            ])
        }
        Move::Castle { king, rook } => {
            let side = mv.castling_side().expect("a castling move");
            let rank = king.rank();
            Changes::of([
                (piece(us, Role::King), king, -1.0),
                (piece(us, Role::Rook), rook, -1.0),
                (
                    piece(us, Role::King),
                    Square::from_coords(side.king_to_file(), rank),
                    1.0,
                ),
                (
                    piece(us, Role::Rook),
                    Square::from_coords(side.rook_to_file(), rank),
                    1.0,
                ),
            ])
        }
        Move::Put { .. } => unreachable!("no drops in chess"),
    }
}

/// Lanes of [`dot_activated`]'s partial sums: a fixed order the compiler can keep in
/// vector registers (a plain sum of floats must add one term after another), so the
/// same bits on any x86-64 CPU.
const LANES: usize = 16;

/// `sum σ(acc_i) w_i`, summed in [`LANES`] partial sums (term `i` in lane `i mod
/// LANES`, the terms past the last full block of lanes after them), the lanes then
/// added in order.
fn dot_activated(acc: &[f32], w: &[f32], activation: Activation) -> f32 {
    match activation {
        Activation::Crelu => dot_in_lanes(acc, w, |a| a.clamp(0.0, 1.0)),
        Activation::Screlu => dot_in_lanes(acc, w, |a| {
            let c = a.clamp(0.0, 1.0);
            c * c
        }),
    }
}

/// `sum σ(acc_i) w_i` in [`LANES`] partial sums, `σ` inlined into the loop.
#[inline(always)]
fn dot_in_lanes(acc: &[f32], w: &[f32], sigma: impl Fn(f32) -> f32) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let blocks = acc.chunks_exact(LANES).zip(w.chunks_exact(LANES));
    for (a, w) in blocks {
        for ((lane, a), w) in lanes.iter_mut().zip(a).zip(w) {
            *lane += sigma(*a) * w;
        }
    }
    let tail = acc.len() - acc.len() % LANES;
    let rest = acc[tail..].iter().zip(&w[tail..]);
    let lanes_sum = lanes.iter().sum::<f32>();
    rest.fold(lanes_sum, |sum, (a, w)| sum + sigma(*a) * w)
}

#[cfg(test)]
mod tests {
    use super::{Activation, dot_activated};

    #[test]
    fn the_activated_dot_product_sums_every_term_in_its_lanes() {
        // 16 lanes of (0.5 x 2) and 3 tail terms: a clamped 2.0 x 1, a clamped -1 x 5,
        // 0.25 x 4.
        let mut acc = vec![0.5f32; 16];
        let mut w = vec![2.0f32; 16];
        acc.extend([2.0, -1.0, 0.25]);
        w.extend([1.0, 5.0, 4.0]);
        assert_eq!(
            dot_activated(&acc, &w, Activation::Crelu),
            16.0 + 1.0 + 0.0 + 1.0
        );
        // Squared: 16 x 0.25 x 2, 1 x 1, 0, 0.0625 x 4.
        assert_eq!(
            dot_activated(&acc, &w, Activation::Screlu),
            8.0 + 1.0 + 0.0 + 0.25
        );
        let acc: Vec<f32> = (0..130).map(|i| (i as f32 * 0.37).sin() * 1.5).collect();
        let w: Vec<f32> = (0..130).map(|i| (i as f32 * 0.11).cos()).collect();
        for activation in [Activation::Crelu, Activation::Screlu] {
            let plain: f32 = acc
                .iter()
                .zip(&w)
                .map(|(a, w)| activation.apply(*a) * w)
                .sum();
            assert!((dot_activated(&acc, &w, activation) - plain).abs() < 1e-5);
        }
    }
}
