//! `burnmate uci RUN`: a trained run as a UCI engine on stdin/stdout, so any chess
//! GUI, match runner or lichess bot bridge can play it.
//!
//! Understood: `uci`, `isready`, `ucinewgame`, `position startpos|fen FEN [moves
//! ...]` (any legal move, under-promotions included), `go` (every argument accepted;
//! `nodes` sets a search net's simulations or an alpha-beta afterstate net's
//! positions, `depth` lowers an afterstate net's plies or alpha-beta depth; a search
//! net and an alpha-beta afterstate net also stop at `movetime`, or at their share of the clock
//! (`wtime`/`btime` over `movestogo`, 30 if not given, plus 3/4 of the increment,
//! at most 3/4 of the clock); other players answer within their own budget; after
//! `go infinite` or `go ponder`
//! the `bestmove` waits for `stop` or `ponderhit`, as the protocol asks; `go
//! searchmoves ...` restricts the answer to the listed legal moves), `stop`,
//! `ponderhit`, `quit`. Anything else is
//! ignored, as the protocol asks. A move that is not legal, or a malformed FEN,
//! is reported as `info string error: ...`; the moves before a bad move are kept (as
//! Stockfish keeps them), and after a setup that is no position `go` answers
//! `bestmove 0000` until the next `position`. With no
//! legal move the answer is `bestmove 0000`.

pub mod endgame_tables;
pub mod players;
pub mod syzygy;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};

/// A policy that picks a move.
pub trait UciPlayer: Send {
    /// The engine's name for `id name`.
    fn name(&self) -> String;
    /// The move to play in `position` among `among` (legal, not empty: every legal
    /// move, or those of `go searchmoves`), within `limit` where the player searches.
    fn best_move(&mut self, position: &Chess, among: &[Move], limit: &GoLimit) -> Choice;
    /// The game's positions before the one [`UciPlayer::best_move`] is next asked
    /// about, oldest first (a player that searches avoids or seeks repetitions).
    fn see_history(&mut self, _earlier: &[Chess]) {}
    /// A new game starts (a player with a transposition table clears it).
    fn new_game(&mut self) {}
    /// The flag UCI's `stop` raises while [`UciPlayer::best_move`] runs; a player
    /// that searches ends its search when it is set.
    fn set_stop(&mut self, _stop: Arc<AtomicBool>) {}
    /// The `option name ... type ...` lines the player declares after its `id`.
    fn options(&self) -> Vec<String> {
        Vec::new()
    }
    /// `setoption name NAME value VALUE` (NAME as declared, any case); the error says
    /// why the value is not taken.
    fn set_option(&mut self, name: &str, _value: &str) -> Result<(), String> {
        Err(format!("no option named '{name}'"))
    }
}

/// The name and value of `setoption`'s arguments `name NAME [value VALUE]` (a
/// button has no value: empty).
pub fn parse_setoption(args: &str) -> Option<(&str, &str)> {
    let rest = args.strip_prefix("name ")?;
    Some(match rest.split_once(" value ") {
        Some((name, value)) => (name.trim(), value.trim()),
        None => (rest.trim(), ""),
    })
}

/// The limits of a `go` command a searching player honours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoLimit {
    /// `go nodes N`: a search net's simulations, an alpha-beta player's positions.
    pub nodes: Option<u64>,
    /// `go depth N`: an afterstate net's plies (at most its `--plies`), or its
    /// alpha-beta depth.
    pub depth: Option<u32>,
    /// `go movetime N`: milliseconds for this move.
    pub movetime: Option<u64>,
    /// `wtime`, `btime`: each side's clock in milliseconds.
    pub clock: [Option<u64>; 2],
    /// `winc`, `binc`: each side's increment in milliseconds.
    pub increment: [Option<u64>; 2],
    /// `movestogo`: moves until the next time control.
    pub moves_to_go: Option<u64>,
    /// `infinite` or `ponder`: search until `stop`.
    pub infinite: bool,
}

/// Moves the clock is shared over when `go` gives no `movestogo`.
pub const DEFAULT_MOVES_TO_GO: u64 = 30;

