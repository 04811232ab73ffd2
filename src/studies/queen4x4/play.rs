//! `burnmate play`: one game of the trained policy, shown move by move beside the
//! optimal move.

use burnmate_env::environment::Outcome as _;
use std::path::Path;

use anyhow::Result;
use burnmate_env::queen4x4::{Action, Position, Queen4x4Outcome, parse_start};
use burnmate_oracle::queen4x4::Queen4x4Solution;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::device::backend::BackendChoice;
use crate::studies::queen4x4::model_file;

/// The move's name, e.g. "Qd4" or "Kb3".
fn move_name(position: &Position, action: usize) -> String {
    let after = position.play(Action::from_index(action));
    match Action::from_index(action) {
        Action::Queen { .. } => format!("Q{}", after.queen),
        Action::King { .. } => format!("K{}", after.white_king),
    }
}

/// Plays and prints one game from `start`.
pub fn play_command(run: &Path, start: &str, seed: u64, max_moves: u32) -> Result<()> {
    let mut position = parse_start(start)?;
    let mut agent = model_file::load(run, BackendChoice::Flex.device()?)?;
    let oracle = Queen4x4Solution::solve();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    say!("{position}");
    say!(
        "optimal play mates in {:.2} moves on average from here\n",
        oracle.expected_moves(&position)
    );
    for number in 1..=max_moves {
        let action = agent.greedy_action(&position);
        let best = move_name(&position, oracle.best_action(&position));
        let played = move_name(&position, action);
        let (next, outcome) = position.step(Action::from_index(action), &mut rng);
        let reply = match outcome {
            Queen4x4Outcome::Checkmate => "#  checkmate".to_string(),
            Queen4x4Outcome::Stalemate => "   stalemate (draw)".to_string(),
            Queen4x4Outcome::Ongoing => format!(" K{}", next.black_king),
        };
        say!("{number}. {played}{reply}    (optimal: {best})");
        say!("{next}\n");
        if outcome.is_terminal() {
            return Ok(());
        }
        position = next;
    }
    say!("stopped after {max_moves} moves without a result");
    Ok(())
}
