//! The afterstate learner's rewards: material won, and a mate worth more than any
//! material.

use burnmate_env::selfplay::{GameEnd, material_value};
use shakmaty::{Board, Color, Move, Role};

/// Reward per pawn of material won.
pub const PAWN: f32 = 0.1;
/// Reward of a mating move (more than a queen and a rook).
pub const MATE: f32 = 2.0;

/// The reward of move `m` to its mover, given how the game ends after it: [`MATE`]
/// for a mate, else the material it wins (capture plus promotion gain) times
/// [`PAWN`].
pub fn move_reward(m: &Move, end: Option<GameEnd>) -> f32 {
    if end == Some(GameEnd::Checkmate) {
        return MATE;
    }
    let captured = m.capture().map_or(0.0, material_value);
    let promoted = m.promotion().map_or(0.0, |role| {
        material_value(role) - material_value(Role::Pawn)
    });
    (captured + promoted) * PAWN
}

/// Whether the value of the position after a move counts: the game goes on, or
/// was only cut off by the ply cap.
pub fn bootstraps(end: Option<GameEnd>) -> bool {
    matches!(end, None | Some(GameEnd::Cap))
}

/// Material of `color` on `board` in pawns (kings not counted).
pub fn material(board: &Board, color: Color) -> f32 {
    board
        .by_color(color)
        .into_iter()
        .filter_map(|sq| board.role_at(sq))
        .filter(|&role| role != Role::King)
        .map(material_value)
        .sum()
}
