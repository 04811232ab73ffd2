//! One game between two players from an opening, ended by the rules or adjudicated:
//! checkmate, stalemate, insufficient material, the fifty-move rule, threefold
//! repetition, burnmate's own tablebases once a lone king faces KQ, KR, KBB or KBN
//! (the side with the pieces wins where the table says it mates, else a draw), and a
//! ply cap (a draw).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use burnmate_env::endgame::{Endgame, has_material};
use burnmate_env::game_result::GameResult;
use burnmate_env::selfplay::{FullGame, GameEnd};
use burnmate_oracle::tablebase::{Tablebase, Verdict};
use burnmate_oracle::uci::UciEngine;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position};

use crate::output::pgn::fen_of;
use crate::run::tablebases::load_or_build;
use crate::tools::uci_server::{GoLimit, UciPlayer};

/// One side of a match.
pub trait Player {
    /// Called before each game.
    fn new_game(&mut self) -> Result<()>;
    /// The answer in `position`, reached by `moves` from `start`.
    fn choose(&mut self, start: &Chess, moves: &[Move], position: &Chess) -> Result<Answer>;
}

/// A player's answer: a legal move, or the text of a move that is not legal (which
/// loses the game).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A legal move.
    Legal(Move),
    /// What a UCI engine sent that names no legal move.
    Illegal(String),
}

/// A trained run, choosing among every legal move.
pub struct RunPlayer(pub Box<dyn UciPlayer>);

impl Player for RunPlayer {
    fn new_game(&mut self) -> Result<()> {
        self.0.new_game();
        Ok(())
    }

    fn choose(&mut self, start: &Chess, moves: &[Move], position: &Chess) -> Result<Answer> {
        let mut earlier = Vec::with_capacity(moves.len());
        let mut replayed = start.clone();
        for mv in moves {
            earlier.push(replayed.clone());
            replayed.play_unchecked(*mv);
        }
        self.0.see_history(&earlier);
        let legal: Vec<Move> = position.legal_moves().into_iter().collect();
        let choice = self.0.best_move(position, &legal, &GoLimit::default());
        Ok(Answer::Legal(choice.mv))
    }
}

/// A UCI engine searching each move with a fixed `go` limit.
pub struct EnginePlayer {
    /// The running engine.
    pub engine: UciEngine,
    /// The arguments of `go`, e.g. `movetime 100`.
    pub limit: String,
    /// How long a move may take before the engine is told `stop`.
    pub deadline: Duration,
}

impl Player for EnginePlayer {
    fn new_game(&mut self) -> Result<()> {
        Ok(self.engine.new_game()?)
    }

    fn choose(&mut self, start: &Chess, moves: &[Move], position: &Chess) -> Result<Answer> {
        let texts: Vec<String> = moves.iter().map(|&m| uci_text(m)).collect();
        let text = self
            .engine
            .move_after(&fen_of(start), &texts, &self.limit, self.deadline)?;
        Ok(legal_move(position, &text).map_or(Answer::Illegal(text), Answer::Legal))
    }
}

/// `mv` in UCI notation, as records and engines write it.
pub fn uci_text(mv: Move) -> String {
    UciMove::from_standard(mv).to_string()
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// The moves in UCI notation.
    pub moves: Vec<String>,
    /// Its result.
    pub result: GameResult,
    /// Why it ended, e.g. `checkmate`, `tablebase KRK`, `ply cap`.
    pub reason: String,
}

/// Ends games by burnmate's tablebases, built or loaded once and shared by the
/// match's games.
pub struct Adjudicator {
    cache_dir: PathBuf,
    tables: Mutex<HashMap<Endgame, Arc<Tablebase>>>,
}

impl Adjudicator {
    /// Tables cached in `cache_dir` (built there on first need).
    pub fn new(cache_dir: PathBuf) -> Adjudicator {
        Adjudicator {
            cache_dir,
            tables: Mutex::new(HashMap::new()),
        }
    }

