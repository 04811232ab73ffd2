//! How often the engine's own best move is DTM-optimal, the tablebase says, over
//! every answer a run consulted: how far the study's Stockfish setting is from
//! perfect play in the positions it actually visits.

use burnmate_oracle::tablebase::{Tablebase, Verdict};
use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position};

/// Engine answers consulted in positions with a forced mate, per side to move, and
/// how many of their best moves were DTM-optimal (white: a fastest mate; black: a
/// longest defence). Every consultation counts, cache hits included.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineAudit {
    /// Answers for white-to-move positions that white wins.
    pub white_asked: u64,
    /// Of those, best moves that mate fastest.
    pub white_optimal: u64,
    /// Answers for black-to-move positions that black loses.
    pub black_asked: u64,
    /// Of those, best moves that delay the mate longest.
    pub black_optimal: u64,
}

impl EngineAudit {
    /// Records the engine's `best_move` (UCI notation) in `position`; positions the
    /// tablebase does not score as a forced mate, and unparsable moves, are skipped.
    pub fn record(&mut self, tablebase: &Tablebase, position: &Chess, best_move: &str) {
        if !matches!(
            tablebase.probe_position(position),
            Some(Verdict::MateInPlies(_))
        ) {
            return;
        }
        let Some(best) = best_move
            .parse::<UciMove>()
            .ok()
            .and_then(|m| m.to_move(position).ok())
        else {
            return;
        };
        let verdicts = tablebase.move_verdicts(position);
        let Some(&(_, top)) = verdicts.first() else {
            return;
        };
        let optimal = verdicts.iter().any(|&(m, v)| m == best && v == top);
        let (asked, hits) = match position.turn() {
            Color::White => (&mut self.white_asked, &mut self.white_optimal),
            Color::Black => (&mut self.black_asked, &mut self.black_optimal),
        };
        *asked += 1;
        *hits += u64::from(optimal);
    }

    /// Both audits' counts together.
    pub fn plus(self, other: EngineAudit) -> EngineAudit {
        EngineAudit {
            white_asked: self.white_asked + other.white_asked,
            white_optimal: self.white_optimal + other.white_optimal,
            black_asked: self.black_asked + other.black_asked,
            black_optimal: self.black_optimal + other.black_optimal,
        }
    }

    /// Share (%) of white's answers that were DTM-optimal (`None`: none asked).
    pub fn white_percent(&self) -> Option<f64> {
        percent(self.white_optimal, self.white_asked)
    }

    /// Share (%) of black's answers that were DTM-optimal (`None`: none asked).
    pub fn black_percent(&self) -> Option<f64> {
        percent(self.black_optimal, self.black_asked)
    }
}

fn percent(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| 100.0 * part as f64 / whole as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use burnmate_env::endgame::Endgame;

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).expect("a legal FEN")
    }

    #[test]
    fn best_moves_are_judged_by_the_mate_distance_they_keep() {
        let tablebase = Tablebase::solve(Endgame::Krk);
        let mut audit = EngineAudit::default();
        // White mates in one with Ra8# (black king h8 boxed by the king on g6).
        let white = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        audit.record(&tablebase, &white, "a1a8");
        audit.record(&tablebase, &white, "a1a7");
        // Black, mated in any case: Kg8 is its only move (h7 is guarded by the king).
        let black = position("7k/8/6K1/8/8/8/8/R7 b - - 0 1");
        audit.record(&tablebase, &black, "h8g8");
        // An illegal answer, and a drawn position (black takes the rook), are not counted.
        audit.record(&tablebase, &white, "a1b2");
        let drawn = position("8/8/8/8/8/2k5/1R6/7K b - - 0 1");
        audit.record(&tablebase, &drawn, "c3b2");
        assert_eq!(
            audit,
            EngineAudit {
                white_asked: 2,
                white_optimal: 1,
                black_asked: 1,
                black_optimal: 1,
            }
        );
        assert_eq!(audit.white_percent(), Some(50.0));
        assert_eq!(audit.black_percent(), Some(100.0));
        assert_eq!(EngineAudit::default().white_percent(), None);
        assert_eq!(audit.plus(audit).black_asked, 2);
    }
}
