//! Playing a trained afterstate learner against fixed opponents: the fixed movers,
//! the sample games' PGN, and `burnmate eval RUN` with its Stockfish rows.

use std::path::Path;

use anyhow::Result;
use burnmate_agents::afterstate::evaluate::{
    EvaluationGame, EvaluationScore, LearnerResult, play_against, score,
};
use burnmate_agents::afterstate::trainer::AfterstateLearner;
use burnmate_agents::selfplay::choice::selectable_moves;
use burnmate_agents::selfplay::trainer::{Mover, mover_choice};
use burnmate_env::selfplay::GameEnd;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color};

use crate::device::backend::BackendChoice;
use crate::output::pgn::game_pgn;
use crate::studies::selfplay::afterstate_file::load_run;
use crate::studies::selfplay::config::SelfplayConfig;
use crate::studies::selfplay::stockfish::StockfishMover;

/// Evaluation games played side by side through the network.
pub(crate) const EVAL_BATCH: usize = 100;

/// `burnmate eval RUN` for an afterstate run: `games` games against the random and
/// the greedy mover and against Stockfish at each of `skills`, printed as a table.
pub fn eval_command(
    run: &Path,
    games: u64,
    seed: u64,
    backend: BackendChoice,
    skills: &[u8],
) -> Result<()> {
    let (config, learner) = load_run(run, Some(backend))?;
    let cap = config.afterstate().eval_max_plies;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    say!("| opponent | games | score | won (by mate) | drawn | lost | mean plies |");
    say!("|---|---:|---:|---:|---:|---:|---:|");
    let row = |name: String, s: EvaluationScore| {
        say!(
            "| {name} | {} | {:.3} | {} ({}) | {} | {} | {:.1} |",
            s.games,
            s.score,
            s.wins,
            s.mates,
            s.draws,
            s.losses,
            s.mean_plies
        );
    };
    for mover in [Mover::Random, Mover::Greedy] {
        let outcomes = play_fixed_mover(&learner, mover, games, cap, &mut rng);
        row(format!("{mover:?} mover").to_lowercase(), score(&outcomes));
    }
    for &skill in skills {
        let settings = SelfplayConfig {
            stockfish_skill: skill,
            ..config.clone()
        };
        settings.validate()?;
        let mut engine = StockfishMover::start(&settings)?;
        let outcomes = play_against(&learner, games, cap, EVAL_BATCH, |p| engine.choose(p))?;
        let name = format!("Stockfish skill {skill}, depth {}", config.stockfish_depth);
        row(name, score(&outcomes));
    }
    Ok(())
}

/// `games` games of `learner` against a fixed mover.
pub(crate) fn play_fixed_mover(
    learner: &AfterstateLearner,
    mover: Mover,
    games: u64,
    cap: u32,
    rng: &mut ChaCha8Rng,
) -> Vec<EvaluationGame> {
    let never: Result<_, std::convert::Infallible> =
        play_against(learner, games, cap, EVAL_BATCH, |position| {
            let moves = selectable_moves(position);
            Ok(moves[mover_choice(mover, position, &moves, rng)].mv)
        });
    never.unwrap_or_else(|e| match e {})
}

/// An evaluation game as a PGN entry.
pub(crate) fn evaluation_pgn(after_games: u64, opponent: &str, o: &EvaluationGame) -> String {
    let event = format!("burnmate afterstate-td after {after_games} games vs {opponent}");
    let verdict = match o.verdict() {
        LearnerResult::Win => "learner wins",
        LearnerResult::Draw => "draw",
        LearnerResult::Loss => "learner loses",
    };
    let adjudication = format!("{} ({verdict}, material lead {:+})", o.end.name(), o.lead);
    let (white, black) = match o.agent {
        Color::White => ("afterstate-td", opponent),
        Color::Black => (opponent, "afterstate-td"),
    };
    let result = match o.winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None if o.end == GameEnd::Cap => "*",
        None => "1/2-1/2",
    };
    let tags = [
        ("Event", event.as_str()),
        ("White", white),
        ("Black", black),
        ("Termination", adjudication.as_str()),
    ];
    game_pgn(&tags, &Chess::default(), &o.moves, result)
}