    fn table(&self, endgame: Endgame) -> Result<Arc<Tablebase>> {
        let mut tables = self.tables.lock().expect("no worker panicked");
        if let Some(table) = tables.get(&endgame) {
            return Ok(table.clone());
        }
        let table = Arc::new(load_or_build(endgame, &self.cache_dir)?);
        tables.insert(endgame, table.clone());
        Ok(table)
    }

    /// The result perfect play gives `position` when it is a lone king against KQ, KR,
    /// KBB or KBN (either colour), with the endgame's name.
    pub fn verdict(&self, position: &Chess) -> Result<Option<(GameResult, &'static str)>> {
        if position.board().occupied().count() > 4 {
            return Ok(None);
        }
        for strong in [Color::White, Color::Black] {
            let seen = if strong == Color::White {
                position.clone()
            } else {
                let mut setup = position.to_setup(EnPassantMode::Legal);
                setup.mirror();
                Chess::from_setup(setup, CastlingMode::Standard)
                    .context("a mirrored legal position is legal")?
            };
            let Some(endgame) = Endgame::ALL
                .into_iter()
                .find(|&e| e.lone_king() && has_material(e, seen.board()))
            else {
                continue;
            };
            let result = match self.table(endgame)?.probe_position(&seen) {
                Some(Verdict::MateInPlies(_)) => GameResult::win_of(strong),
                Some(Verdict::Draw) => GameResult::Draw,
                _ => bail!(
                    "the {} table has no entry for a legal position",
                    endgame.name()
                ),
            };
            return Ok(Some((result, endgame.name())));
        }
        Ok(None)
    }
}

/// How the rules, then the adjudicator, then the ply cap end `game` now, if they do:
/// its result and the reason a game record gives.
fn ending(game: &FullGame, adjudicator: &Adjudicator) -> Result<Option<(GameResult, String)>> {
    match game.end() {
        Some(GameEnd::Cap) | None => {}
        Some(end) => return Ok(Some((game.result().expect("ended"), end.to_string()))),
    }
    if let Some((result, endgame)) = adjudicator.verdict(game.position())? {
        return Ok(Some((
            result,
            format!("tablebase {}", endgame.to_uppercase()),
        )));
    }
    Ok(game.end().map(|end| (GameResult::Draw, end.to_string())))
}

/// The result a recorded game's moves (UCI notation) from `start` give, judged as
/// [`play_game`] judges: an error when a move is not legal, when the moves go on
/// past the game's end or stop before it; a game ended by an illegal move (its
/// `reason`) is lost by the side to move after its moves.
pub fn rejudge(
    start: &Chess,
    moves: &[String],
    reason: &str,
    max_plies: u32,
    adjudicator: &Adjudicator,
) -> Result<GameResult> {
    let mut game = FullGame::from_position(start.clone(), max_plies);
    for (ply, text) in moves.iter().enumerate() {
        if let Some((_, why)) = ending(&game, adjudicator)? {
            bail!("its moves go on after the game ended ({why}) at ply {ply}");
        }
        let mv = legal_move(game.position(), text)
            .with_context(|| format!("move '{text}' is not legal there"))?;
        game.play(mv);
    }
    if reason.starts_with("illegal move") {
        return Ok(GameResult::win_of(!game.position().turn()));
    }
    ending(&game, adjudicator)?
        .map(|(result, _)| result)
        .context("its moves stop before the game ended")
}

/// The legal move `text` (UCI notation) names in `position`, if any.
pub fn legal_move(position: &Chess, text: &str) -> Option<Move> {
    text.parse::<UciMove>().ok()?.to_move(position).ok()
}

