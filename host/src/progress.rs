//! Progress of long steps, on stderr only.
//!
//! Three modes, process-wide ([`set_mode`]):
//! - [`Mode::Bars`] (the default when stderr is a terminal): an indicatif
//!   bar per step, ticking steadily so that a step with one unit of work
//!   still shows it is alive; cleared when done.
//! - [`Mode::Lines`] (what `warp` uses when stderr is not a terminal): one
//!   line when a step starts and one when it ends, with its time, so a log
//!   never goes silent for a whole phase.
//! - [`Mode::Off`] (the library default when stderr is not a terminal, and
//!   `--json`): nothing.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::output::{note, stderr_is_terminal};

/// How progress is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Chosen by stderr: bars on a terminal, else off.
    Auto,
    /// Bars (stderr must be a terminal to see them).
    Bars,
    /// One line per step start and end.
    Lines,
    /// Nothing.
    Off,
}

static MODE: AtomicU8 = AtomicU8::new(0);

/// Sets how every later [`Progress`] is shown.
pub fn set_mode(mode: Mode) {
    MODE.store(mode as u8, Ordering::Relaxed);
}

fn mode() -> Mode {
    match MODE.load(Ordering::Relaxed) {
        1 => Mode::Bars,
        2 => Mode::Lines,
        3 => Mode::Off,
        _ if stderr_is_terminal() => Mode::Bars,
        _ => Mode::Off,
    }
}

/// Progress of one labelled step of `len` units.
#[derive(Debug, Clone)]
pub struct Progress {
    bar: ProgressBar,
    label: String,
    started: Instant,
    lines: bool,
}

impl Progress {
    /// Starts a step; an empty `label` shows nothing.
    pub fn new(len: u64, label: &str) -> Self {
        let mode = if label.is_empty() { Mode::Off } else { mode() };
        let bar = if mode == Mode::Bars {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {msg:>24} [{bar:30}] {pos}/{len} {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_message(label.to_string());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        } else {
            ProgressBar::hidden()
        };
        let lines = mode == Mode::Lines;
        if lines {
            note(&format!("{label}…"));
        }
        Self {
            bar,
            label: label.to_string(),
            started: Instant::now(),
            lines,
        }
    }

    /// Advances by `n` units.
    pub fn inc(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Completes the step.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
        if self.lines {
            note(&format!(
                "{}: done in {:.1} s",
                self.label,
                self.started.elapsed().as_secs_f64()
            ));
        }
    }
}
