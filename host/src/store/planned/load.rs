//! The load-aware surrogate: what a MiB costs a new request under the load
//! the store is under now (DESIGN §8, issue 11).
//!
//! # Model
//! An unloaded GET of `L` bytes takes `t₀(L) = fixed + base · L/2²⁰` ms (the
//! prior surrogate: per-request first-byte latency plus the per-connection
//! transfer rate). When `N` requests share a link of capacity `C` MiB/s, each
//! is served at `min(1000/base, C/N)` MiB/s, so a MiB costs it
//!
//! ```text
//! per_mib_eff(N) = max(base, 1000 · N / C)          ms per MiB
//! ```
//!
//! and the planner is handed `t(L) = fixed + per_mib_eff · L/2²⁰`.
//!
//! # Estimating `C` online
//! Every completed GET reports its size `L_i`, latency `ℓ_i` (from issue,
//! after its I/O slot was granted, to its last byte) and the requests in
//! flight when it was issued, `N_i` (itself included). Its *excess* over the
//! unloaded time is `x_i = max(0, ℓ_i − t₀(L_i) − jitter(L_i))`, with
//! `jitter = 2 ms + 0.1 · t₀(L_i)` absorbing timer and scheduler noise. Over
//! the last [`WINDOW`] GETs, dropping the 5 % largest excesses (long-tail
//! GETs are the hedger's business, not a load signal):
//!
//! ```text
//! load  = Σ x_i / Σ max(L_i / 2²⁰, 1/16) ms per MiB beyond base
//! N̄     = mean N_i
//! C     = 1000 · N̄ / (base + load)     when load > 0.25 · base, else ∞
//! ```
//!
//! A FIFO link (the simulator's) charges queueing to whoever waits, not to
//! the bytes that caused it; summed over the window the excess still equals
//! the bytes in flight divided by `C`, which is what the per-MiB share above
//! charges. At planning time `N = (N̄ + n_now + 1) / 2` (the window's mean
//! and the requests in flight now plus the new one), so the surrogate follows
//! the present load without jumping with every instantaneous count.
//!
//! # How `P = io_slots / Q` meets the bandwidth term
//! The planner minimizes `T_P = W/P + (1 − 1/P) · B` with
//! `W = Σ_g t(L_g) = K · fixed + per_mib_eff · bytes / 2²⁰`. When the link
//! binds and every I/O slot is busy, `N ≈ Q · P` requests share it, so the
//! bandwidth part of `W/P` is `bytes/2²⁰ · 1000 · Q·P / (C · P) = bytes/2²⁰ ·
//! 1000 · Q / C` ms: exactly the query's fair share `C/Q` of the link.
//! Dividing by `P` does *not* make bytes cheaper as the I/O slots grow: `P`
//! parallel requests split the same share. Merging two requests across a gap
//! of `G` bytes then pays only when `fixed / P > G/2²⁰ · 1000 · Q / C` (from
//! `W`; `B` can only add to the cost of a merge), e.g. at `C = 1024` MiB/s,
//! `Q = 32`, `P = 2`, fixed 25 ms: gaps below ≈ 0.4 MiB; at `C = 4096`:
//! ≈ 1.6 MiB. See the unit tests.
//!
//! # Bounds and determinism
//! `O(WINDOW)` memory; the derived figures are recomputed every 16
//! completions by an `O(WINDOW log WINDOW)` pass. Given the same completion
//! sequence the estimate is the same; a fixed surrogate
//! ([`PlannedStoreBuilder::with_surrogate`](super::PlannedStoreBuilder::with_surrogate))
//! bypasses it entirely.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use planner_core::Surrogate;

/// GETs remembered by the estimator.
pub const WINDOW: usize = 256;
/// Completions between recomputations of the derived figures.
const REFRESH: u32 = 16;
/// Share of the largest excesses ignored.
const TRIM: f64 = 0.05;
/// Bytes (MiB) a GET counts for at least in `Σ L_i`: 64 KiB, so that a
/// millisecond of scheduler noise on a 500-byte read is not taken for a
/// link charging seconds per MiB.
const MIN_MIB: f64 = 1.0 / 16.0;
/// Smoothing of the first-byte and throughput averages.
const ALPHA: f64 = 0.05;

/// One completed GET as the estimator sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetSample {
    /// Bytes received.
    pub len: u64,
    /// Issue to headers, ms.
    pub first_byte_ms: f64,
    /// Issue to last byte, ms.
    pub latency_ms: f64,
    /// Requests in flight when it was issued, itself included.
    pub in_flight: u64,
}