/// Plays `white` against `black` from `start` until the rules or the adjudicator end
/// the game, or `max_plies` plies are played (a draw). A move that is not legal
/// loses the game for the side that sent it.
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: &Chess,
    max_plies: u32,
    adjudicator: &Adjudicator,
) -> Result<PlayedGame> {
    white.new_game()?;
    black.new_game()?;
    let mut game = FullGame::from_position(start.clone(), max_plies);
    let mut moves: Vec<Move> = Vec::new();
    let ended = |moves: &[Move], result: GameResult, reason: String| {
        Ok(PlayedGame {
            moves: moves.iter().map(|&m| uci_text(m)).collect(),
            result,
            reason,
        })
    };
    loop {
        let position = game.position();
        if let Some((result, reason)) = ending(&game, adjudicator)? {
            return ended(&moves, result, reason);
        }
        let mover = position.turn();
        let player: &mut dyn Player = if mover == Color::White {
            &mut *white
        } else {
            &mut *black
        };
        let answer = player
            .choose(start, &moves, position)
            .with_context(|| format!("ply {} ({mover} to move)", moves.len() + 1))?;
        match answer {
            Answer::Legal(mv) => {
                game.play(mv);
                moves.push(mv);
            }
            Answer::Illegal(text) => {
                let reason = format!("illegal move {text} by {mover}");
                return ended(&moves, GameResult::win_of(!mover), reason);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Chess {
        burnmate_env::fen::position(fen).expect("a legal FEN")
    }

    /// Plays a fixed list of moves, then `0000`.
    struct Scripted(Vec<&'static str>);

    impl Player for Scripted {
        fn new_game(&mut self) -> Result<()> {
            Ok(())
        }
        fn choose(&mut self, _: &Chess, _: &[Move], position: &Chess) -> Result<Answer> {
            let text = if self.0.is_empty() {
                "0000"
            } else {
                self.0.remove(0)
            };
            Ok(legal_move(position, text)
                .map_or_else(|| Answer::Illegal(text.into()), Answer::Legal))
        }
    }

    fn adjudicator() -> Adjudicator {
        Adjudicator::new(crate::run::tablebases::tablebase_dir())
    }

    fn play(start: &str, white: Vec<&'static str>, black: Vec<&'static str>) -> PlayedGame {
        play_game(
            &mut Scripted(white),
            &mut Scripted(black),
            &position(start),
            40,
            &adjudicator(),
        )
        .unwrap()
    }

    #[test]
    fn fools_mate_ends_by_checkmate_for_black() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let game = play(start, vec!["f2f3", "g2g4"], vec!["e7e5", "d8h4"]);
        assert_eq!(game.result, GameResult::BlackWins);
        assert_eq!(game.reason, "checkmate");
        assert_eq!(game.moves.len(), 4);
    }

    #[test]
    fn knights_shuffling_home_draw_by_threefold_repetition() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let white = vec!["g1f3", "f3g1", "g1f3", "f3g1"];
        let black = vec!["g8f6", "f6g8", "g8f6", "f6g8"];
        let game = play(start, white, black);
        assert_eq!(game.result, GameResult::Draw);
        assert_eq!(game.reason, "threefold repetition");
        // The start occurs a third time after 8 plies.
        assert_eq!(game.moves.len(), 8);
    }

    #[test]
    fn an_illegal_move_loses_and_lone_king_endings_are_adjudicated_by_tablebase() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let game = play(start, vec!["e2e5"], vec![]);
        assert_eq!(game.result, GameResult::BlackWins);
        assert_eq!(game.reason, "illegal move e2e5 by white");
        // Black's rook against the white king: a win for black, found by mirroring.
        let game = play("8/8/8/3k4/8/8/8/r3K3 w - - 0 1", vec![], vec![]);
        assert_eq!(
            (game.result, game.reason.as_str()),
            (GameResult::BlackWins, "tablebase KRK")
        );
        // White to move takes the undefended queen next to its king: a draw.
        let game = play("8/8/8/8/8/k7/2q5/1K6 w - - 0 1", vec![], vec![]);
        assert_eq!(
            (game.result, game.reason.as_str()),
            (GameResult::Draw, "tablebase KQK")
        );
    }
}
