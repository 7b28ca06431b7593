//! [`Model`] (one profile, its request counter and its link) and
//! [`Transfer`] (one GET: when its headers go out, when each byte of its
//! body is delivered).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::Waker;
use std::time::Duration;

use tokio::time::Instant;

use crate::link::FlowId;
use crate::{Draw, Link, SimulateConfig};

/// Largest piece of a body released as one unit, bytes (64 KiB), so a body
/// arrives in many pieces rather than at once.
pub const QUANTUM: usize = 64 << 10;

/// A simulated S3 profile in use: the configuration, the number of GETs
/// started so far (each GET's draws are seeded by its number) and the link
/// all of their bodies share.
#[derive(Debug)]
pub struct Model {
    config: SimulateConfig,
    requests: AtomicU64,
    link: Link,
    /// Origin of the link's clock (seconds since then).
    epoch: Instant,
}

impl Model {
    /// A model of `config` with an idle link and request numbering from 0.
    /// The configuration should pass [`SimulateConfig::validate`]; a
    /// negative or non-finite duration is taken as 0 rather than trusted.
    pub fn new(config: SimulateConfig) -> Self {
        Self {
            config,
            requests: AtomicU64::new(0),
            link: Link::new(config.link_mib_per_s),
            epoch: Instant::now(),
        }
    }

    /// The profile.
    pub fn config(&self) -> &SimulateConfig {
        &self.config
    }

    /// GETs started so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Bodies on the link now (joined and not yet dropped).
    pub fn flows(&self) -> usize {
        self.link.flows()
    }

    /// Starts the next GET, of a `len`-byte body, now
    /// ([`tokio::time::Instant::now`], so a paused test clock makes the
    /// model exact).
    pub fn start(self: &Arc<Self>, len: u64) -> Transfer {
        self.start_at(Instant::now(), len)
    }

    /// Starts the next GET as issued at `issued`: draws its tail and body
    /// ([`Draw::new`] with the next request number) and fixes when its
    /// headers go out, `issued + T · first_byte_ms · B`.
    pub fn start_at(self: &Arc<Self>, issued: Instant, len: u64) -> Transfer {
        let request = self.requests.fetch_add(1, Ordering::Relaxed);
        let draw = Draw::new(&self.config, request);
        let headers_at = issued + duration_secs(draw.first_byte_ms(&self.config) / 1000.0);
        Transfer {
            model: Arc::clone(self),
            secs_per_byte: draw.ms_per_mib(&self.config) / (1000.0 * 1_048_576.0),
            draw,
            headers_at,
            len,
            stall: None,
            flow: None,
        }
    }

    fn secs(&self, t: Instant) -> f64 {
        t.saturating_duration_since(self.epoch).as_secs_f64()
    }

    /// The instant `secs` after the epoch, rounded up to the next whole
    /// nanosecond: a time the link names is then never converted to an
    /// instant before it (where the link would not yet have reached it).
    fn instant(&self, secs: f64) -> Instant {
        let nanos = (secs * 1e9).ceil();
        if (0.0..1e18).contains(&nanos) {
            self.epoch + Duration::from_nanos(nanos as u64)
        } else {
            self.epoch + duration_secs(secs)
        }
    }
}

/// `s` seconds as a duration; 0 for a negative or NaN value, saturated at a
/// year (so bad input never panics).
fn duration_secs(s: f64) -> Duration {
    const YEAR: f64 = 365.0 * 86_400.0;
    if s > 0.0 {
        Duration::from_secs_f64(s.min(YEAR))
    } else {
        Duration::ZERO
    }
}

/// One GET in flight.
///
/// Its body of `len` bytes starts at the headers and streams at the GET's own
/// pace `T · e` ms per MiB (`e` = [`SimulateConfig::effective_per_mib_ms`];
/// none when 0) and, when the link is limited, at its max-min fair share of
/// the link ([`Link`]). Without a link the first `b` bytes are delivered at
/// `headers_at + T · e · b / 2^20` exactly; with one, at the fluid
/// processor-sharing time. A lone GET of `x` MiB on a link faster than its
/// pace thus ends at `issued + T · (first_byte_ms · B + e · x)`, the
/// single-request latency of [`SimulateConfig::surrogate`] (times the tail).
///
/// Times are model times: a consumer that reads late finds the bytes already
/// delivered (as if the client's socket buffer had taken them), and a late
/// timer never delays the bytes after it. Dropping the transfer takes it off
/// the link.
#[derive(Debug)]
pub struct Transfer {
    model: Arc<Model>,
    draw: Draw,
    headers_at: Instant,
    len: u64,
    /// Own pace, seconds per byte (`T · e / (1000 · 2^20)`).
    secs_per_byte: f64,
    /// Pause once this many bytes are delivered, for this long.
    stall: Option<(u64, Duration)>,
    flow: Option<FlowId>,
}

impl Transfer {
    /// This GET's draws.
    pub fn draw(&self) -> Draw {
        self.draw
    }

    /// When the headers (and the first byte) go out.
    pub fn headers_at(&self) -> Instant {
        self.headers_at
    }

    /// Length of the body, bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Sends the headers `delay` later, and the body from then on at its
    /// pace (a delayed-headers fault). Call before the body starts.
    pub fn delay_headers(&mut self, delay: Duration) {
        self.headers_at += delay;
    }