/// What the estimator currently believes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadSnapshot {
    /// GETs observed so far.
    pub samples: u64,
    /// Exponentially weighted first-byte latency, ms (`α = 0.05`).
    pub first_byte_ms: f64,
    /// Exponentially weighted per-request body throughput, MiB/s (0 while
    /// bodies arrive with their headers, as in the simulator).
    pub request_mib_s: f64,
    /// Excess per MiB over the unloaded surrogate, ms (`load` above).
    pub load_per_mib_ms: f64,
    /// Mean requests in flight at issue over the window (`N̄`).
    pub mean_in_flight: f64,
    /// Estimated shared capacity `C`, MiB/s; `None` while no load shows.
    pub capacity_mib_s: Option<f64>,
    /// Requests in flight now.
    pub in_flight: u64,
}

#[derive(Debug, Default)]
struct State {
    window: VecDeque<(f64, f64, f64)>, // (MiB, latency ms, in flight)
    samples: u64,
    first_byte_ms: f64,
    request_mib_s: f64,
    /// The prior and window count the derived figures were computed for.
    derived_for: Option<((f64, f64), u64)>,
    load_per_mib_ms: f64,
    mean_in_flight: f64,
}

/// The online estimator of one store (see the module docs). The unloaded
/// surrogate `t₀` (the prior) is given with each question, so one estimator
/// serves callers with different priors.
#[derive(Debug, Default)]
pub struct LoadEstimator {
    state: Mutex<State>,
    in_flight: AtomicU64,
}