impl GoLimit {
    /// The limits in `go`'s arguments (a malformed or zero number is ignored).
    pub fn parse(args: &str) -> GoLimit {
        let words: Vec<&str> = args.split_whitespace().collect();
        let after = |key: &str| {
            let at = words.iter().position(|w| *w == key)?;
            words.get(at + 1)?.parse::<u64>().ok().filter(|&n| n > 0)
        };
        GoLimit {
            nodes: after("nodes"),
            depth: after("depth").map(|d| u32::try_from(d).unwrap_or(u32::MAX)),
            movetime: after("movetime"),
            clock: [after("wtime"), after("btime")],
            increment: [after("winc"), after("binc")],
            moves_to_go: after("movestogo"),
            infinite: words.iter().any(|w| *w == "infinite" || *w == "ponder"),
        }
    }

    /// The time the side `white` (or black) to move may spend on this move:
    /// `movetime`, else its clock over `movestogo` plus 3/4 of its increment, at
    /// most 3/4 of its clock; `None` without either.
    pub fn time_for(&self, white: bool) -> Option<Duration> {
        if let Some(ms) = self.movetime {
            return Some(Duration::from_millis(ms));
        }
        let side = usize::from(!white);
        let clock = self.clock[side]?;
        let share = clock / self.moves_to_go.unwrap_or(DEFAULT_MOVES_TO_GO)
            + self.increment[side].unwrap_or(0) * 3 / 4;
        Some(Duration::from_millis(share.min(clock * 3 / 4)))
    }
}

/// A player's move, the number it chose it by, and a note for the GUI.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move.
    pub mv: Move,
    /// The agent's own value of the move for the side to move, in its units (the
    /// afterstate net: pawns; a Q-table: its reward; the study's selectors: their
    /// combined score); `None` where the policy has none (a random move).
    pub value: Option<f64>,
    /// Said to the GUI as `info string` when the policy does not cover the position.
    pub note: Option<String>,
    /// Positions the agent evaluated to choose (UCI `nodes`).
    pub nodes: u64,
    /// Plies searched (UCI `depth`; 1 for a policy that looks one move ahead).
    pub depth: u32,
    /// What a search found beyond the move: its principal variation and mate
    /// distance (`None` for a policy that keeps no line).
    pub line: Option<SearchLine>,
}

/// A search's principal variation and score, as `info` reports them.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchLine {
    /// The principal variation, the chosen move first.
    pub pv: Vec<Move>,
    /// Moves to mate for the side to move (negative: mated), when the score is one.
    pub mate_in: Option<i32>,
    /// The next best moves' lines under `MultiPV`, second best first (empty with
    /// one line).
    pub alternatives: Vec<Alternative>,
}

/// A line after the best one (UCI's `multipv 2` ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    /// Plies searched.
    pub depth: u32,
    /// The score, `cp N` or `mate N` as UCI writes it.
    pub score: String,
    /// The principal variation, the line's move first.
    pub pv: Vec<Move>,
}

