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
use burnmate_oracle::xboard::{XboardEngine, XboardLimit};
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, FromSetup, Move, Position};

use crate::output::pgn::fen_of;
use crate::run::tablebases::load_or_build;
use crate::tools::uci_server::{GoLimit, UciPlayer};

/// A game's clocks: each side's time left (white's, black's) and the increment
/// each move adds, on a time control of [`TimeControl`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// Each side's time at the start.
    pub base: Duration,
    /// Time left, white's then black's.
    pub left: [Duration; 2],
    /// Added to a side's clock after each of its moves.
    pub increment: Duration,
}

impl Clocks {
    /// The limit a UCI `go` gives for these clocks.
    pub fn go_limit(&self) -> GoLimit {
        let ms = |d: Duration| Some(d.as_millis().max(1) as u64);
        GoLimit {
            clock: self.left.map(ms),
            increment: [ms(self.increment); 2],
            ..GoLimit::default()
        }
    }

    /// The arguments of UCI `go` for these clocks.
    pub fn go_args(&self) -> String {
        let ms = |d: Duration| d.as_millis().max(1);
        format!(
            "wtime {} btime {} winc {} binc {}",
            ms(self.left[0]),
            ms(self.left[1]),
            self.increment.as_millis(),
            self.increment.as_millis()
        )
    }
}

/// A time control both sides play on: `base` each, `increment` a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimeControl {
    /// Milliseconds on each clock at the start.
    pub base_ms: u64,
    /// Milliseconds added after each move.
    pub increment_ms: u64,
}

impl TimeControl {
    /// `BASE+INC` in seconds (`10+0.1`), or `BASE` alone; a one-line error names the
    /// text otherwise.
    pub fn parse(text: &str) -> Result<TimeControl> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0 && *v < 1e7)
        };
        match (seconds(base), seconds(increment)) {
            (Some(b), Some(i)) if b > 0.0 => Ok(TimeControl {
                base_ms: (b * 1000.0).round() as u64,
                increment_ms: (i * 1000.0).round() as u64,
            }),
            _ => bail!("--tc '{text}' is not BASE+INC in seconds, e.g. 10+0.1"),
        }
    }

    /// The clocks at the start of a game.
    pub fn start(&self) -> Clocks {
        Clocks {
            base: Duration::from_millis(self.base_ms),
            left: [Duration::from_millis(self.base_ms); 2],
            increment: Duration::from_millis(self.increment_ms),
        }
    }

    /// How reports write it, e.g. `10+0.1`.
    pub fn label(&self) -> String {
        format!(
            "{}+{}",
            self.base_ms as f64 / 1000.0,
            self.increment_ms as f64 / 1000.0
        )
    }
}

/// One side of a match.
pub trait Player {
    /// Called before each game.
    fn new_game(&mut self) -> Result<()>;
    /// The answer in `position`, reached by `moves` from `start`, searching within
    /// `clocks` when the game has them (else the player's own limit).
    fn choose(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        clocks: Option<&Clocks>,
    ) -> Result<Answer>;
}

/// A player's answer: a legal move, the text of a move that is not legal (which
/// loses the game), or resignation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// A legal move.
    Legal(Move),
    /// What an engine sent that names no legal move.
    Illegal(String),
    /// The engine resigned (xboard's `resign`).
    Resigned,
}

/// A trained run, choosing among every legal move.
pub struct RunPlayer(pub Box<dyn UciPlayer>);

impl Player for RunPlayer {
    fn new_game(&mut self) -> Result<()> {
        self.0.new_game();
        Ok(())
    }

    fn choose(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        clocks: Option<&Clocks>,
    ) -> Result<Answer> {
        let mut earlier = Vec::with_capacity(moves.len());
        let mut replayed = start.clone();
        for mv in moves {
            earlier.push(replayed.clone());
            replayed.play_unchecked(*mv);
        }
        self.0.see_history(&earlier);
        let legal: Vec<Move> = position.legal_moves().into_iter().collect();
        let limit = clocks.map_or_else(GoLimit::default, Clocks::go_limit);
        let choice = self.0.best_move(position, &legal, &limit);
        Ok(Answer::Legal(choice.mv))
    }
}

