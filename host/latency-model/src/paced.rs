//! [`PacedBody`]: a body stream released quantum by quantum at the times a
//! [`Transfer`] gives, with a pluggable [`Timer`].

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use tokio::time::Instant;

use crate::{QUANTUM, Transfer};

/// How a paced body sleeps until a quantum is due.
///
/// [`TokioTimer`] is tokio's timer (exact under a paused test clock; about a
/// millisecond of granularity in real time). A server that must hit its
/// first-byte latency to the tenth of a millisecond supplies a finer one.
pub trait Timer: Send + Sync + Unpin + 'static {
    /// The sleep future.
    type Sleep: Future<Output = ()> + Send + Sync;
    /// A future that completes at `deadline`.
    fn sleep_until(&self, deadline: Instant) -> Self::Sleep;
}

/// Tokio's timer ([`tokio::time::sleep_until`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioTimer;

impl Timer for TokioTimer {
    type Sleep = tokio::time::Sleep;

    fn sleep_until(&self, deadline: Instant) -> Self::Sleep {
        tokio::time::sleep_until(deadline)
    }
}

/// Waits until `deadline` with `timer` (returns at once when it has passed).
pub async fn sleep_until<T: Timer>(timer: &T, deadline: Instant) {
    if deadline > Instant::now() {
        timer.sleep_until(deadline).await;
    }
}

/// A body stream paced by a [`Transfer`].
///
/// Each chunk of `inner` is cut into pieces of at most [`QUANTUM`] bytes
/// (zero-copy, [`Bytes::split_to`]); a piece is released once
/// [`Transfer::due`] says the body's bytes up to its end are delivered,
/// sleeping with the timer until then. An error from `inner` is passed on as
/// soon as it is reached (after the pieces before it were released), so a
/// body cut short fails where it was cut. The caller sends the headers at
/// [`Transfer::headers_at`] first.
///
/// # Lead
/// With a lead `d` ([`PacedBody::with_lead`]) a piece goes out once it is
/// due within `d`: the transfer is asked whether the piece's bytes are
/// delivered by `now + d` (on a shared link that moves the link's clock `d`
/// ahead, so a body joining within it joins up to `d` late), and the body
/// sleeps until `at − d` for a piece not yet due, `at` the time the transfer
/// names to look again. For a timer that is never early and up to one tick
/// `g` late, `d = g / 2` centres each piece's error on its time, within
/// `±g / 2`: tokio's timer
/// (`g` = 1 ms) then needs no wake-up of another thread, where a finer timer
/// ([`Timer`]'s docs) pays a thread hand-off per piece. The default lead is
/// zero: never early, up to a tick late.
pub struct PacedBody<S, T: Timer> {
    inner: Option<S>,
    transfer: Transfer,
    timer: T,
    /// What is left of the current chunk of `inner`.
    rest: Bytes,
    /// The piece taken and not yet released.
    piece: Option<Bytes>,
    /// Bytes released so far.
    released: u64,
    /// How long before its time a piece may go.
    lead: Duration,
    sleep: Option<(Instant, Pin<Box<T::Sleep>>)>,
}

impl<S, T: Timer> PacedBody<S, T> {
    /// Paces `inner` by `transfer`, sleeping with `timer`.
    pub fn new(inner: S, transfer: Transfer, timer: T) -> Self {
        Self {
            inner: Some(inner),
            transfer,
            timer,
            rest: Bytes::new(),
            piece: None,
            released: 0,
            lead: Duration::ZERO,
            sleep: None,
        }
    }

    /// Lets each piece go up to `lead` before its time (the type's docs,
    /// *Lead*).
    pub fn with_lead(mut self, lead: Duration) -> Self {
        self.lead = lead;
        self
    }

    /// Stalls the body once `after` bytes were delivered, for `pause`
    /// ([`Transfer::stall`]). For fault injection.
    pub fn with_stall(mut self, after: u64, pause: Duration) -> Self {
        self.transfer.stall(after, pause);
        self
    }

    /// The transfer timing this body.
    pub fn transfer(&self) -> &Transfer {
        &self.transfer
    }

    /// Body bytes released so far.
    pub fn released(&self) -> u64 {
        self.released
    }
}

