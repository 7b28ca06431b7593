//! The epoch ticker: one thread that advances the engine's epoch every
//! [`EPOCH_TICK`] while guest calls are being made, and sleeps parked once
//! none has been made for [`LINGER_TICKS`] ticks.
//!
//! A guest call's time limit is an epoch deadline of `n` ticks
//! (`Store::set_epoch_deadline`): the call traps once the epoch has advanced
//! `n` times since it started. The epoch only has to advance while some call
//! can be interrupted, so the thread counts the calls in progress and the
//! calls entered. An idle process (a `warp serve` between requests) wakes no
//! thread a thousand times a second. A deadline still measures the time its
//! call runs: a parked ticker resumes before the call that unparked it
//! enters the guest.
//!
//! It does not park the moment no call runs: a planning call takes
//! microseconds, so under a steady query load almost every call would find
//! the thread parked and pay a futex wake, and the thread a wake-up and a
//! park of its own (measured with `perf stat`: 1.8 futex calls a planning
//! call; beside six busy loops a fixed rule's one call a query, ~3 µs of
//! guest work, read 29–180 µs of wall time in `warp bench`'s `plan_us`).
//! Lingering [`LINGER_TICKS`] ticks after the last call, the thread costs a
//! process planning steadily one wake-up per tick and no wake of its own
//! per call.
//!
//! # Cost
//! Entering and leaving a call is one atomic add each, and entering with no
//! call in progress one more and an unpark (an atomic swap; a futex wake
//! only when the thread is parked, after an idle spell of [`LINGER_TICKS`]
//! ticks). While calls are being made and for the spell after, one wake-up
//! per [`EPOCH_TICK`].

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::Thread;

use super::EPOCH_TICK;

/// Ticks without a call entered after which the thread parks (50 ms).
pub(super) const LINGER_TICKS: u32 = 50;

/// The ticking thread and what it counts.
#[derive(Debug)]
pub(super) struct Ticker {
    calls: Arc<Calls>,
    thread: Thread,
}

/// The calls the thread watches.
#[derive(Debug, Default)]
struct Calls {
    /// In progress now.
    running: AtomicUsize,
    /// Entered with none in progress, so far (a call since the last tick).
    entered: AtomicUsize,
}

/// One call in progress; the ticker may park once every such guard is gone
/// and [`LINGER_TICKS`] ticks passed without a call.
#[derive(Debug)]
pub(super) struct Ticking<'a>(&'a Ticker);

impl Ticker {
    /// Starts the thread, named `name`, calling `tick` every [`EPOCH_TICK`]
    /// while a [`Ticking`] guard lives and for up to [`LINGER_TICKS`] ticks
    /// after the last one dropped.
    ///
    /// # Errors
    /// The operating system's, when it cannot start the thread.
    pub(super) fn start(
        name: &str,
        mut tick: impl FnMut() + Send + 'static,
    ) -> std::io::Result<Self> {
        let calls = Arc::new(Calls::default());
        let seen = Arc::clone(&calls);
        let handle = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                // Parked from the start: nothing has been called yet.
                let mut idle = LINGER_TICKS;
                // Calls entered before the thread ran count as new.
                let mut last = 0;
                // Whether a call ran or was entered since `last` was read.
                let active = |last: &mut usize| {
                    let entered = seen.entered.load(Ordering::Acquire);
                    let fresh = entered != *last;
                    *last = entered;
                    fresh || seen.running.load(Ordering::Acquire) > 0
                };
                loop {
                    // An unpark that came before this park is kept as a
                    // token, so a call entering between the load and the
                    // park is not missed.
                    if idle >= LINGER_TICKS && seen.running.load(Ordering::Acquire) == 0 {
                        std::thread::park();
                        // Woken by a call, or by a token an earlier call left
                        // while the thread was awake (then park again).
                        if active(&mut last) {
                            idle = 0;
                        }
                        continue;
                    }
                    std::thread::sleep(EPOCH_TICK);
                    tick();
                    idle = if active(&mut last) {
                        0
                    } else {
                        idle.saturating_add(1)
                    };
                }
            })?;
        Ok(Self {
            calls,
            thread: handle.thread().clone(),
        })
    }

    /// Marks a call as in progress until the guard drops; wakes the thread
    /// if it was parked. `O(1)`.
    pub(super) fn enter(&self) -> Ticking<'_> {
        if self.calls.running.fetch_add(1, Ordering::AcqRel) == 0 {
            self.calls.entered.fetch_add(1, Ordering::AcqRel);
            self.thread.unpark();
        }
        Ticking(self)
    }
}

impl Drop for Ticking<'_> {
    fn drop(&mut self) {
        self.0.calls.running.fetch_sub(1, Ordering::AcqRel);
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
        // It lingers up to LINGER_TICKS ticks, then the count must stop
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
            settled <= during + u64::from(LINGER_TICKS) + 1,
            "{during} then {settled}: still ticking"
        );
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(ticks.load(Ordering::Relaxed), settled, "parked again");
        // And it resumes for the next call.
        let _c = ticker.enter();
        std::thread::sleep(Duration::from_millis(30));
        assert!(ticks.load(Ordering::Relaxed) > settled);
    }

    #[test]
    fn it_lingers_between_calls_made_close_together() {
        let (ticker, ticks) = counting();
        drop(ticker.enter());
        // No call in progress, but one was made a moment ago: a steady
        // stream of short calls must not wake a parked thread each time.
        std::thread::sleep(Duration::from_millis(40));
        let between = ticks.load(Ordering::Relaxed);
        assert!(between >= 3, "{between} ticks in 40 ms after a call");
        // A call entering while it lingers keeps it ticking.
        drop(ticker.enter());
        std::thread::sleep(Duration::from_millis(40));
        assert!(ticks.load(Ordering::Relaxed) >= between + 3);
    }
}
