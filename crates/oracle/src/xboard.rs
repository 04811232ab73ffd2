//! A small xboard (CECP, protocol 2) client for engines that speak only it
//! (Phalanx, HoiChess, Sjeng), driven as cutechess-cli drives them: `xboard` and
//! `protover 2`, every `feature` accepted until `done=1` (or two seconds of
//! silence from a protocol-1 engine), then per move the whole game again: `new`,
//! `force`, the time control (`level`), `setboard FEN`, the moves (`usermove`
//! where the engine asked for it), both clocks (`time`, `otim`, centiseconds) and
//! `go`; the answer is the engine's `move` line, after which it is put back in
//! `force` mode so it does not think on. An engine past its deadline is told `?`
//! (move now). Engines without `setboard` (Fairy-Max) cannot start from a
//! match's openings: refused.

use std::time::{Duration, Instant};

use crate::engine_process::EngineProcess;
use crate::uci::{HANDSHAKE, STOP_GRACE, UciError};

/// How long a protocol-1 engine may stay silent after `protover 2` before it is
/// taken to send no features (cutechess-cli waits as long).
const FEATURE_WAIT: Duration = Duration::from_secs(2);

/// How an xboard engine searches a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XboardLimit {
    /// On a clock: `base` and `increment` (the time control), the engine's time
    /// left and its opponent's.
    Clock {
        /// Each side's time at the start.
        base: Duration,
        /// Added after each move.
        increment: Duration,
        /// The engine's time left.
        own: Duration,
        /// Its opponent's.
        other: Duration,
    },
    /// A fixed time a move (`st`).
    MoveTime(Duration),
    /// A fixed depth (`sd`).
    Depth(u32),
}

/// A running xboard engine.
pub struct XboardEngine {
    process: EngineProcess,
    /// What the engine calls itself (`feature myname`), else its command.
    id: String,
    /// Whether moves are sent as `usermove MOVE`.
    usermove: bool,
}

/// The value of `feature` `key` in `line` (quoted or bare).
fn feature<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!("{key}="))? + key.len() + 1;
    let rest = &line[at..];
    Some(match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest.split_whitespace().next()?,
    })
}

impl XboardEngine {
    /// Starts `name` with `args` and completes the protocol-2 handshake; an engine
    /// without `setboard` is refused.
    pub fn start(name: &str, args: &[String]) -> Result<XboardEngine, UciError> {
        let mut process = EngineProcess::spawn(name, args)?;
        process.send("xboard")?;
        process.send("protover 2")?;
        let (mut id, mut usermove, mut setboard) = (name.to_string(), false, false);
        let mut wait = FEATURE_WAIT;
        loop {
            let line = match process.read_line(Some(wait)) {
                Ok(line) => line,
                Err(UciError::Timeout { .. }) => break,
                Err(e) => return Err(e),
            };
            if !line.starts_with("feature ") {
                continue;
            }
            if let Some(name) = feature(&line, "myname") {
                id = name.to_string();
            }
            usermove |= feature(&line, "usermove") == Some("1");
            setboard |= feature(&line, "setboard") == Some("1");
            for key in [
                "usermove", "setboard", "time", "done", "myname", "sigint", "san",
            ] {
                match feature(&line, key) {
                    // SAN moves are not what this client sends.
                    Some("1") if key == "san" => process.send("rejected san")?,
                    Some(_) => process.send(&format!("accepted {key}"))?,
                    None => {}
                }
            }
            match feature(&line, "done") {
                Some("1") => break,
                // `done=0`: the engine needs longer to start.
                Some(_) => wait = HANDSHAKE,
                None => {}
            }
        }
        if !setboard {
            return Err(UciError::Protocol {
                path: process.path.clone(),
                line: "no `feature setboard=1`: it cannot start from a match's openings".into(),
            });
        }
        // Its thinking output off, pondering off.
        process.send("nopost")?;
        process.send("easy")?;
        Ok(XboardEngine {
            process,
            id,
            usermove,
        })
    }