/// Moves in UCI notation (castling as `castling` writes it), spaced.
fn uci_line(moves: &[Move], castling: CastlingMode) -> String {
    moves
        .iter()
        .map(|m| m.to_uci(castling).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The UCI `score` of `choice` in `position`: `mate 1` when the move mates, else
/// the agent's value in hundredths (`cp`); `cp 0` for a move chosen without one.
pub fn score(position: &Chess, choice: &Choice) -> String {
    if let Some(moves) = choice.line.as_ref().and_then(|line| line.mate_in) {
        return format!("mate {moves}");
    }
    let mut after = position.clone();
    after.play_unchecked(choice.mv);
    if after.is_checkmate() {
        return "mate 1".into();
    }
    let cp = (100.0 * choice.value.unwrap_or(0.0)).round();
    format!("cp {}", cp.clamp(-30_000.0, 30_000.0) as i64)
}

/// What a `position` command describes: the game's positions before the last one
/// (oldest first, for repetitions), the last one, and the first move that is
/// malformed or illegal there, if any (the moves before it are kept, as Stockfish
/// keeps them).
#[derive(Clone, Debug)]
pub struct Described {
    /// The positions before [`Described::position`], oldest first.
    pub earlier: Vec<Chess>,
    /// The position after the legal moves.
    pub position: Chess,
    /// Why the moves stopped early.
    pub error: Option<String>,
}

/// The position (and history) a `position` command describes, castling rights read
/// as `castling` says (Chess960's rook files with `UCI_Chess960`); an error when its
/// setup (`startpos` or `fen ...`) is not a position.
pub fn describe_position(args: &str, castling: CastlingMode) -> Result<Described, String> {
    let (setup, moves) = match args.split_once(" moves") {
        Some((setup, moves)) => (setup.trim(), moves.split_whitespace().collect()),
        None => (args.trim(), Vec::new()),
    };
    let mut position = if setup == "startpos" {
        Chess::default()
    } else if let Some(fen) = setup.strip_prefix("fen ") {
        let fen: Fen = fen
            .trim()
            .parse()
            .map_err(|e| format!("malformed FEN '{}': {e}", fen.trim()))?;
        fen.into_position(castling)
            .map_err(|e| format!("illegal position: {e}"))?
    } else {
        return Err(format!("expected 'startpos' or 'fen ...', got '{setup}'"));
    };
    let mut earlier = Vec::new();
    for text in moves {
        let Some(m) = text
            .parse::<UciMove>()
            .ok()
            .and_then(|uci| uci.to_move(&position).ok())
        else {
            let kind = if text.parse::<UciMove>().is_ok() {
                "illegal"
            } else {
                "malformed"
            };
            return Ok(Described {
                earlier,
                position,
                error: Some(format!(
                    "{kind} move '{text}'; the moves before it are kept"
                )),
            });
        };
        earlier.push(position.clone());
        position.play_unchecked(m);
    }
    Ok(Described {
        earlier,
        position,
        error: None,
    })
}

/// The position a `position` command describes, or why it describes none (a bad
/// setup, or a malformed or illegal move).
pub fn parse_position(args: &str) -> Result<Chess, String> {
    let described = describe_position(args, CastlingMode::Standard)?;
    match described.error {
        Some(e) => Err(e),
        None => Ok(described.position),
    }
}

/// The words of `go` that end a `searchmoves` list.
const GO_WORDS: [&str; 11] = [
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
];

/// The moves a `go` with arguments `args` may answer in `position`: the legal ones
/// listed after `searchmoves` (malformed or illegal entries skipped), or every legal
/// move when it lists none.
pub fn searchmoves(position: &Chess, args: &str) -> Vec<Move> {
    let listed: Vec<Move> = args
        .split_whitespace()
        .skip_while(|&w| w != "searchmoves")
        .skip(1)
        .take_while(|w| !GO_WORDS.contains(w))
        .filter_map(|w| w.parse::<UciMove>().ok()?.to_move(position).ok())
        .collect();
    if listed.is_empty() {
        position.legal_moves().into_iter().collect()
    } else {
        listed
    }
}

/// `text` as one protocol line: every control character (a newline in a run's
/// name, a tab) becomes a space, so no string can start a line of its own.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// Writes `line` to the GUI (shared by the input loop and the search thread).
/// The answer to `uci`: the player's `id` and options, then `uciok`.
fn introduction(player: &dyn UciPlayer) -> Vec<String> {
    let mut lines = vec![
        format!("id name {}", player.name()),
        "id author burnmate".into(),
    ];
    lines.extend(player.options());
    lines.push("option name UCI_Chess960 type check default false".into());
    lines.push("uciok".into());
    lines
}

/// `setoption ARGS`: `UCI_Chess960` sets `castling` here, any other option goes to
/// the player; the error says why nothing was set.
fn set_option(
    player: &mut dyn UciPlayer,
    castling: &mut CastlingMode,
    args: &str,
) -> Result<(), String> {
    match parse_setoption(args) {
        Some((name, value)) if name.eq_ignore_ascii_case("UCI_Chess960") => {
            let chess960 = match value.to_ascii_lowercase().as_str() {
                "true" => true,
                "false" => false,
                _ => {
                    return Err(format!(
                        "option UCI_Chess960 takes true or false, not '{value}'"
                    ));
                }
            };
            *castling = CastlingMode::from_chess960(chess960);
            Ok(())
        }
        Some((name, value)) => player.set_option(name, value),
        None => Err(format!("expected 'name NAME value VALUE', got '{args}'")),
    }
}

/// The `info` lines of `choice` in `root`: depth, score, nodes and line, then each
/// alternative line as `multipv 2, 3, ...`.
fn report(root: &Chess, choice: &Choice, castling: CastlingMode) -> Vec<String> {
    let pv = match &choice.line {
        Some(line) if !line.pv.is_empty() => uci_line(&line.pv, castling),
        _ => choice.mv.to_uci(castling).to_string(),
    };
    let alternatives = choice
        .line
        .as_ref()
        .map_or(&[][..], |l| &l.alternatives[..]);
    let first = if alternatives.is_empty() {
        ""
    } else {
        " multipv 1"
    };
    let mut lines = vec![format!(
        "info depth {}{first} score {} nodes {} pv {pv}",
        choice.depth,
        score(root, choice),
        choice.nodes
    )];
    lines.extend(alternatives.iter().enumerate().map(|(i, line)| {
        format!(
            "info depth {} multipv {} score {} pv {}",
            line.depth,
            i + 2,
            line.score,
            uci_line(&line.pv, castling)
        )
    }));
    lines
}

fn say_to(output: &Mutex<impl Write>, line: &str) -> Result<()> {
    let mut out = output.lock().expect("no writer panicked");
    writeln!(out, "{}", one_line(line))
        .and_then(|()| out.flush())
        .context("cannot write to the GUI")
}

/// Answers UCI commands from `input` on `output` until `quit` or the end of input.
/// Words may be separated by any whitespace; bytes that are not UTF-8 are read as
/// U+FFFD (a GUI's stray byte spoils one word, not the session). A `go` searches on
/// its own thread while commands are read: `isready` is answered at once, `stop`
/// ends the search with its best move (players that search honour it through
/// [`UciPlayer::set_stop`]), and `quit` stops it and returns.
pub fn serve(
    player: &mut dyn UciPlayer,
    mut input: impl BufRead,
    output: impl Write + Send,
) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    player.set_stop(stop.clone());
    let session = Session {
        player: Mutex::new(player),
        output: Mutex::new(output),
        stop,
        closing: AtomicBool::new(false),
        held: Mutex::new(None),
    };
    let mut position = Chess::default();
    let mut earlier: Vec<Chess> = Vec::new();
    // `UCI_Chess960`: castling rights by rook file, castling written king-takes-rook.
    let mut castling = CastlingMode::Standard;
    // After a `position` whose setup is no position, `go` answers no move: the
    // previous position is another game's.
    let mut lost = false;
    std::thread::scope(|scope| -> Result<()> {
        let mut searching: Option<std::thread::ScopedJoinHandle<'_, Result<()>>> = None;
        let finish = |searching: &mut Option<std::thread::ScopedJoinHandle<'_, Result<()>>>| {
            searching
                .take()
                .map_or(Ok(()), |h| h.join().expect("the search thread panicked"))
        };
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            let read = input.read_until(b'\n', &mut bytes);
            let text = String::from_utf8_lossy(&bytes);
            let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let (command, args) = line.split_once(' ').unwrap_or((&line, ""));
            let command = if read.context("cannot read from the GUI")? == 0 {
                "quit"
            } else {
                command
            };
            match command {
                "uci" => {
                    for line in introduction(*session.player()) {
                        session.say(&line)?;
                    }
                }
                "setoption" => {
                    finish(&mut searching)?;
                    if let Err(e) = set_option(*session.player(), &mut castling, args) {
                        session.say(&format!("info string error: {e}"))?;
                    }
                }
                "isready" => session.say("readyok")?,
                "ucinewgame" => {
                    finish(&mut searching)?;
                    (position, earlier, lost) = (Chess::default(), Vec::new(), false);
                    session.player().new_game();
                }
                "position" => {
                    finish(&mut searching)?;
                    match describe_position(args, castling) {
                        Ok(described) => {
                            (position, earlier, lost) =
                                (described.position, described.earlier, false);
                            if let Some(e) = described.error {
                                session.say(&format!("info string error: {e}"))?;
                            }
                        }
                        Err(e) => {
                            lost = true;
                            let error = format!("{e}; no position until the next one");
                            session.say(&format!("info string error: {error}"))?;
                        }
                    }
                }
                "stop" | "ponderhit" => {
                    session.stop.store(true, Ordering::Relaxed);
                    finish(&mut searching)?;
                    session.release_held()?;
                }
                "go" => {
                    finish(&mut searching)?;
                    session.release_held()?;
                    session.stop.store(false, Ordering::Relaxed);
                    let waits = args
                        .split_whitespace()
                        .any(|word| word == "infinite" || word == "ponder");
                    if lost || position.legal_moves().is_empty() {
                        session.answer("bestmove 0000".into(), waits)?;
                        continue;
                    }
                    let go = Go {
                        among: searchmoves(&position, args),
                        limit: GoLimit::parse(args),
                        root: position.clone(),
                        history: earlier.clone(),
                        castling,
                        waits,
                    };
                    let session = &session;
                    searching = Some(scope.spawn(move || session.search(&go)));
                }
                "quit" => {
                    session.closing.store(true, Ordering::Relaxed);
                    session.stop.store(true, Ordering::Relaxed);
                    return finish(&mut searching);
                }
                _ => {}
            }
        }
    })
}

