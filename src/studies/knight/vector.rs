//! Vectorised DQN training of the knight study: `envs` puzzles stepped together
//! through the library's [`Vectorised`] loop; metrics per episode, numbered in the
//! order episodes finish.

use anyhow::Result;
use burnmate_agents::dqn::Dqn;
use burnmate_agents::vector::Vectorised;
use burnmate_encode::knight::KnightEncoding;
use burnmate_env::environment::Outcome as _;
use burnmate_env::knight::{KnightGame, KnightOutcome, KnightState};
use rand_chacha::ChaCha8Rng;

use crate::run::metrics::{EpisodeRow, MetricsRecorder};
use crate::run::progress::Progress;
use crate::studies::knight::config::KnightConfig;

/// Trains `dqn` for `config.episodes` episodes over `config.envs` environments.
pub fn train_vectorised(
    config: &KnightConfig,
    dqn: &mut Dqn,
    rng: &mut ChaCha8Rng,
    metrics: &mut MetricsRecorder,
    progress: &dyn Progress,
) -> Result<()> {
    let vectorised = Vectorised {
        env: &KnightGame,
        encoder: &KnightEncoding,
        envs: config.envs,
        episodes: config.episodes,
    };
    vectorised.train(
        dqn,
        |finished| config.epsilon.at(finished),
        rng,
        |legal: &mut u32, state: &KnightState, action, _| {
            *legal += u32::from(state.target(action).is_some())
        },
        |n, episode, legal, epsilon| {
            metrics.record(
                EpisodeRow {
                    episode: n,
                    reward: episode.reward,
                    moves: episode.steps,
                    outcome: episode.outcome.name(),
                    epsilon,
                    won: episode.outcome == KnightOutcome::Check,
                },
                &[f64::from(legal), f64::from(episode.steps - legal)],
            )?;
            progress.advance(1);
            Ok(())
        },
    )
}
