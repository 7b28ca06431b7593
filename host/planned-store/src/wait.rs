//! How long a body's reader waited for its bytes: the network's share of a
//! body's time, told from the reader's own lateness by stamping its waker.
//!
//! # Why
//! A body's time, headers to last byte, is the link's only while the reader
//! is ready for every chunk as it comes. A reader that waits for a core
//! between chunks (a process beside CPU-bound neighbours, or busy with its
//! own scans) finds the chunks already there when it runs, and its body
//! time stretches in proportion to its bytes just as a shared link's does:
//! the link estimator ([`load`](crate::load)) then reads the rate at which
//! the process took bytes in for the link's capacity.
//!
//! # Measure
//! Every poll of the body stream goes through [`WaitClock::poll`]. A poll
//! that returns `Pending` at time `p` starts a wait; the waker passed to the
//! stream is a stamp that records the first wake `w` after it and passes
//! the wake on; the next poll, at `t`, ends the wait. Then `w − p` was spent
//! waiting for bytes (the network, the timer or driver that delivers them)
//! and `t − w` waiting to run (the scheduler): the body's *waited* time is
//!
//! ```text
//! waited = Σ over waits (w − p),      late = Σ over waits (t − w)
//! ```
//!
//! and a poll that finds its chunk ready adds nothing to either. A poll
//! with no wake since the wait began (spurious, or woken by something
//! else, such as the caller's stall timer) counts all of `t − p` as waited:
//! with no stamp the wait is not split. A wake is clamped into `[p, t]`.
//!
//! What this cannot separate: a wake that is itself late. The driver that
//! turns a socket's readiness or a timer's deadline into the wake runs on
//! the same starved threads, so its delay is counted as waited. The
//! measure therefore keeps out the chunks that piled up while the reader
//! was away, not every delay the process adds.
//!
//! # Cost
//! One allocation per body (the stamp), then per poll one clock read and a
//! few atomic operations (the reader's waker is kept in `futures`'
//! `AtomicWaker`, cloned only when it changed), per wake one clock read;
//! no lock, `O(1)` memory.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use futures::task::AtomicWaker;
use tokio::time::Instant;

/// The waker a body stream is polled with: stamps its first wake since the
/// last poll and passes every wake on to the reader's waker.
#[derive(Debug)]
struct Stamp {
    /// Zero of the stamp's clock.
    base: Instant,
    /// Nanoseconds after `base`, plus one, of the first wake since the last
    /// poll; 0 when not woken.
    woke: AtomicU64,
    /// The reader's waker, as last polled.
    next: AtomicWaker,
}

impl Wake for Stamp {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let ns = u64::try_from(self.base.elapsed().as_nanos()).unwrap_or(u64::MAX - 1) + 1;
        let _ = self
            .woke
            .compare_exchange(0, ns, Ordering::Relaxed, Ordering::Relaxed);
        self.next.wake();
    }
}

/// The waited and late time of one body's reader (module docs).
#[derive(Debug)]
pub(crate) struct WaitClock {
    stamp: Arc<Stamp>,
    waker: Waker,
    /// When the wait in progress began (a poll returned `Pending`).
    since: Option<Instant>,
    waited: Duration,
    late: Duration,
}

impl WaitClock {
    /// A clock with nothing waited.
    pub(crate) fn new() -> Self {
        let stamp = Arc::new(Stamp {
            base: Instant::now(),
            woke: AtomicU64::new(0),
            next: AtomicWaker::new(),
        });
        Self {
            waker: Waker::from(stamp.clone()),
            stamp,
            since: None,
            waited: Duration::ZERO,
            late: Duration::ZERO,
        }
    }

    /// Polls with `f` under the stamping waker, ending the wait in progress
    /// and starting one if `f` returns `Pending`. `O(1)`.
    pub(crate) fn poll<T>(
        &mut self,
        cx: &mut Context<'_>,
        f: impl FnOnce(&mut Context<'_>) -> Poll<T>,
    ) -> Poll<T> {
        let now = Instant::now();
        // Cleared before the stream is polled: a wake from here on is one
        // this poll's registration caused (a stale one from before is not).
        let woke = self.stamp.woke.swap(0, Ordering::Relaxed);
        if let Some(since) = self.since.take() {
            if woke == 0 {
                self.waited += now.saturating_duration_since(since);
            } else {
                let w = (self.stamp.base + Duration::from_nanos(woke - 1)).clamp(since, now);
                self.waited += w.saturating_duration_since(since);
                self.late += now.saturating_duration_since(w);
            }
        }
        self.stamp.next.register(cx.waker());
        let r = f(&mut Context::from_waker(&self.waker));
        if r.is_pending() {
            self.since = Some(now);
        }
        r
    }

    /// Time spent waiting for bytes so far.
    pub(crate) fn waited(&self) -> Duration {
        self.waited
    }

    /// Time spent between a wake and the poll it asked for so far.
    pub(crate) fn late(&self) -> Duration {
        self.late
    }
}

#[cfg(test)]
mod tests {
    use std::future::poll_fn;

