//! When warp-s3 sends what the latency model times: on tokio's timer, aimed
//! half a tick early ([`LEAD`]), so that the headers and each piece of a body
//! go out within ±0.5 ms of their modelled time.
//!
//! Tokio's timer is never early and up to one tick (1 ms) late; asked for
//! `t − 0.5 ms` it wakes in `[t − 0.5, t + 0.5)` ms plus the wake-up's own
//! delay, centred on `t`. Its wake-ups run on the worker that parks on the
//! timer wheel, one per tick for every sleep due in it. Until 2026-12-06
//! warp-s3 slept on async-io's `timerfd` timer instead (sub-millisecond, never
//! early): each sleep was a timer on async-io's own thread and a hand-off to
//! a tokio worker, about ten context switches a GET with its 64 KiB body
//! pieces, and most of the server's CPU. Measured on one cell of the load
//! grid over warp-s3 (synthetic identity, 1 GiB/s link, `Q` = 32,
//! `object_store_rule`, 13 600 GETs, idle 2-vCPU box): 3.5 s of the
//! server's CPU before and 132 000 context switches (counted with body
//! pieces batched 1 ms ahead, which left the CPU at 3.6 s), 1.3 s and
//! 21 000 after; the client on the same cores spent 2.1 s of CPU instead of
//! 3.1–3.2; `warp calibrate` read the first byte 25.56 / 25.57 / 24.56 ms at
//! concurrency 1 / 8 / 32 (model 25, every slope within 0.1 %;
//! `bench/results/s3-timer-2026-12-06/`).

use std::time::Duration;

use tokio::time::Instant;
use warp_latency_model::{TokioTimer, sleep_until};

/// How long before its modelled time warp-s3 sends the headers or a piece of
/// a body ([`warp_latency_model::PacedBody::with_lead`]): half of tokio's
/// millisecond tick.
pub const LEAD: Duration = Duration::from_micros(500);

/// Sleeps until about `deadline`: within ±0.5 ms of it, plus the wake-up's
/// delay (see the module's docs). Returns at once when it is less than
/// [`LEAD`] away.
pub async fn sleep_until_about(deadline: Instant) {
    sleep_until(&TokioTimer, deadline.checked_sub(LEAD).unwrap_or(deadline)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn sleeps_end_within_half_a_tick_of_their_time() {
        let mut off = Vec::new();
        for i in 0..21u64 {
            // Deadlines at every tenth of a millisecond past a tick.
            let t = Instant::now() + Duration::from_micros(2_000 + 100 * (i % 10));
            sleep_until_about(t).await;
            let now = Instant::now();
            // Never earlier than the lead: tokio's timer is never early.
            assert!(now + LEAD >= t, "woke {:?} early", t - now);
            let late = now.saturating_duration_since(t).as_secs_f64();
            let early = t.saturating_duration_since(now).as_secs_f64();
            off.push((late - early) * 1e3);
        }
        // The median, not the worst: a busy machine (the rest of the test
        // suite on 2 cores) may deschedule any one wake-up for milliseconds.
        off.sort_by(f64::total_cmp);
        assert!(off[10].abs() < 0.9, "median {:.3} ms off", off[10]);
    }
}