    /// Stalls the body once `after` bytes are delivered, for `pause`; the
    /// rest goes on at its pace afterwards (a stalled-body fault; it gives up
    /// its link share meanwhile). Call before the body starts.
    pub fn stall(&mut self, after: u64, pause: Duration) {
        self.stall = Some((after, pause));
    }

    /// Whether the first `upto` bytes of the body are delivered at `now`:
    /// `None` if so, else the time to look again (exact without a link; with
    /// one, the estimate under the current shares or the next change of
    /// shares, whichever is first). `waker` is woken when another body leaves
    /// the link early. O(1) plus the link events it processes.
    pub fn due(&mut self, upto: u64, now: Instant, waker: &Waker) -> Option<Instant> {
        let upto = upto.min(self.len);
        if upto == 0 && now >= self.headers_at {
            return None;
        }
        let m = Arc::clone(&self.model);
        if !m.link.is_limited() {
            let mut at = self.headers_at + duration_secs(self.secs_per_byte * upto as f64);
            if let Some((after, pause)) = self.stall
                && upto > after
            {
                at += pause;
            }
            return (at > now).then_some(at);
        }
        let flow = match self.flow {
            Some(f) => f,
            None => {
                let cap = if self.secs_per_byte > 0.0 {
                    1.0 / self.secs_per_byte
                } else {
                    f64::INFINITY
                };
                let stall = self.stall.map(|(a, p)| (a, p.as_secs_f64()));
                let f = m.link.join(m.secs(self.headers_at), self.len, cap, stall);
                self.flow = Some(f);
                f
            }
        };
        let now_s = m.secs(now);
        // Always a time after `now`, so a caller that looks again then makes
        // progress even where float rounding put the link's time at `now`.
        m.link
            .due(flow, upto, now_s, waker)
            .map(|t| m.instant(t).max(now + Duration::from_nanos(1)))
    }
}

impl Drop for Transfer {
    fn drop(&mut self) {
        if let Some(f) = self.flow.take() {
            self.model.link.leave(f, self.model.secs(Instant::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quiet() -> SimulateConfig {
        SimulateConfig {
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        }
    }

    /// When all `len` bytes of a lone GET are delivered, ms after its start,
    /// found by asking again at each time it names.
    fn lone(model: &Arc<Model>, len: u64) -> f64 {
        let t0 = Instant::now();
        let mut t = model.start_at(t0, len);
        let mut now = t.headers_at();
        while let Some(next) = t.due(len, now, Waker::noop()) {
            now = next;
        }
        (now - t0).as_secs_f64() * 1000.0
    }

    #[tokio::test(start_paused = true)]
    async fn a_lone_get_takes_first_byte_plus_its_pace() {
        let model = Arc::new(Model::new(quiet()));
        // 25 ms + 5 ms/MiB · 8 MiB; the 4096 MiB/s link is never the bound.
        assert!((lone(&model, 1) - 25.0).abs() < 1e-3);
        assert!((lone(&model, 8 << 20) - 65.0).abs() < 1e-3);
        assert_eq!(model.requests(), 2);
        // A per-connection cap slower than the pace sets it: 1 MiB at 100 MiB/s.
        let capped = Arc::new(Model::new(SimulateConfig {
            per_conn_mib_per_s: 100.0,
            ..quiet()
        }));
        assert!((lone(&capped, 1 << 20) - 35.0).abs() < 1e-3);
        // A link slower than the pace (200 MiB/s) binds: 16 MiB at 100 MiB/s.
        let slow_link = Arc::new(Model::new(SimulateConfig {
            link_mib_per_s: 100.0,
            ..quiet()
        }));
        assert!((lone(&slow_link, 16 << 20) - 185.0).abs() < 1e-3);
        // Without a link the same GET is exact in closed form.
        let open = Arc::new(Model::new(SimulateConfig {
            link_mib_per_s: 0.0,
            ..quiet()
        }));
        assert!((lone(&open, 16 << 20) - 105.0).abs() < 1e-3);
    }

    #[tokio::test(start_paused = true)]
    async fn delays_and_stalls_shift_the_body() {
        for link in [0.0, 4096.0] {
            let model = Arc::new(Model::new(SimulateConfig {
                link_mib_per_s: link,
                ..quiet()
            }));
            let t0 = Instant::now();
            let mut t = model.start_at(t0, 2 << 20);
            t.delay_headers(Duration::from_millis(300));
            t.stall(1 << 20, Duration::from_millis(100));
            assert_eq!(t.headers_at() - t0, Duration::from_millis(325));
            let mut now = t.headers_at();
            while let Some(next) = t.due(2 << 20, now, Waker::noop()) {
                now = next;
            }
            // 325 ms, 5 ms for the first MiB, 100 ms stalled, 5 ms more.
            let ms = (now - t0).as_secs_f64() * 1000.0;
            assert!((ms - 435.0).abs() < 1e-3, "link {link}: {ms}");
        }
    }

    #[test]
    fn bad_durations_do_not_panic() {
        assert_eq!(duration_secs(-5.0), Duration::ZERO);
        assert_eq!(duration_secs(f64::NAN), Duration::ZERO);
        assert!(duration_secs(f64::INFINITY) >= Duration::from_secs(86_400));
    }
}