impl<S, T: Timer> fmt::Debug for PacedBody<S, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PacedBody")
            .field("transfer", &self.transfer)
            .field("released", &self.released)
            .field("buffered", &self.rest.len())
            .finish_non_exhaustive()
    }
}

impl<S, E, T> Stream for PacedBody<S, T>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    T: Timer,
{
    type Item = Result<Bytes, E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(piece) = &this.piece {
                let upto = this.released + piece.len() as u64;
                // Delivered by `now + lead` in the model? (`due` names the
                // time to look again, which may be another body's event
                // rather than this piece's time: it is asked about the
                // instant that counts, not compared with the lead.)
                let due = this
                    .transfer
                    .due(upto, Instant::now() + this.lead, cx.waker());
                match due {
                    None => {
                        this.sleep = None;
                        this.released = upto;
                        if let Some(piece) = this.piece.take() {
                            return Poll::Ready(Some(Ok(piece)));
                        }
                    }
                    Some(at) => {
                        if this.sleep.as_ref().is_none_or(|(t, _)| *t != at) {
                            let wake = at.checked_sub(this.lead).unwrap_or(at);
                            this.sleep = Some((at, Box::pin(this.timer.sleep_until(wake))));
                        }
                        if let Some((_, sleep)) = &mut this.sleep {
                            ready!(sleep.as_mut().poll(cx));
                        }
                        this.sleep = None;
                    }
                }
                continue;
            }
            if this.rest.is_empty() {
                let Some(inner) = &mut this.inner else {
                    return Poll::Ready(None);
                };
                match ready!(Pin::new(inner).poll_next(cx)) {
                    None => {
                        this.inner = None;
                        return Poll::Ready(None);
                    }
                    Some(Err(e)) => return Poll::Ready(Some(Err(e))),
                    Some(Ok(chunk)) => {
                        this.rest = chunk;
                        continue;
                    }
                }
            }
            let take = QUANTUM.min(this.rest.len());
            this.piece = Some(this.rest.split_to(take));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures::StreamExt;

    use super::*;
    use crate::{Model, SimulateConfig};

    type Chunks = futures::stream::Iter<std::vec::IntoIter<Result<Bytes, String>>>;

    fn body(chunks: Vec<Result<Bytes, String>>) -> Chunks {
        futures::stream::iter(chunks)
    }

