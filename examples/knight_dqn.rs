// The knight study's DQN trained and evaluated through the burnmate library, on the
// default CPU device: `cargo run --release --example knight_dqn`. Its run directory
// (config, metrics, checkpoint, summary, plots) goes under the system's temp dir.

use burnmate::run::progress::Silent;
use burnmate::studies::knight::config::KnightConfig;
use burnmate::studies::knight::train::train_run;

fn main() -> anyhow::Result<()> {
    let config = KnightConfig {
        episodes: 2_000, // the study: 20,000
        ..KnightConfig::default()
    };
    let dir = std::env::temp_dir().join(format!("burnmate-knight-dqn-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let device = config.backend.device()?.autodiff();
    let summary = train_run(&config, device, &dir, &Silent)?;
    println!(
        "{} episodes: greedy win rate {:.3} over {} games (optimal play: {:.3}); run in {}",
        config.episodes,
        summary.eval.win_rate,
        summary.eval.games,
        summary.optimal.win_rate,
        dir.display()
    );
    Ok(())
}
