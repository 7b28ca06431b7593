//! One planned GET: a range read with a stall timeout, checked for the
//! range and length it returns, retried once, hedged when it straggles.

use std::future::poll_fn;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore};
use tokio::sync::Semaphore;
use tokio::time::{Instant, timeout};

use crate::body::Body;
use crate::error::PlannedError;
use crate::hedge::Hedger;
use crate::load::{GetSample, LoadEstimator};
use crate::stats::CallStats;
use crate::wait::WaitClock;

/// Counters of one call, updated by its concurrent GETs (they survive the
/// call being cancelled by its deadline).
#[derive(Debug, Default)]
pub(crate) struct CallCounters {
    hedges: AtomicU64,
    hedges_won: AtomicU64,
    refetches: AtomicU64,
    stalls: AtomicU64,
}

impl CallCounters {
    /// Adds the counters into `s`.
    pub(crate) fn add_to(&self, s: &mut CallStats) {
        let r = Ordering::Relaxed;
        s.hedges += self.hedges.load(r);
        s.hedges_won += self.hedges_won.load(r);
        s.refetches += self.refetches.load(r);
        s.stalls += self.stalls.load(r);
    }
}

/// A GET's body, kept as its chunks (never joined: gap bytes are not
/// copied), and the object's size (for past-the-end errors).
pub(crate) type Got = (Body, u64);

/// What a GET needs from its store.
pub(crate) struct Getter<'a, S: ObjectStore + ?Sized> {
    pub store: &'a S,
    pub location: &'a Path,
    pub stall: Duration,
    pub load: &'a LoadEstimator,
    pub hedger: Option<&'a Hedger>,
    pub io: &'a Semaphore,
    pub counters: &'a CallCounters,
}

/// Decrements the in-flight count however the GET ends (cancellation too).
struct InFlight<'a>(&'a LoadEstimator);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

impl<S: ObjectStore + ?Sized> Getter<'_, S> {
    /// One attempt: headers within the stall timeout, then every body chunk
    /// within it; the answer must be the requested range (or its prefix up
    /// to the object's end) with exactly that many bytes. The inner store's
    /// client may refuse a wrong range itself (object_store's HTTP stores
    /// check `Content-Range`): that is [`PlannedError::RangeRefused`], retried
    /// like this check's own [`PlannedError::WrongRange`].
    async fn attempt(&self, range: &Range<u64>) -> Result<Got, PlannedError> {
        let in_flight = self.load.issue();
        let _guard = InFlight(self.load);
        let start = Instant::now();
        let opts = GetOptions::new().with_range(Some(range.clone()));
        let stalled = || PlannedError::Stalled {
            timeout: self.stall,
            offset: range.start,
            len: range.end - range.start,
        };
        let res = timeout(self.stall, self.store.get_opts(self.location, opts))
            .await
            .map_err(|_| stalled())?
            .map_err(|e| PlannedError::from_get(e, range))?;
        let first_byte = start.elapsed();
        let got = res.range.clone();
        let size = res.meta.size;
        let ends_ok = got.end == range.end || (got.end < range.end && got.end == size);
        if got.start != range.start || got.end > range.end || !ends_ok {
            return Err(PlannedError::WrongRange {
                requested: range.clone(),
                got,
            });
        }
        let expected = got.end - got.start;
        let mut chunks: Vec<Bytes> = Vec::new();
        let mut received = 0u64;
        let mut stream = res.into_stream();
        let mut clock = WaitClock::new();
        loop {
            let next = poll_fn(|cx| clock.poll(cx, |cx| stream.poll_next_unpin(cx)));
            match timeout(self.stall, next).await {
                Err(_) => return Err(stalled()),
                Ok(None) => break,
                Ok(Some(Err(e))) => return Err(PlannedError::from_get(e, range)),
                Ok(Some(Ok(chunk))) => {
                    received += chunk.len() as u64;
                    self.load.arrived(chunk.len() as u64);
                    if received > expected {
                        break;
                    }
                    chunks.push(chunk);
                }
            }
        }
        if received != expected {
            return Err(PlannedError::WrongRange {
                requested: range.clone(),
                got: got.start..got.start + received,
            });
        }
        let latency = start.elapsed();
        self.load.observe(GetSample {
            len: received,
            first_byte_ms: first_byte.as_secs_f64() * 1000.0,
            latency_ms: latency.as_secs_f64() * 1000.0,
            waited_ms: clock.waited().as_secs_f64() * 1000.0,
            late_ms: clock.late().as_secs_f64() * 1000.0,
            in_flight,
            done: start + latency,
        });
        Ok((Body::new(chunks), size))
    }

    /// An attempt, and one more after a stall or a wrong range or length
    /// (this layer's check or the inner client's).
    async fn with_retry(&self, range: &Range<u64>) -> Result<Got, PlannedError> {
        match self.attempt(range).await {
            Err(e) if e.is_retryable() => {
                let r = Ordering::Relaxed;
                if matches!(e, PlannedError::Stalled { .. }) {
                    self.counters.stalls.fetch_add(1, r);
                }
                self.counters.refetches.fetch_add(1, r);
                let again = self.attempt(range).await;
                if let Err(PlannedError::Stalled { .. }) = &again {
                    self.counters.stalls.fetch_add(1, r);
                }
                again
            }
            other => other,
        }
    }

    /// Fetches `range` (predicted to take `t_ms`) under an I/O slot, hedging
    /// it when it straggles (see [`crate::hedge`]): still outstanding at the
    /// edge of the normal band, it is a straggler (counted towards the
    /// budget's refill whether or not a token and a slot are free for it).
    pub(crate) async fn fetch(&self, range: Range<u64>, t_ms: f64) -> Result<Got, PlannedError> {
        let _slot = self.io.acquire().await.map_err(|_| PlannedError::Stalled {
            timeout: self.stall,
            offset: range.start,
            len: range.end - range.start,
        })?;
        let Some(hedger) = self.hedger else {
            return self.with_retry(&range).await;
        };
        hedger.credit();
        let start = Instant::now();
        let primary = self.with_retry(&range);
        tokio::pin!(primary);
        tokio::select! {
            biased;
            r = &mut primary => {
                hedger.observe(start.elapsed().as_secs_f64() * 1000.0, t_ms, false);
                return r;
            }
            () = tokio::time::sleep(hedger.delay(t_ms)) => {}
        }
        let slot = match (hedger.try_take(), hedger.try_slot()) {
            (true, Some(slot)) => slot,
            (took, _) => {
                if took {
                    hedger.refund();
                }
                let r = primary.await;
                hedger.observe(start.elapsed().as_secs_f64() * 1000.0, t_ms, true);
                return r;
            }
        };
        self.counters.hedges.fetch_add(1, Ordering::Relaxed);
        let hedge = async {
            let _slot = slot;
            self.with_retry(&range).await
        };
        tokio::pin!(hedge);
        // First answer wins; the loser is dropped (its request cancelled).
        // If the first to finish failed, the other still gets its chance.
        let out = tokio::select! {
            biased;
            r = &mut primary => match r {
                Ok(got) => Ok(got),
                Err(_) => self.won(hedge.await),
            },
            r = &mut hedge => match r {
                Ok(got) => self.won(Ok(got)),
                Err(_) => primary.await,
            },
        };
        hedger.observe(start.elapsed().as_secs_f64() * 1000.0, t_ms, true);
        out
    }

    fn won(&self, r: Result<Got, PlannedError>) -> Result<Got, PlannedError> {
        if r.is_ok() {
            self.counters.hedges_won.fetch_add(1, Ordering::Relaxed);
        }
        r
    }
}