impl LoadEstimator {
    /// An estimator with no samples.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks a GET as issued; returns the requests in flight including it.
    pub fn issue(&self) -> u64 {
        self.in_flight.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Marks a GET as finished (answered, failed or cancelled).
    pub fn finish(&self) {
        let _ = self
            .in_flight
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    /// Records a completed GET.
    pub fn observe(&self, s: GetSample) {
        let mib = s.len as f64 / 1_048_576.0;
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.window.len() == WINDOW {
            st.window.pop_front();
        }
        st.window.push_back((mib, s.latency_ms, s.in_flight as f64));
        let a = if st.samples == 0 { 1.0 } else { ALPHA };
        st.first_byte_ms += a * (s.first_byte_ms - st.first_byte_ms);
        let body_ms = s.latency_ms - s.first_byte_ms;
        if body_ms > 0.5 {
            let rate = mib / (body_ms / 1000.0);
            let a = if st.request_mib_s == 0.0 { 1.0 } else { ALPHA };
            st.request_mib_s += a * (rate - st.request_mib_s);
        }
        st.samples += 1;
    }

    /// The current figures against the unloaded surrogate `prior =
    /// (fixed_ms, per_mib_ms)`.
    pub fn snapshot(&self, prior: (f64, f64)) -> LoadSnapshot {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        refresh_if_stale(&mut st, prior);
        LoadSnapshot {
            samples: st.samples,
            first_byte_ms: st.first_byte_ms,
            request_mib_s: st.request_mib_s,
            load_per_mib_ms: st.load_per_mib_ms,
            mean_in_flight: st.mean_in_flight,
            capacity_mib_s: capacity(&st, prior.1),
            in_flight: self.in_flight.load(Ordering::Relaxed),
        }
    }

    /// The per-MiB cost a new request sees now, ms: `max(base, 1000 · N / C)`
    /// with `N = (N̄ + n_now + 1) / 2`, against `prior = (fixed_ms,
    /// per_mib_ms)`.
    pub fn per_mib_ms(&self, prior: (f64, f64)) -> f64 {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        refresh_if_stale(&mut st, prior);
        let now = self.in_flight.load(Ordering::Relaxed) as f64;
        match capacity(&st, prior.1) {
            None => prior.1,
            Some(c) => {
                let n = (st.mean_in_flight + now + 1.0) / 2.0;
                per_mib_at(prior.1, c, n)
            }
        }
    }

    /// The surrogate to plan with now: `fixed + per_mib_ms(prior) · L/2²⁰`.
    pub fn surrogate(&self, prior: (f64, f64)) -> Surrogate {
        Surrogate::Affine {
            fixed_ms: prior.0,
            per_mib_ms: self.per_mib_ms(prior),
        }
    }
}

fn capacity(st: &State, base_per_mib_ms: f64) -> Option<f64> {
    (st.load_per_mib_ms > 0.25 * base_per_mib_ms && st.mean_in_flight > 0.0)
        .then(|| 1000.0 * st.mean_in_flight / (base_per_mib_ms + st.load_per_mib_ms))
}

fn refresh_if_stale(st: &mut State, prior: (f64, f64)) {
    let fresh = match st.derived_for {
        Some((p, at)) => p == prior && st.samples < at + u64::from(REFRESH),
        None => false,
    };
    if !fresh {
        refresh(st, prior);
        st.derived_for = Some((prior, st.samples));
    }
}

/// `max(base, 1000 · n / capacity)`: the per-MiB cost of one of `n` requests
/// sharing `capacity` MiB/s, each capped at `1000 / base` MiB/s.
pub fn per_mib_at(base_per_mib_ms: f64, capacity_mib_s: f64, n: f64) -> f64 {
    base_per_mib_ms.max(1000.0 * n.max(1.0) / capacity_mib_s)
}

fn refresh(st: &mut State, (fixed_ms, base): (f64, f64)) {
    let n = st.window.len();
    if n == 0 {
        st.load_per_mib_ms = 0.0;
        st.mean_in_flight = 0.0;
        return;
    }
    let excess: Vec<f64> = st
        .window
        .iter()
        .map(|&(mib, latency, _)| {
            let t0 = fixed_ms + base * mib;
            (latency - t0 - (2.0 + 0.1 * t0)).max(0.0)
        })
        .collect();
    let drop = (n as f64 * TRIM) as usize;
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|&a, &b| excess[a].total_cmp(&excess[b]).then(a.cmp(&b)));
    let (mut sx, mut sm, mut sn) = (0.0, 0.0, 0.0);
    for &i in &idx[..n - drop] {
        let (mib, _, inflight) = st.window[i];
        sx += excess[i];
        sm += mib.max(MIN_MIB);
        sn += inflight;
    }
    st.load_per_mib_ms = if sm > 0.0 { sx / sm } else { 0.0 };
    st.mean_in_flight = sn / (n - drop) as f64;
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRIOR: (f64, f64) = (25.0, 5.0);

    fn feed(est: &LoadEstimator, n: usize, len: u64, latency_ms: f64, in_flight: u64) {
        for _ in 0..n {
            est.observe(GetSample {
                len,
                first_byte_ms: latency_ms,
                latency_ms,
                in_flight,
            });
        }
    }

    #[test]
    fn unloaded_store_keeps_the_base_rate() {
        let est = LoadEstimator::new();
        // 1 MiB GETs answered in their unloaded time (30 ms) plus 1 ms noise.
        feed(&est, 300, 1 << 20, 31.0, 8);
        assert_eq!(est.per_mib_ms(PRIOR), 5.0);
        assert_eq!(est.snapshot(PRIOR).capacity_mib_s, None);
    }

    #[test]
    fn a_binding_link_is_charged_per_mib_by_the_share() {
        // 64 requests of 1 MiB in flight on a 1024 MiB/s link: each takes
        // 64/1024 s = 62.5 ms per MiB, so latency ≈ 25 + 62.5.
        let est = LoadEstimator::new();
        feed(&est, WINDOW, 1 << 20, 25.0 + 62.5, 64);
        let snap = est.snapshot(PRIOR);
        // load = 87.5 − 30 − (2 + 3) = 52.5 ms/MiB ⇒ C = 1000·64/57.5.
        let c = snap.capacity_mib_s.unwrap();
        assert!((c - 1000.0 * 64.0 / 57.5).abs() < 1e-6, "{c}");
        // Nothing in flight now: N = (64 + 0 + 1)/2.
        let expect = 1000.0 * 32.5 / c;
        assert!((est.per_mib_ms(PRIOR) - expect).abs() < 1e-9);
        // With 63 in flight the new request sees the window's load.
        for _ in 0..63 {
            est.issue();
        }
        assert!((est.per_mib_ms(PRIOR) - 57.5).abs() < 1e-9);
    }

    #[test]
    fn long_tail_gets_are_trimmed_not_taken_for_load() {
        let est = LoadEstimator::new();
        for i in 0..WINDOW {
            // 4 % of GETs 10× slower.
            let ms = if i % 25 == 0 { 300.0 } else { 30.0 };
            feed(&est, 1, 1 << 20, ms, 8);
        }
        assert_eq!(est.per_mib_ms(PRIOR), 5.0);
    }

    #[test]
    fn parallelism_divides_requests_not_bytes() {
        // T_P's bandwidth part for a query: per_mib_eff(N = Q·P) / P must be
        // 1000·Q/C whatever P is (P = io_slots / Q).
        let c = 1024.0;
        for (slots, q) in [(64.0, 8.0), (64.0, 32.0), (128.0, 32.0), (64.0, 64.0)] {
            let p: f64 = slots / q;
            let per_mib = per_mib_at(5.0, c, q * p);
            assert!((per_mib / p - 1000.0 * q / c).abs() < 1e-9, "{slots} {q}");
        }
        // Below saturation the per-connection cap rules.
        assert_eq!(per_mib_at(5.0, 4096.0, 4.0), 5.0);
        // The merge threshold: merging across G MiB pays iff fixed/P > G·1000·Q/C.
        let gap_mib = |fixed: f64, p: f64, q: f64, c: f64| fixed / p / (1000.0 * q / c);
        assert!((gap_mib(25.0, 2.0, 32.0, 1024.0) - 0.4).abs() < 1e-9);
        assert!((gap_mib(25.0, 2.0, 32.0, 4096.0) - 1.6).abs() < 1e-9);
    }
}
