//! The efficiently updatable net on the host, for the search: the feature
//! transformer's sums (accumulators) for both perspectives are kept on a stack, one
//! entry a ply; a move copies the top entry and adds or subtracts the 2-4 columns it
//! changes (a quiet move: its piece off `from`, onto `to`; a capture also takes the
//! victim off; castling moves king and rook; en passant takes the pawn beside),
//! instead of summing all 32 pieces' columns again. Same weights, same sums as
//! [`burnmate_models::Nnue`]'s forward pass (within f32 rounding):
//!
//! ```text
//! acc_p   = b1 + sum of W1's rows of the features set from p's side
//! out     = w2 . [clamp(acc_us, 0, 1), clamp(acc_them, 0, 1)] + b2
//! eval    = out x SCALE centipawns        (out is a logit of the win probability)
//! ```

use burnmate_encode::nnue::{INPUTS, active, feature};
use burnmate_models::LayerWeights;
use shakmaty::{Chess, Color, Move, Piece, Position, Role, Square};

use super::evaluate::Evaluator;

/// Centipawns per unit of the net's output (the logit scale of the training target
/// `sigmoid(centipawns / SCALE)`, as Stockfish's and bullet's trainers use).
pub const SCALE: f32 = 400.0;

/// The net on the host with its accumulator stack.
#[derive(Clone, Debug)]
pub struct NnueEvaluator {
    hidden: usize,
    /// `[INPUTS, hidden]`, row-major: the column of a feature is a row here.
    transformer: Vec<f32>,
    transformer_bias: Vec<f32>,
    /// `[2 hidden]`: the side to move's half first.
    output: Vec<f32>,
    output_bias: f32,
    /// Per ply, white's then black's accumulator (`2 hidden` values).
    stack: Vec<f32>,
    depth: usize,
}

impl NnueEvaluator {
    /// The evaluator of host weights `[transformer, output]` (an `INPUTS -> hidden`
    /// transformer and a `2 hidden -> 1` output).
    pub fn new(layers: &[LayerWeights; 2]) -> Result<NnueEvaluator, String> {
        let [transformer, output] = layers;
        let hidden = transformer.outputs;
        if transformer.inputs != INPUTS || output.inputs != 2 * hidden || output.outputs != 1 {
            return Err(format!(
                "an NNUE needs {INPUTS} -> N and 2N -> 1 layers, not {} -> {} and {} -> {}",
                transformer.inputs, transformer.outputs, output.inputs, output.outputs
            ));
        }
        Ok(NnueEvaluator {
            hidden,
            transformer: transformer.weight.clone(),
            transformer_bias: transformer.bias.clone(),
            output: output.weight.clone(),
            output_bias: output.bias[0],
            stack: vec![0.0; 2 * hidden],
            depth: 0,
        })
    }

    fn top(&mut self) -> &mut [f32] {
        let width = 2 * self.hidden;
        &mut self.stack[self.depth * width..(self.depth + 1) * width]
    }

    /// Adds (`sign` 1) or removes (-1) `piece` on `square` in both accumulators.
    fn change(&mut self, piece: Piece, square: Square, sign: f32) {
        let hidden = self.hidden;
        for (side, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            let f = feature(perspective, piece, square);
            let (stack, weights) = (&mut self.stack, &self.transformer);
            let start = self.depth * 2 * hidden + side * hidden;
            let column = &weights[f * hidden..(f + 1) * hidden];
            for (acc, w) in stack[start..start + hidden].iter_mut().zip(column) {
                *acc += sign * w;
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
        let (w_us, w_them) = self.output.split_at(self.hidden);
        let dot = |acc: &[f32], w: &[f32]| -> f32 {
            acc.iter().zip(w).map(|(a, w)| a.clamp(0.0, 1.0) * w).sum()
        };
        self.output_bias + dot(us, w_us) + dot(them, w_them)
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
        let hidden = self.hidden;
        let bias = self.transformer_bias.clone();
        let top = self.top();
        top[..hidden].copy_from_slice(&bias);
        top[hidden..].copy_from_slice(&bias);
        for (side, perspective) in [Color::White, Color::Black].into_iter().enumerate() {
            for f in active(root.board(), perspective).collect::<Vec<_>>() {
                let column = &self.transformer[f * hidden..(f + 1) * hidden];
                let start = side * hidden;
                for (acc, w) in self.stack[start..start + hidden].iter_mut().zip(column) {
                    *acc += w;
                }
            }
        }
    }

    fn push(&mut self, position: &Chess, mv: Option<&Move>) {
        let width = 2 * self.hidden;
        let next = (self.depth + 2) * width;
        if self.stack.len() < next {
            self.stack.resize(next, 0.0);
        }
        self.stack.copy_within(
            self.depth * width..(self.depth + 1) * width,
            (self.depth + 1) * width,
        );
        self.depth += 1;
        let Some(mv) = mv else { return };
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
                self.change(piece(us, role), from, -1.0);
                if let Some(victim) = capture {
                    self.change(piece(!us, victim), to, -1.0);
                }
                self.change(piece(us, promotion.unwrap_or(role)), to, 1.0);
            }
            Move::EnPassant { from, to } => {
                self.change(piece(us, Role::Pawn), from, -1.0);
                self.change(piece(us, Role::Pawn), to, 1.0);
                let taken = Square::from_coords(to.file(), from.rank());
                self.change(piece(!us, Role::Pawn), taken, -1.0);
            }
            Move::Castle { king, rook } => {
                let side = mv.castling_side().expect("a castling move");
                let rank = king.rank();
                self.change(piece(us, Role::King), king, -1.0);
                self.change(piece(us, Role::Rook), rook, -1.0);
                self.change(
                    piece(us, Role::King),
                    Square::from_coords(side.king_to_file(), rank),
                    1.0,
                );
                self.change(
                    piece(us, Role::Rook),
                    Square::from_coords(side.rook_to_file(), rank),
                    1.0,
                );
            }
            Move::Put { .. } => unreachable!("no drops in chess"),
        }
    }

    fn pop(&mut self) {
        self.depth -= 1;
    }
}
