//! [`PreciseTimer`]: sub-millisecond sleeps for paced bodies.
//!
//! Tokio's timer wakes on whole milliseconds (a 25 ms first byte would come
//! 0–2 ms late, up to 8 %); async-io's timer sleeps on a `timerfd`, with
//! nanosecond resolution (in practice the kernel's timer slack, ~50 µs).
//! Only for real time: under tokio's paused test clock use
//! [`warp_latency_model::TokioTimer`].

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::time::Instant;
use warp_latency_model::Timer;

/// async-io's timer as a [`Timer`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PreciseTimer;

/// A sleep of [`PreciseTimer`].
#[derive(Debug)]
pub struct PreciseSleep(async_io::Timer);

impl Future for PreciseSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.0).poll(cx).map(|_| ())
    }
}

impl Timer for PreciseTimer {
    type Sleep = PreciseSleep;

    fn sleep_until(&self, deadline: Instant) -> PreciseSleep {
        PreciseSleep(async_io::Timer::at(deadline.into_std()))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn sleeps_are_finer_than_a_millisecond() {
        let mut late = Vec::new();
        for _ in 0..21 {
            let t = Instant::now() + Duration::from_micros(300);
            PreciseTimer.sleep_until(t).await;
            let now = Instant::now();
            assert!(now >= t, "woke early");
            late.push(now - t);
        }
        // The median, not the worst: a busy machine (the rest of the test
        // suite on 2 cores) may deschedule any one wake-up for milliseconds,
        // while tokio's timer is late by up to a millisecond every time.
        late.sort();
        assert!(
            late[10] < Duration::from_micros(900),
            "median {:?} late",
            late[10]
        );
    }
}