/// What the command loop and a `go`'s search thread share.
struct Session<'p, W> {
    player: Mutex<&'p mut dyn UciPlayer>,
    output: Mutex<W>,
    /// Raised by `stop`, `ponderhit` and `quit`; the player's search watches it.
    stop: Arc<AtomicBool>,
    /// Set at `quit` or the end of input: a search still running is stopped, and
    /// the answer of a `go infinite` is not sent (no GUI asked for it).
    closing: AtomicBool,
    /// The answer of a `go infinite` / `go ponder`, held until `stop` or `ponderhit`.
    held: Mutex<Option<String>>,
}

/// One `go`: where, among which moves, within which limit.
struct Go {
    root: Chess,
    history: Vec<Chess>,
    among: Vec<Move>,
    limit: GoLimit,
    castling: CastlingMode,
    /// `go infinite` or `go ponder`: the answer waits for `stop` or `ponderhit`.
    waits: bool,
}

impl<'p, W: Write> Session<'p, W> {
    fn say(&self, line: &str) -> Result<()> {
        say_to(&self.output, line)
    }

    fn player(&self) -> std::sync::MutexGuard<'_, &'p mut dyn UciPlayer> {
        self.player.lock().expect("no search panicked")
    }

    /// Sends the answer held for `stop` or `ponderhit`, if one is.
    fn release_held(&self) -> Result<()> {
        let held = self.held.lock().expect("no search panicked").take();
        held.map_or(Ok(()), |answer| self.say(&answer))
    }