/// A UCI engine searching each move with a fixed `go` limit.
pub struct EnginePlayer {
    /// The running engine.
    pub engine: UciEngine,
    /// The arguments of `go`, e.g. `movetime 100`.
    pub limit: String,
    /// How long a move may take before the engine is told `stop` (on a clock: how
    /// long beyond its time left).
    pub deadline: Duration,
}

impl Player for EnginePlayer {
    fn new_game(&mut self) -> Result<()> {
        Ok(self.engine.new_game()?)
    }

    fn choose(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        clocks: Option<&Clocks>,
    ) -> Result<Answer> {
        let texts: Vec<String> = moves.iter().map(|&m| uci_text(m)).collect();
        // On a clock the engine may take its time left, then the slack.
        let (limit, deadline) = match clocks {
            Some(clocks) => {
                let left = clocks.left[usize::from(position.turn().is_black())];
                (clocks.go_args(), left + self.deadline)
            }
            None => (self.limit.clone(), self.deadline),
        };
        let text = self
            .engine
            .move_after(&fen_of(start), &texts, &limit, deadline)?;
        Ok(legal_move(position, &text).map_or(Answer::Illegal(text), Answer::Legal))
    }
}

/// An xboard engine searching each move on the game's clock, or with a fixed time
/// or depth a move.
pub struct XboardPlayer {
    /// The running engine.
    pub engine: XboardEngine,
    /// Its limit when the game has no clock (`None`: the match has one).
    pub limit: Option<XboardLimit>,
    /// How long a move may take before the engine is told `?` (on a clock: how long
    /// beyond its time left).
    pub deadline: Duration,
}

impl XboardPlayer {
    /// The xboard limit of the match's `go` arguments: `movetime MS` or `depth N`
    /// (xboard has no node limit); else a one-line error.
    pub fn limit_of(go: &str) -> Result<XboardLimit> {
        let words: Vec<&str> = go.split_whitespace().collect();
        match words[..] {
            ["movetime", ms] => Ok(XboardLimit::MoveTime(Duration::from_millis(ms.parse()?))),
            ["depth", depth] => Ok(XboardLimit::Depth(depth.parse()?)),
            _ => bail!(
                "an xboard engine plays on a clock (--tc), a movetime or a depth, not `go {go}`"
            ),
        }
    }
}

impl Player for XboardPlayer {
    fn new_game(&mut self) -> Result<()> {
        Ok(())
    }

