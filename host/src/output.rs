//! Writing a command's output: results on stdout, notes on stderr, one
//! policy for every subcommand.
//!
//! - The reader went away (`warp query … | head`: a broken pipe): stop
//!   quietly, exit 0. [`Output::line`] returns [`Flow::Stop`] and the
//!   command returns `Ok`.
//! - Any other write error (a full disk, `> /dev/full`, an I/O error): one
//!   line `stdout: No space left on device (os error 28)`, exit 2.
//! - stdout closed when `warp` started (`warp plan >&-`): an error before any
//!   work, not a silent exit 0 (see [`Output::stdout`]).
//! - Notes and progress on stderr ([`note`]) never fail the command: a
//!   closed or full stderr loses the note, nothing else.
//!
//! Nothing here panics: `println!`/`eprintln!` panic on a write error (exit
//! 101), so commands print only through this module.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::error::{Error, Result};

/// Whether the command should go on writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub enum Flow {
    /// Written; go on.
    Continue,
    /// The reader is gone (broken pipe): stop quietly with success.
    Stop,
}

/// The command's stdout.
#[derive(Debug)]
pub struct Output {
    out: std::io::StdoutLock<'static>,
    pretty: bool,
}

fn io_err(source: std::io::Error) -> Error {
    Error::Io {
        path: "stdout".into(),
        source,
    }
}

/// Whether fd 1 was closed when the process started.
///
/// Rust's runtime reopens a closed stdin, stdout or stderr as `/dev/null`
/// (read-write) before `main`, so `warp plan >&-` would write into
/// `/dev/null` and exit 0. A shell redirect `> /dev/null` opens it
/// write-only, so "stdout is `/dev/null` opened read-write" identifies the
/// closed case (Linux, through `/proc/self`; elsewhere never reported).
pub fn stdout_was_closed() -> bool {
    let Ok(target) = std::fs::read_link("/proc/self/fd/1") else {
        return false;
    };
    if target != std::path::Path::new("/dev/null") {
        return false;
    }
    let Ok(info) = std::fs::read_to_string("/proc/self/fdinfo/1") else {
        return false;
    };
    info.lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .is_some_and(|flags| flags & 0o3 == 0o2)
}

impl Output {
    /// The process's stdout; `pretty` indents JSON documents.
    ///
    /// # Errors
    /// [`Error::Io`] on `stdout` when stdout was closed at start
    /// ([`stdout_was_closed`]): the results would be lost.
    pub fn stdout(pretty: bool) -> Result<Self> {
        if stdout_was_closed() {
            return Err(Error::Io {
                path: "stdout".into(),
                source: std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "closed (the output would be lost; redirect it to a file or /dev/null instead)",
                ),
            });
        }
        Ok(Self {
            out: std::io::stdout().lock(),
            pretty,
        })
    }

    /// Writes `text` and a newline.
    ///
    /// # Errors
    /// [`Error::Io`] on `stdout` for any write error except a broken pipe,
    /// which gives `Ok(Flow::Stop)`.
    pub fn line(&mut self, text: &str) -> Result<Flow> {
        let r = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        Self::flow(r)
    }

    /// Writes `text` as is.
    ///
    /// # Errors
    /// As [`Output::line`].
    pub fn text(&mut self, text: &str) -> Result<Flow> {
        Self::flow(self.out.write_all(text.as_bytes()))
    }

    /// Writes one JSON document and a newline: compact, or indented when the
    /// output is `pretty`.
    ///
    /// # Errors
    /// As [`Output::line`]; [`Error::Input`] if `value` does not serialize.
    pub fn json(&mut self, value: &impl Serialize) -> Result<Flow> {
        let text = if self.pretty {
            serde_json::to_string_pretty(value)
        } else {
            serde_json::to_string(value)
        }
        .map_err(|e| Error::input(format!("serializing the output: {e}")))?;
        self.line(&text)
    }

    /// Flushes. Call it last: a full disk often shows only here.
    ///
    /// # Errors
    /// As [`Output::line`]; a broken pipe is success.
    pub fn finish(mut self) -> Result<()> {
        Self::flow(self.out.flush()).map(|_| ())
    }

    fn flow(r: std::io::Result<()>) -> Result<Flow> {
        match r {
            Ok(()) => Ok(Flow::Continue),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(Flow::Stop),
            Err(e) => Err(io_err(e)),
        }
    }
}

/// Writes `msg` and a newline on stderr, ignoring write errors (a note is
/// never worth failing the command).
pub fn note(msg: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(msg.as_bytes());
    let _ = err.write_all(b"\n");
}

/// Whether stderr is a terminal (progress bars are drawn only then).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}
