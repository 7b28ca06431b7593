//! Progress bars for long steps (hidden when stderr is not a terminal or the
//! label is empty).

use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar over `len` steps of one labelled task.
#[derive(Debug, Clone)]
pub struct Progress(ProgressBar);

impl Progress {
    /// Starts a bar; an empty `label` gives a hidden bar.
    pub fn new(len: u64, label: &str) -> Self {
        let bar = if label.is_empty() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new(len);
            bar.set_style(
                ProgressStyle::with_template("{msg:>24} [{bar:30}] {pos}/{len} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar.set_message(label.to_string());
            bar
        };
        Self(bar)
    }

    /// Advances by `n` steps.
    pub fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    /// Completes the bar.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}