    fn choose(
        &mut self,
        start: &Chess,
        moves: &[Move],
        position: &Chess,
        clocks: Option<&Clocks>,
    ) -> Result<Answer> {
        let texts: Vec<String> = moves.iter().map(|&m| uci_text(m)).collect();
        let side = usize::from(position.turn().is_black());
        let (limit, deadline) = match clocks {
            Some(c) => (
                XboardLimit::Clock {
                    base: c.base,
                    increment: c.increment,
                    own: c.left[side],
                    other: c.left[1 - side],
                },
                c.left[side] + self.deadline,
            ),
            None => (
                self.limit
                    .context("an xboard engine needs a clock, a movetime or a depth")?,
                self.deadline,
            ),
        };
        let text = self
            .engine
            .move_after(&fen_of(start), &texts, limit, deadline)?;
        if text == "resign" {
            return Ok(Answer::Resigned);
        }
        // Coordinates, or SAN as some engines write it (castling as O-O).
        let san = || text.parse::<San>().ok()?.to_move(position).ok();
        Ok(legal_move(position, &text)
            .or_else(san)
            .map_or(Answer::Illegal(text), Answer::Legal))
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
/// past the game's end or stop before it; a game ended by an illegal move or a
/// clock (its `reason`) is lost by the side to move after its moves.
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
    let mover = game.position().turn();
    if reason.starts_with("illegal move") || reason.ends_with("resigns") {
        return Ok(GameResult::win_of(!mover));
    }
    if reason.ends_with("loses on time") {
        return Ok(on_time(game.position(), mover));
    }
    ending(&game, adjudicator)?
        .map(|(result, _)| result)
        .context("its moves stop before the game ended")
}

/// The legal move `text` (UCI notation) names in `position`, if any.
pub fn legal_move(position: &Chess, text: &str) -> Option<Move> {
    text.parse::<UciMove>().ok()?.to_move(position).ok()
}

/// The result when `loser` runs out of time in `position`: a loss, or a draw where
/// the other side has no mating material (as FIDE rules it).
fn on_time(position: &Chess, loser: Color) -> GameResult {
    if position.has_insufficient_material(!loser) {
        GameResult::Draw
    } else {
        GameResult::win_of(!loser)
    }
}

/// Plays `white` against `black` from `start` until the rules or the adjudicator end
/// the game, or `max_plies` plies are played (a draw). A move that is not legal
/// loses the game for the side that sent it; on a time control, so does a clock
/// that runs out (a draw where the other side cannot mate).
pub fn play_game(
    white: &mut dyn Player,
    black: &mut dyn Player,
    start: &Chess,
    max_plies: u32,
    adjudicator: &Adjudicator,
    time_control: Option<TimeControl>,
) -> Result<PlayedGame> {
    let mut clocks = time_control.map(|tc| tc.start());
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
        let asked = std::time::Instant::now();
        let answer = player
            .choose(start, &moves, position, clocks.as_ref())
            .with_context(|| format!("ply {} ({mover} to move)", moves.len() + 1))?;
        if let Some(clocks) = &mut clocks {
            let side = usize::from(mover.is_black());
            let spent = asked.elapsed();
            if spent > clocks.left[side] {
                let reason = format!("{mover} loses on time");
                return ended(&moves, on_time(position, mover), reason);
            }
            clocks.left[side] = clocks.left[side] - spent + clocks.increment;
        }
        match answer {
            Answer::Legal(mv) => {
                game.play(mv);
                moves.push(mv);
            }
            Answer::Illegal(text) => {
                let reason = format!("illegal move {text} by {mover}");
                return ended(&moves, GameResult::win_of(!mover), reason);
            }
            Answer::Resigned => {
                return ended(
                    &moves,
                    GameResult::win_of(!mover),
                    format!("{mover} resigns"),
                );
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

    /// Plays a fixed list of moves, then `0000`; with a pause, sleeps that long
    /// before each move.
    struct Scripted(Vec<&'static str>, Duration);

    impl Player for Scripted {
        fn new_game(&mut self) -> Result<()> {
            Ok(())
        }
        fn choose(
            &mut self,
            _: &Chess,
            _: &[Move],
            position: &Chess,
            _: Option<&Clocks>,
        ) -> Result<Answer> {
            std::thread::sleep(self.1);
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
            &mut Scripted(white, Duration::ZERO),
            &mut Scripted(black, Duration::ZERO),
            &position(start),
            40,
            &adjudicator(),
            None,
        )
        .unwrap()
    }

    #[test]
    fn a_clock_that_runs_out_loses_unless_the_other_side_cannot_mate() {
        let tc = TimeControl::parse("0.1+0.02").unwrap();
        assert_eq!(
            tc,
            TimeControl {
                base_ms: 100,
                increment_ms: 20
            }
        );
        assert_eq!(tc.label(), "0.1+0.02");
        assert_eq!(TimeControl::parse("60").unwrap().increment_ms, 0);
        for bad in ["", "0+1", "x+1", "10+-1", "inf"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // Black spends 40 ms a move on 100 ms + 20 ms: it loses 20 ms a move, and
        // its clock falls within its first five moves.
        let moves = |n| ["g1f3", "f3g1"].into_iter().cycle().take(n).collect();
        let black_moves = ["g8f6", "f6g8"].into_iter().cycle().take(10).collect();
        let game = play_game(
            &mut Scripted(moves(10), Duration::ZERO),
            &mut Scripted(black_moves, Duration::from_millis(40)),
            &position(start),
            40,
            &adjudicator(),
            Some(tc),
        )
        .unwrap();
        assert_eq!(game.result, GameResult::WhiteWins);
        assert_eq!(game.reason, "black loses on time");
        assert!(
            game.moves.len() < 10 && game.moves.len() % 2 == 1,
            "{:?}",
            game.moves
        );
        // A king alone cannot mate: its opponent's flag falls to a draw.
        let game = play_game(
            &mut Scripted(vec![], Duration::from_millis(150)),
            &mut Scripted(vec![], Duration::ZERO),
            &position("8/8/8/3k4/8/8/P7/R3K3 w - - 0 1"),
            40,
            &adjudicator(),
            Some(tc),
        );
        let game = game.unwrap();
        assert_eq!(
            (game.result, game.reason.as_str()),
            (GameResult::Draw, "white loses on time")
        );
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