    fn quiet() -> SimulateConfig {
        SimulateConfig {
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn pieces_arrive_at_their_pace() {
        let model = Arc::new(Model::new(quiet()));
        let t0 = Instant::now();
        let transfer = model.start(1 << 20);
        sleep_until(&TokioTimer, transfer.headers_at()).await;
        assert_eq!(t0.elapsed(), Duration::from_millis(25));
        let mut paced = PacedBody::new(
            body(vec![Ok(Bytes::from(vec![1u8; 1 << 20]))]),
            transfer,
            TokioTimer,
        );
        let mut got = 0usize;
        let mut times = Vec::new();
        while let Some(piece) = paced.next().await {
            let piece = piece.unwrap();
            assert!(piece.len() <= QUANTUM);
            got += piece.len();
            times.push(t0.elapsed());
        }
        assert_eq!(got, 1 << 20);
        assert_eq!(times.len(), (1 << 20) / QUANTUM);
        // 5 ms per MiB: the first 64 KiB due 0.3125 ms after the headers, the
        // last at 30 ms. Tokio's timer wakes on whole milliseconds (also when
        // paused), never early; pieces already due go at once, so the
        // lateness never accumulates.
        assert_eq!(times[0], Duration::from_millis(26));
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*times.last().unwrap(), Duration::from_millis(30));
    }

    #[tokio::test(start_paused = true)]
    async fn a_lead_centres_each_piece_on_its_time() {
        let model = Arc::new(Model::new(quiet()));
        let t0 = Instant::now();
        let transfer = model.start(1 << 20);
        sleep_until(&TokioTimer, transfer.headers_at()).await;
        let lead = Duration::from_micros(500);
        let mut paced = PacedBody::new(
            body(vec![Ok(Bytes::from(vec![1u8; 1 << 20]))]),
            transfer,
            TokioTimer,
        )
        .with_lead(lead);
        let (mut got, mut early, mut late) = (0usize, 0.0f64, 0.0f64);
        let mut wakes = Vec::new();
        while let Some(piece) = paced.next().await {
            got += piece.unwrap().len();
            // 25 ms first byte, then 5 ms per MiB.
            let due = 25.0 + 5.0 * got as f64 / (1 << 20) as f64;
            let at = t0.elapsed().as_secs_f64() * 1e3;
            early = early.max(due - at);
            late = late.max(at - due);
            wakes.push(t0.elapsed());
        }
        assert_eq!(got, 1 << 20);
        // Never more than the lead early, nor more than a tick less the lead
        // late (tokio's paused clock wakes on whole milliseconds).
        assert!(early <= 0.5 + 1e-9, "{early} ms early");
        assert!(late <= 0.5 + 1e-9, "{late} ms late");
        // Sixteen pieces went out on six ticks (25..=30 ms), not sixteen.
        wakes.dedup();
        assert_eq!(wakes.len(), 6, "{wakes:?}");
    }

    /// Another body's end within the lead is not this body's piece being
    /// due: the link names the next event as the time to look again, and a
    /// piece was released whenever that time fell within the lead (until
    /// 2026-12-07: the whole body at once, far ahead of the link, so that
    /// warp-s3 delivered faster than its link whenever bodies ended close
    /// together).
    #[tokio::test(start_paused = true)]
    async fn another_bodys_end_within_the_lead_does_not_release_a_piece() {
        let model = Arc::new(Model::new(SimulateConfig {
            per_mib_ms: 0.0,
            link_mib_per_s: 100.0,
            ..quiet()
        }));
        let t0 = Instant::now();
        let lead = Duration::from_micros(500);
        // 64 KiB and 1 MiB share 100 MiB/s from the headers at 25 ms: the
        // small body ends at 26.25 ms, the large one alone from then on at
        // 25 + 1.25 + 9.375 = 35.625 ms.
        let small = model.start(64 << 10);
        let large = model.start(1 << 20);
        sleep_until(&TokioTimer, large.headers_at()).await;
        let pace = |transfer, len: usize| {
            PacedBody::new(
                body(vec![Ok(Bytes::from(vec![1u8; len]))]),
                transfer,
                TokioTimer,
            )
            .with_lead(lead)
        };
        let (mut small, mut large) = (pace(small, 64 << 10), pace(large, 1 << 20));
        let ends = futures::future::join(
            async {
                while small.next().await.is_some() {}
                t0.elapsed()
            },
            async {
                let mut got = 0usize;
                let mut early = 0.0f64;
                while let Some(piece) = large.next().await {
                    got += piece.unwrap().len();
                    // Shared at 50 MiB/s up to 128 KiB (26.25 ms), alone after.
                    let due = if got <= 128 << 10 {
                        25.0 + got as f64 / (50 << 20) as f64 * 1e3
                    } else {
                        26.25 + (got - (128 << 10)) as f64 / (100 << 20) as f64 * 1e3
                    };
                    early = early.max(due - t0.elapsed().as_secs_f64() * 1e3);
                }
                (t0.elapsed(), early)
            },
        )
        .await;
        let (small_end, (large_end, early)) = ends;
        assert_eq!(small_end, Duration::from_millis(26), "{small_end:?}");
        assert!(early <= 0.5 + 1e-9, "a piece went {early} ms early");
        assert_eq!(large_end, Duration::from_millis(36), "{large_end:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn an_error_ends_the_body_where_it_was_cut() {
        let model = Arc::new(Model::new(quiet()));
        let t0 = Instant::now();
        let transfer = model.start(1 << 19);
        sleep_until(&TokioTimer, transfer.headers_at()).await;
        let mut paced = PacedBody::new(
            body(vec![Ok(Bytes::from(vec![0u8; 1 << 19])), Err("cut".into())]),
            transfer,
            TokioTimer,
        )
        .with_stall(1 << 18, Duration::from_millis(40));
        let mut got = 0;
        let err = loop {
            match paced.next().await {
                Some(Ok(p)) => got += p.len(),
                Some(Err(e)) => break e,
                None => panic!("the error was lost"),
            }
        };
        assert_eq!((got, err.as_str()), (1 << 19, "cut"));
        // 25 ms first byte, 2.5 ms for half a MiB, 40 ms stalled half-way:
        // due at 67.5 ms, released on the next millisecond tick.
        assert_eq!(t0.elapsed(), Duration::from_millis(68));
        assert_eq!(paced.released(), 1 << 19);
    }
}
