//! A chess engine run as a child process, whatever its protocol (UCI, xboard): its
//! output read line by line on a thread of its own, so every wait can time out.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use crate::uci::{UciError, locate};

/// A running engine process.
pub struct EngineProcess {
    /// The executable, as errors name it.
    pub path: String,
    child: Child,
    input: ChildStdin,
    /// The engine's output lines.
    lines: Receiver<std::io::Result<String>>,
}

impl EngineProcess {
    /// Starts `name` (a path, or a program on `$PATH` or in /usr/games) with `args`.
    pub fn spawn(name: &str, args: &[String]) -> Result<EngineProcess, UciError> {
        let path = locate(name)?;
        let shown = path.display().to_string();
        let mut child = Command::new(&path)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| UciError::Io {
                path: shown.clone(),
                message: e.to_string(),
            })?;
        let input = child.stdin.take().expect("piped stdin");
        let mut output = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            loop {
                // Bytes, decoded lossily: one Latin-1 line (an `id author`) must not
                // end the conversation, as it does not in GUIs.
                let mut bytes = Vec::new();
                let read = output.read_until(b'\n', &mut bytes);
                let end = !matches!(read, Ok(n) if n > 0);
                let line = read.map(|_| String::from_utf8_lossy(&bytes).into_owned());
                if sender.send(line).is_err() || end {
                    return;
                }
            }
        });
        Ok(EngineProcess {
            path: shown,
            child,
            input,
            lines,
        })
    }

    /// Writes `command` and a newline.
    pub fn send(&mut self, command: &str) -> Result<(), UciError> {
        writeln!(self.input, "{command}")
            .and_then(|()| self.input.flush())
            .map_err(|e| UciError::Io {
                path: self.path.clone(),
                message: e.to_string(),
            })
    }

    /// The next line of output, waiting at most `timeout` (`None`: as long as it
    /// takes, e.g. a deep search).
    pub fn read_line(&mut self, timeout: Option<Duration>) -> Result<String, UciError> {
        let received = match timeout {
            Some(limit) => self.lines.recv_timeout(limit),
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        let io = |message: String| UciError::Io {
            path: self.path.clone(),
            message,
        };
        match received {
            Ok(Ok(line)) if !line.is_empty() => Ok(line.trim_end().to_string()),
            Ok(Ok(_)) | Err(RecvTimeoutError::Disconnected) => Err(io("the engine exited".into())),
            Ok(Err(e)) => Err(io(e.to_string())),
            Err(RecvTimeoutError::Timeout) => Err(UciError::Timeout {
                path: self.path.clone(),
                seconds: timeout.unwrap_or_default().as_secs_f64(),
            }),
        }
    }
}

impl Drop for EngineProcess {
    /// Asks the engine to quit and ends the process (a program that ignores `quit`,
    /// like one that is no engine at all, would otherwise keep the caller waiting).
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