    /// Sets an option the engine declared (`option NAME=VALUE`, protocol 2).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), UciError> {
        self.send(&format!("option {name}={value}"))
    }

    /// What the engine calls itself.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The engine's move (as it wrote it: coordinates, or SAN for some engines)
    /// after `moves` (coordinate notation) from `start_fen`, searched within
    /// `limit`. An engine still searching after `deadline` is told `?`; one that
    /// then sends no move within [`STOP_GRACE`] is an error.
    pub fn move_after(
        &mut self,
        start_fen: &str,
        moves: &[String],
        limit: XboardLimit,
        deadline: Duration,
    ) -> Result<String, UciError> {
        let centis = |d: Duration| d.as_millis() / 10;
        self.send("new")?;
        self.send("force")?;
        match limit {
            XboardLimit::Clock {
                base, increment, ..
            } => {
                let seconds = base.as_secs();
                self.send(&format!(
                    "level 0 {}:{:02} {}",
                    seconds / 60,
                    seconds % 60,
                    increment.as_secs_f64()
                ))?;
            }
            XboardLimit::MoveTime(time) => {
                self.send(&format!("st {}", time.as_secs().max(1)))?;
            }
            XboardLimit::Depth(depth) => self.send(&format!("sd {depth}"))?,
        }
        self.send(&format!("setboard {start_fen}"))?;
        for mv in moves {
            let line = if self.usermove {
                format!("usermove {mv}")
            } else {
                mv.clone()
            };
            self.send(&line)?;
        }
        if let XboardLimit::Clock { own, other, .. } = limit {
            self.send(&format!("time {}", centis(own)))?;
            self.send(&format!("otim {}", centis(other)))?;
        }
        self.send("go")?;
        let started = Instant::now();
        let mut hurried = false;
        loop {
            let wait = if hurried {
                STOP_GRACE
            } else {
                deadline.saturating_sub(started.elapsed())
            };
            match self.process.read_line(Some(wait)) {
                Ok(line) => {
                    if let Some(mv) = line.strip_prefix("move ") {
                        self.send("force")?;
                        return Ok(mv.trim().to_string());
                    }
                    if line.starts_with("Illegal move") || line.starts_with("Error") {
                        return Err(UciError::Protocol {
                            path: self.process.path.clone(),
                            line,
                        });
                    }
                    if line == "resign" || line.contains("resigns") {
                        self.send("force")?;
                        return Ok("resign".into());
                    }
                }
                Err(UciError::Timeout { .. }) if !hurried => {
                    self.send("?")?;
                    hurried = true;
                }
                Err(UciError::Timeout { .. }) => {
                    return Err(UciError::NoMove {
                        path: self.process.path.clone(),
                        seconds: deadline.as_secs_f64(),
                        limit: "xboard go".into(),
                    });
                }
                Err(e) => return Err(e),
            }
        }
    }

    fn send(&mut self, command: &str) -> Result<(), UciError> {
        self.process.send(command)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// A scripted xboard engine: features with `usermove=1`; on `go` it answers
    /// the next of its moves, white's or black's by the moves since `setboard`.
    fn scripted(name: &str, features: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("burnmate-{name}-{}.sh", std::process::id()));
        let script = format!(
            "#!/bin/sh\nn=0\nwhile read cmd rest; do case \"$cmd\" in\n\
             protover) echo 'feature {features}';;\n\
             setboard) n=0;;\n\
             usermove) n=$((n+1));;\n\
             go) case $n in 0) echo 'move b1c3';; 1) echo 'move g8f6';; 2) echo 'move c3b1';; *) echo 'move f6g8';; esac;;\n\
             quit) exit 0;;\n\
             esac; done\n"
        );
        std::fs::write(&path, script).unwrap();
        Command::new("chmod").arg("+x").arg(&path).status().unwrap();
        path
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn a_scripted_engine_is_set_up_and_answers_moves_on_a_clock() {
        let path = scripted("xb", "myname=\"Scripted XB\" usermove=1 setboard=1 done=1");
        let mut engine = XboardEngine::start(path.to_str().unwrap(), &[]).unwrap();
        assert_eq!(engine.id(), "Scripted XB");
        let clock = XboardLimit::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
            own: Duration::from_secs(9),
            other: Duration::from_secs(8),
        };
        let second = Duration::from_secs(5);
        assert_eq!(
            engine.move_after(START, &[], clock, second).unwrap(),
            "b1c3"
        );
        let moves = vec!["b1c3".to_string()];
        assert_eq!(
            engine.move_after(START, &moves, clock, second).unwrap(),
            "g8f6"
        );
        let limit = XboardLimit::MoveTime(Duration::from_millis(100));
        let moves: Vec<String> = ["b1c3", "g8f6"].map(String::from).to_vec();
        assert_eq!(
            engine.move_after(START, &moves, limit, second).unwrap(),
            "c3b1"
        );
        drop(engine);
        // No setboard: refused in one line.
        let path = scripted("xb-nosb", "myname=\"Old\" setboard=0 done=1");
        let error = XboardEngine::start(path.to_str().unwrap(), &[])
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("cannot start from a match's openings"),
            "{error}"
        );
        assert_eq!(
            feature("feature a=1 myname=\"X Y\" b=2", "myname"),
            Some("X Y")
        );
        assert_eq!(feature("feature a=1 setboard=1", "setboard"), Some("1"));
    }
}