    use futures::StreamExt;
    use tokio::sync::mpsc;
    use tokio::time::sleep;

    use super::*;

    fn ms(d: Duration) -> f64 {
        d.as_secs_f64() * 1000.0
    }

    /// Ten chunks sent every 3 ms, read by a reader that is away for
    /// `away_ms` after each (not polling the body meanwhile): the chunks
    /// read, the time it took, ms, and the clock.
    async fn read_away(away_ms: u64) -> (u32, f64, WaitClock) {
        let (tx, rx) = mpsc::channel::<u32>(16);
        let mut rx = tokio_stream_of(rx);
        tokio::spawn(async move {
            for i in 0..10 {
                sleep(Duration::from_millis(3)).await;
                tx.send(i).await.unwrap();
            }
        });
        let mut clock = WaitClock::new();
        let t0 = Instant::now();
        let mut got = 0;
        while poll_fn(|cx| clock.poll(cx, |cx| rx.poll_next_unpin(cx)))
            .await
            .is_some()
        {
            got += 1;
            if away_ms > 0 {
                sleep(Duration::from_millis(away_ms)).await;
            }
        }
        (got, ms(t0.elapsed()), clock)
    }

    /// A reader that is there for every chunk: all of the body's time is
    /// waited, none late.
    #[tokio::test(start_paused = true)]
    async fn a_ready_reader_waits_the_whole_body() {
        let (got, took, clock) = read_away(0).await;
        assert_eq!((got, took), (10, 30.0));
        assert_eq!(ms(clock.waited()), 30.0);
        assert_eq!(ms(clock.late()), 0.0);
    }

    /// A reader away for 20 ms after each chunk while the chunks come every
    /// 3 ms: after the first, every chunk is there when it looks, so only
    /// the first 3 ms are waited.
    #[tokio::test(start_paused = true)]
    async fn chunks_that_piled_up_while_the_reader_was_away_are_not_waited() {
        let (got, took, clock) = read_away(20).await;
        assert_eq!((got, took), (10, 3.0 + 10.0 * 20.0));
        assert_eq!(
            ms(clock.waited()),
            3.0,
            "only the first chunk was waited for"
        );
        assert_eq!(ms(clock.late()), 0.0);
    }

    /// A wake the reader answers late: the time from the wake to the poll
    /// is late, not waited.
    #[tokio::test(start_paused = true)]
    async fn the_time_from_a_wake_to_its_poll_is_late() {
        let (tx, rx) = mpsc::channel::<u32>(1);
        let mut rx = tokio_stream_of(rx);
        let mut clock = WaitClock::new();
        let sender = tokio::spawn(async move {
            sleep(Duration::from_millis(5)).await;
            tx.send(1).await.unwrap();
        });
        // The first poll registers the stamp and returns Pending.
        let first = poll_fn(|cx| Poll::Ready(clock.poll(cx, |cx| rx.poll_next_unpin(cx)))).await;
        assert!(first.is_pending());
        sender.await.unwrap(); // the wake lands at 5 ms
        sleep(Duration::from_millis(7)).await; // the reader comes back at 12
        let second = poll_fn(|cx| Poll::Ready(clock.poll(cx, |cx| rx.poll_next_unpin(cx)))).await;
        assert_eq!(second, Poll::Ready(Some(1)));
        assert_eq!(ms(clock.waited()), 5.0);
        assert_eq!(ms(clock.late()), 7.0);
    }

    /// `rx` as a stream.
    fn tokio_stream_of<T: Send + 'static>(
        rx: mpsc::Receiver<T>,
    ) -> futures::stream::BoxStream<'static, T> {
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|v| (v, rx)) })
            .boxed()
    }
}
