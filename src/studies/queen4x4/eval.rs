//! Greedy evaluation of a trained queen4x4 agent.

use std::path::Path;

use anyhow::Result;
use burnmate_agents::luo::LuoAgent;
use burnmate_env::queen4x4::{Action, Queen4x4Outcome, random_start};
use burnmate_oracle::queen4x4::Queen4x4Solution;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::device::backend::BackendChoice;
use crate::studies::queen4x4::config::Queen4x4Config;
use crate::studies::queen4x4::model_file;
use crate::studies::queen4x4::summary::EvalReport;

/// Plays `games` games from the study's starts with the greedy policy, each capped
/// at `max_moves` white moves.
pub fn evaluate(agent: &mut LuoAgent, games: u64, max_moves: u32, seed: u64) -> EvalReport {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut wins, mut draws, mut capped, mut moves_sum) = (0u64, 0u64, 0u64, 0u64);
    for _ in 0..games {
        let mut position = random_start(&mut rng);
        let mut moves = 0;
        loop {
            let action = agent.greedy_action(&position);
            let (next, outcome) = position.step(Action::from_index(action), &mut rng);
            moves += 1;
            match outcome {
                Queen4x4Outcome::Checkmate => wins += 1,
                Queen4x4Outcome::Stalemate => draws += 1,
                Queen4x4Outcome::Ongoing if moves == max_moves => capped += 1,
                Queen4x4Outcome::Ongoing => {
                    position = next;
                    continue;
                }
            }
            break;
        }
        moves_sum += u64::from(moves);
    }
    let share = |n: u64| n as f64 / games.max(1) as f64;
    EvalReport {
        games,
        win_rate: share(wins),
        draw_rate: share(draws),
        capped_rate: share(capped),
        mean_moves: share(moves_sum),
    }
}

/// `burnmate eval RUN`: prints the greedy policy's results next to the optimum, each
/// game capped at the run's `eval_max_moves`.
pub fn eval_command(
    run: &Path,
    config: &Queen4x4Config,
    games: u64,
    seed: u64,
    backend: BackendChoice,
) -> Result<()> {
    anyhow::ensure!(games > 0, "--games must be positive");
    let mut agent = model_file::load(run, backend.device()?)?;
    let cap = config.eval_max_moves;
    let report = evaluate(&mut agent, games, cap, seed);
    let optimum = Queen4x4Solution::solve().optimum();
    say!("run        {}", run.display());
    say!("games      {}", report.games);
    say!("             {:>10} {:>10}", "agent", "optimal");
    say!(
        "win rate     {:>10.4} {:>10.4}",
        report.win_rate,
        optimum.win_rate
    );
    say!(
        "draw rate    {:>10.4} {:>10.4}",
        report.draw_rate,
        1.0 - optimum.win_rate
    );
    say!(
        "mean moves   {:>10.4} {:>10.4}",
        report.mean_moves,
        optimum.mean_moves
    );
    if report.capped_rate > 0.0 {
        say!("capped at {cap} moves: {:.4}", report.capped_rate);
    }
    Ok(())
}