    /// Sends `answer` now, or holds it when it `waits`.
    fn answer(&self, answer: String, waits: bool) -> Result<()> {
        if waits {
            *self.held.lock().expect("one search at a time") = Some(answer);
            Ok(())
        } else {
            self.say(&answer)
        }
    }

    /// The player's move for `go`: its note, its `info` lines, then `bestmove`
    /// (held after `go infinite` until `stop`, unless the session is closing).
    fn search(&self, go: &Go) -> Result<()> {
        let choice = {
            let mut player = self.player();
            player.see_history(&go.history);
            player.best_move(&go.root, &go.among, &go.limit)
        };
        if let Some(note) = &choice.note {
            self.say(&format!("info string {note}"))?;
        }
        for line in report(&go.root, &choice, go.castling) {
            self.say(&line)?;
        }
        let bestmove = format!("bestmove {}", choice.mv.to_uci(go.castling));
        let asked = self.stop.load(Ordering::Relaxed) && !self.closing.load(Ordering::Relaxed);
        self.answer(bestmove, go.waits && !asked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays the first legal move in move-generation order.
    struct First;

    impl UciPlayer for First {
        fn name(&self) -> String {
            "first".into()
        }
        fn best_move(&mut self, _: &Chess, among: &[Move], _: &GoLimit) -> Choice {
            Choice {
                mv: among[0],
                value: Some(-0.126),
                note: None,
                nodes: 1,
                depth: 1,
                line: None,
            }
        }
    }

    fn session(script: &str) -> Vec<String> {
        let mut out = Vec::new();
        serve(&mut First, script.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    #[test]
    fn go_limits_read_nodes_depth_and_time() {
        assert_eq!(
            GoLimit::parse("wtime 1000 nodes 400 depth 2 movetime 50"),
            GoLimit {
                nodes: Some(400),
                depth: Some(2),
                movetime: Some(50),
                clock: [Some(1000), None],
                ..GoLimit::default()
            }
        );
        assert_eq!(
            GoLimit::parse("nodes x depth 0 movetime -5"),
            GoLimit::default()
        );
        let ms = |limit: &GoLimit, white: bool| limit.time_for(white).map(|d| d.as_millis());
        let movetime = GoLimit::parse("movetime 250 wtime 9000");
        assert_eq!(ms(&movetime, true), Some(250));
        let clocks = GoLimit::parse("wtime 60000 btime 30000 winc 1000 movestogo 10");
        assert_eq!(ms(&clocks, true), Some(6750), "60000 / 10 + 3/4 of 1000");
        assert_eq!(ms(&clocks, false), Some(3000), "30000 / 10, no increment");
        let sudden_death = GoLimit::parse("wtime 3000 btime 100 binc 2000");
        assert_eq!(ms(&sudden_death, true), Some(100), "3000 / 30");
        assert_eq!(
            ms(&sudden_death, false),
            Some(75),
            "at most 3/4 of the clock"
        );
        assert_eq!(GoLimit::parse("nodes 5").time_for(true), None);
    }

    #[test]
    fn a_scripted_session_gets_the_protocols_answers() {
        let lines = session(
            "uci\nisready\nposition startpos moves e2e4 e7e5\ngo movetime 100\nstop\nquit\ngo\n",
        );
        assert_eq!(
            lines[..5],
            [
                "id name first",
                "id author burnmate",
                "option name UCI_Chess960 type check default false",
                "uciok",
                "readyok"
            ]
        );
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
        let mut after = parse_position("startpos moves e2e4 e7e5").unwrap();
        let m: UciMove = best.parse().unwrap();
        after.play_unchecked(m.to_move(&after).unwrap());
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove")).count(),
            1,
            "nothing after quit"
        );
        // The agent's value before the move, from the side to move.
        assert_eq!(
            lines[lines.len() - 2],
            format!("info depth 1 score cp -13 nodes 1 pv {best}")
        );
    }

    /// Plays the first offered move under a name that tries to inject a line.
    struct Injector;

    impl UciPlayer for Injector {
        fn name(&self) -> String {
            "run\nbestmove e2e4\r".into()
        }
        fn best_move(&mut self, position: &Chess, among: &[Move], limit: &GoLimit) -> Choice {
            First.best_move(position, among, limit)
        }
    }

    #[test]
    fn a_name_with_a_newline_stays_on_its_line() {
        let mut out = Vec::new();
        serve(&mut Injector, "uci\n".as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "id name run bestmove e2e4 ",
                "id author burnmate",
                "option name UCI_Chess960 type check default false",
                "uciok"
            ]
        );
    }

    #[test]
    fn tabs_and_bytes_that_are_not_utf8_do_not_end_the_session() {
        let mut script = b"position\tstartpos\tmoves e2e4\ngo\tdepth 1\n".to_vec();
        script.extend_from_slice(b"\xff\xfe junk\nisready\n");
        let mut out = Vec::new();
        serve(&mut First, script.as_slice(), &mut out).unwrap();
        let lines: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        // `isready` is answered while the search runs, so it may come first.
        let best = lines.iter().find(|l| l.starts_with("bestmove ")).unwrap();
        // After 1. e4 the first legal move is black's, not white's a2a3.
        assert_ne!(best, "bestmove a2a3");
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
    }

    #[test]
    fn go_searchmoves_answers_among_the_listed_moves() {
        let start = Chess::default();
        let listed = searchmoves(&start, "wtime 100 searchmoves a2a3 h2h4 e2e5 movetime 5");
        let uci: Vec<String> = listed
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect();
        assert_eq!(uci, ["a2a3", "h2h4"], "the illegal e2e5 is skipped");
        assert_eq!(searchmoves(&start, "depth 3").len(), 20);
        // First plays the first move it is offered: here the only one listed.
        let lines = session("position startpos\ngo searchmoves h2h4\n");
        assert_eq!(lines.last().unwrap(), "bestmove h2h4");
    }

    #[test]
    fn go_infinite_and_go_ponder_answer_only_at_stop_or_ponderhit() {
        let lines = session("position startpos\ngo infinite\nisready\n");
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "{lines:?}"
        );
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
        let lines = session("position startpos\ngo infinite\nisready\nstop\n");
        assert!(lines.iter().any(|l| l == "readyok"), "{lines:?}");
        assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
        let lines = session("position startpos\ngo ponder wtime 1000\nponderhit\nstop\n");
        let answers = lines.iter().filter(|l| l.starts_with("bestmove")).count();
        assert_eq!(answers, 1, "one answer, at ponderhit: {lines:?}");
        let lines = session("position startpos\ngo movetime 10\nstop\n");
        assert!(lines.last().unwrap().starts_with("bestmove "));
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("bestmove")).count(),
            1
        );
    }

    #[test]
    fn a_mating_move_is_scored_as_mate_in_one() {
        // Ka8 against Kb6 and Rh1: Rh8 is the one mate; every move is scored.
        let position = parse_position("fen k7/8/1K6/8/8/8/8/7R w - - 0 1").unwrap();
        for mv in position.legal_moves() {
            let choice = Choice {
                mv,
                value: Some(0.5),
                note: None,
                nodes: 1,
                depth: 1,
                line: None,
            };
            let mut after = position.clone();
            after.play_unchecked(mv);
            let want = if after.is_checkmate() {
                "mate 1"
            } else {
                "cp 50"
            };
            assert_eq!(score(&position, &choice), want);
        }
        let mates = position
            .legal_moves()
            .iter()
            .filter(|&&mv| {
                let choice = Choice {
                    mv,
                    value: None,
                    note: None,
                    nodes: 0,
                    depth: 1,
                    line: None,
                };
                score(&position, &choice) == "mate 1"
            })
            .count();
        assert_eq!(mates, 1);
    }

    #[test]
    fn under_promotions_and_castling_are_read_and_bad_input_keeps_the_position() {
        let p =
            parse_position("fen 4k3/P7/8/8/8/8/8/4K2R w K - 0 1 moves a7a8n e8d7 e1g1").unwrap();
        assert_eq!(
            Fen::from_position(&p, shakmaty::EnPassantMode::Legal).to_string(),
            "N7/3k4/8/8/8/8/8/5RK1 b - - 2 2"
        );
        assert!(
            parse_position("startpos moves e2e5")
                .unwrap_err()
                .contains("illegal move 'e2e5'")
        );
        assert!(
            parse_position("fen 9/8 w - - 0 1")
                .unwrap_err()
                .contains("malformed FEN")
        );
        assert!(
            parse_position("middlegame")
                .unwrap_err()
                .contains("startpos")
        );
        // An illegal move keeps the legal moves before it: after 1. e4 black answers.
        let lines = session("position startpos moves e2e4 e8e6\ngo depth 3\n");
        assert!(lines[0].starts_with("info string error: illegal move 'e8e6'"));
        let answer = lines[2].strip_prefix("bestmove ").unwrap();
        let after_e4 = parse_position("startpos moves e2e4").unwrap();
        let mv = answer.parse::<UciMove>().unwrap().to_move(&after_e4);
        assert!(mv.is_ok(), "{answer} is black's move after 1. e4");
        // A setup that is no position answers no move rather than the previous one's.
        let lines = session("position startpos\nposition fen 9/8 w - - 0 1\ngo depth 3\n");
        assert!(
            lines[0].contains("no position until the next one"),
            "{lines:?}"
        );
        assert_eq!(lines[1], "bestmove 0000");
    }
}
