//! A training game of either selfplay learner as the run records it: its metrics row,
//! its ending tally and its PGN entry.

use burnmate_agents::selfplay::trainer::GameRecord;
use burnmate_env::selfplay::GameEnd;
use shakmaty::{Chess, Color};

use crate::output::pgn::game_pgn;
use crate::run::metrics::EpisodeRow;

/// The metrics row of training game `n` (0-based): white's reward, plies, ending.
pub fn game_row(n: u64, record: &GameRecord, epsilon: f64) -> EpisodeRow {
    let outcome = match (record.end, record.winner) {
        (GameEnd::Checkmate, Some(Color::White)) => "white-mates",
        (GameEnd::Checkmate, _) => "black-mates",
        (end, _) => end.name(),
    };
    EpisodeRow {
        episode: n,
        reward: f64::from(record.rewards[0]),
        moves: record.plies,
        outcome,
        epsilon,
        won: record.winner == Some(Color::White),
    }
}

/// Counts one game ending `outcome` in `endings`.
pub fn count_ending(endings: &mut Vec<(String, f64)>, outcome: &str) {
    match endings.iter_mut().find(|(name, _)| name == outcome) {
        Some((_, count)) => *count += 1.0,
        None => endings.push((outcome.to_string(), 1.0)),
    }
}

/// Training game `n` (0-based) as a PGN entry, with the players' names.
pub fn training_pgn(n: u64, record: &GameRecord, players: [&str; 2]) -> String {
    let round = (n + 1).to_string();
    let tags = [
        ("Event", "burnmate selfplay training"),
        ("Round", round.as_str()),
        ("White", players[0]),
        ("Black", players[1]),
        ("Termination", record.end.name()),
    ];
    game_pgn(&tags, &Chess::default(), &record.moves, pgn_result(record))
}

fn pgn_result(record: &GameRecord) -> &'static str {
    match record.winner {
        Some(Color::White) => "1-0",
        Some(Color::Black) => "0-1",
        None if record.end == GameEnd::Cap => "*",
        None => "1/2-1/2",
    }
}
