//! The study's Table 1 for a trained knight agent.

use std::path::Path;

use anyhow::Result;
use burnmate_agents::episode::{Mode, Play, play_episode};
use burnmate_encode::knight::KnightEncoding;
use burnmate_env::environment::Environment;
use burnmate_env::knight::{KnightGame, KnightOutcome, KnightState, MOVE_LIMIT};
use burnmate_oracle::knight::knight_optimum;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::device::backend::BackendChoice;
use crate::studies::knight::model_file::{self, Learner};
use crate::studies::knight::summary::KnightEval;

/// Plays `games` evaluation games (DQN greedy, actor-critic sampling, random uniform).
pub fn evaluate(learner: &mut Learner, games: u64, seed: u64) -> KnightEval {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let agent = learner.agent();
    let mut totals = KnightEval {
        games,
        cumulative_reward: 0.0,
        legal_moves: 0.0,
        illegal_moves: 0.0,
        win_rate: 0.0,
        out_of_moves_rate: 0.0,
        captured_rate: 0.0,
    };
    let play = Play {
        mode: Mode::Evaluate,
        max_steps: u32::MAX,
    };
    for _ in 0..games {
        let start = KnightGame.reset(&mut rng);
        let mut legal = 0u32;
        let episode = play_episode(
            &KnightGame,
            &KnightEncoding,
            agent,
            start,
            play,
            &mut rng,
            |state: &KnightState, action, _| legal += u32::from(state.target(action).is_some()),
        );
        totals.cumulative_reward += episode.reward;
        totals.legal_moves += f64::from(legal);
        totals.illegal_moves += f64::from(episode.steps - legal);
        match episode.outcome {
            KnightOutcome::Check => totals.win_rate += 1.0,
            KnightOutcome::OutOfMoves => totals.out_of_moves_rate += 1.0,
            KnightOutcome::Captured => totals.captured_rate += 1.0,
            KnightOutcome::Ongoing => unreachable!("knight games end within {MOVE_LIMIT} moves"),
        }
    }
    let n = games.max(1) as f64;
    for value in [
        &mut totals.cumulative_reward,
        &mut totals.legal_moves,
        &mut totals.illegal_moves,
        &mut totals.win_rate,
        &mut totals.out_of_moves_rate,
        &mut totals.captured_rate,
    ] {
        *value /= n;
    }
    totals
}

/// Prints Table 1 for `eval` next to the study's row and the optimum.
pub fn print_table(eval: &KnightEval, study: Option<&serde_json::Value>) {
    let optimum = knight_optimum();
    let study_value = |key: &str| {
        study
            .and_then(|s| s.get(key))
            .and_then(|v| v.as_f64())
            .map_or("-".to_string(), |v| format!("{v:.3}"))
    };
    say!(
        "{:<22} {:>10} {:>10} {:>10}",
        format!("over {} games", eval.games),
        "ours",
        "study",
        "optimal"
    );
    let optimal_moves = format!("{:.3}", optimum.mean_moves);
    let rows = [
        (
            "cumulative reward",
            eval.cumulative_reward,
            "cumulative_reward",
            format!("{:.3}", optimum.mean_reward),
        ),
        (
            "legal moves",
            eval.legal_moves,
            "legal_moves",
            optimal_moves,
        ),
        (
            "illegal moves",
            eval.illegal_moves,
            "illegal_moves",
            "0.000".into(),
        ),
        (
            "win rate",
            eval.win_rate,
            "win_rate",
            format!("{:.3}", optimum.win_rate),
        ),
        (
            "out-of-moves rate",
            eval.out_of_moves_rate,
            "out_of_moves_rate",
            "-".into(),
        ),
        (
            "captured rate",
            eval.captured_rate,
            "captured_rate",
            "-".into(),
        ),
    ];
    for (label, ours, key, best) in rows {
        say!(
            "{label:<22} {ours:>10.3} {:>10} {best:>10}",
            study_value(key)
        );
    }
}

/// `burnmate eval RUN` for a knight run.
pub fn eval_command(run: &Path, games: u64, seed: u64, backend: BackendChoice) -> Result<()> {
    anyhow::ensure!(games > 0, "--games must be positive");
    let (config, mut learner) = model_file::load(run, backend.device()?.autodiff())?;
    let eval = evaluate(&mut learner, games, seed);
    say!("run {}", run.display());
    print_table(
        &eval,
        crate::studies::knight::summary::reported(config.agent).as_ref(),
    );
    Ok(())
}
