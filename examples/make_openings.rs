//! Writes `data/openings.epd`, the balanced openings `burnmate match` plays by default:
//! 4 to 8 uniformly random legal plies from the initial position, kept when a
//! full-strength Stockfish at depth 12 scores the result within ±50 centipawns (no
//! mate, the side to move not in check), each position once. Needs Stockfish; run with
//! `cargo run --release --example make_openings -- [COUNT] [SEED]`.

use std::collections::BTreeSet;

use burnmate_oracle::uci::{Score, UciEngine};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Epd;
use shakmaty::{Chess, EnPassantMode, Position};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(300), |a| a.parse())?;
    let seed: u64 = args.next().map_or(Ok(0), |a| a.parse())?;
    let mut engine = UciEngine::start("stockfish", 12)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut kept = BTreeSet::new();
    let mut lines = Vec::new();
    while lines.len() < count {
        let mut position = Chess::default();
        for _ in 0..rng.random_range(4..=8) {
            let moves = position.legal_moves();
            position.play_unchecked(moves[rng.random_range(0..moves.len())]);
        }
        if position.is_game_over() || position.is_check() {
            continue;
        }
        let epd = Epd::from_position(&position, EnPassantMode::Legal).to_string();
        if kept.contains(&epd) {
            continue;
        }
        let fen = format!("{epd} 0 1");
        if let Score::Centipawns(cp) = engine.analyse(&fen)?.score
            && cp.abs() <= 50
        {
            lines.push(format!("{epd} c0 \"{} depth 12: {cp:+} cp\";", engine.id()));
            kept.insert(epd);
        }
    }
    std::fs::write("data/openings.epd", lines.join("\n") + "\n")?;
    println!("wrote {} openings to data/openings.epd", lines.len());
    Ok(())
}
