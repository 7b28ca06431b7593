//! The epoch ticker: one thread that advances the engine's epoch every
//! [`EPOCH_TICK`] while a guest call is in progress, and sleeps parked while
//! none is.
//!
//! A guest call's time limit is an epoch deadline of `n` ticks
//! (`Store::set_epoch_deadline`): the call traps once the epoch has advanced
//! `n` times since it started. The epoch only has to advance while some call
//! can be interrupted, so the thread counts the calls in progress and parks
//! when the count is zero. An idle process (a `warp serve` between requests)
//! then wakes no thread a thousand times a second, and a busy one wakes it
//! only while it plans. A deadline still measures the time its call runs:
//! ticks stop only when no call is running, and a parked ticker resumes
//! before the call that unparked it enters the guest.
//!
//! # Cost
//! Entering and leaving a call is one atomic add each; the first call after an
//! idle spell also unparks the thread (one futex wake). While calls run, one
//! wake-up per [`EPOCH_TICK`], as before.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::Thread;

use super::EPOCH_TICK;

/// The ticking thread and the count of calls that need it.
#[derive(Debug)]
pub(super) struct Ticker {
    running: Arc<AtomicUsize>,
    thread: Thread,
}

/// One call in progress; the ticker may park once every such guard is gone.
#[derive(Debug)]
pub(super) struct Ticking<'a>(&'a Ticker);

impl Ticker {
    /// Starts the thread, named `name`, calling `tick` every [`EPOCH_TICK`]
    /// while a [`Ticking`] guard lives.
    ///
    /// # Errors
    /// The operating system's, when it cannot start the thread.
    pub(super) fn start(
        name: &str,
        mut tick: impl FnMut() + Send + 'static,
    ) -> std::io::Result<Self> {
        let running = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&running);
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                loop {
                    // An unpark that came before this park is kept as a
                    // token, so a call entering between the load and the
                    // park is not missed.
                    if seen.load(Ordering::Acquire) == 0 {
                        std::thread::park();
                        continue;
                    }
                    std::thread::sleep(EPOCH_TICK);
                    tick();
                }
            })?;
        Ok(Self {
            running,
            thread: handle.thread().clone(),
        })
    }

    /// Marks a call as in progress until the guard drops; wakes the thread
    /// if it was parked. `O(1)`.
    pub(super) fn enter(&self) -> Ticking<'_> {
        if self.running.fetch_add(1, Ordering::AcqRel) == 0 {
            self.thread.unpark();
        }
        Ticking(self)
    }
}

impl Drop for Ticking<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    use super::*;

    fn counting() -> (Ticker, Arc<AtomicU64>) {
        let ticks = Arc::new(AtomicU64::new(0));
        let t = Arc::clone(&ticks);
        let ticker = Ticker::start("test-ticker", move || {
            t.fetch_add(1, Ordering::Relaxed);
        })
        .expect("a thread");
        (ticker, ticks)
    }

    #[test]
    fn an_idle_ticker_does_not_tick() {
        let (_ticker, ticks) = counting();
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(ticks.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn ticks_while_a_call_runs_and_stops_after() {
        let (ticker, ticks) = counting();
        {
            let _a = ticker.enter();
            let _b = ticker.enter();
            std::thread::sleep(Duration::from_millis(60));
        }
        let during = ticks.load(Ordering::Relaxed);
        assert!(during >= 3, "{during} ticks in 60 ms of calls");
        // The tick already asleep may still land; then the count must stop
        // (polled for up to a second: a loaded machine may wake it late).
        let mut settled = ticks.load(Ordering::Relaxed);
        for _ in 0..50 {
            std::thread::sleep(Duration::from_millis(20));
            let now = ticks.load(Ordering::Relaxed);
            if now == settled {
                break;
            }
            settled = now;
        }
        assert!(
            settled <= during + 1,
            "{during} then {settled}: still ticking"
        );
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(ticks.load(Ordering::Relaxed), settled, "parked again");
        // And it resumes for the next call.
        let _c = ticker.enter();
        std::thread::sleep(Duration::from_millis(30));
        assert!(ticks.load(Ordering::Relaxed) > settled);
    }
}
