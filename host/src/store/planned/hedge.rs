//! Hedged GETs: a second request for a range still outstanding after a
//! delay learnt from the latencies observed, first answer wins.
//!
//! # Delay
//! Latencies are compared across sizes through the surrogate the GET was
//! planned with: each completed GET contributes the ratio `ρ = ℓ / t(L)` of
//! its latency to its predicted time. A GET of predicted time `t(L)` is
//! hedged after
//!
//! ```text
//! d(L) = max(floor, q_p(ρ) · t(L))      (q_p: the p-quantile of the last 256 ρ)
//! ```
//!
//! and, while fewer than `min_samples` ratios are known, after
//! `max(floor, warmup_factor · t(L))`. With `p = 0.97` a GET is hedged when
//! it is slower than 97 % of recent GETs of its size: about 3 % of GETs ask
//! for a hedge, inside the 5 % budget. (At `p = 0.95` the demand equals the
//! budget; the bucket runs dry in bursts and a tenth of the tail GETs went
//! unhedged on `separate`, leaving p99 where it was.)
//!
//! # Budget
//! A token bucket: every planned GET adds `budget` tokens (at most `burst`
//! banked; one at the start), a hedge spends one. Over any run, hedges ≤
//! `1 + budget · GETs`.
//!
//! # Slots
//! A hedge does not queue for one of the store's I/O slots: the straggler
//! it duplicates already holds one, and when the reads keep every slot busy
//! (`separate` at Q = 8 with 64 slots already does) a hedge waiting for a
//! slot would come after the straggler it is meant to overtake. Hedges have
//! their own `slots` (default 8), taken without waiting; with none free the
//! GET is not hedged. So at most `io_slots + slots` requests are ever in
//! flight, and the budget bounds the extra bytes and charges.
//!
//! # Cost
//! `O(1)` per GET; the quantile is recomputed every 16 samples by selection
//! over the last 256 ratios (`O(256)`, in a buffer kept for it: no allocation
//! on the GET path).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::{Semaphore, SemaphorePermit};

/// How and how much to hedge. [`HedgePolicy::default`] is on, 5 % budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HedgePolicy {
    /// Hedges per planned GET at most, in `[0, 1]`. Default 0.05.
    pub budget: f64,
    /// Tokens the bucket may bank (bursts of hedges). Default 10.
    pub burst: f64,
    /// Quantile `p` of the latency ratios that triggers a hedge, in
    /// `(0, 1)`. Default 0.97.
    pub quantile: f64,
    /// Never hedge sooner than this. Default 5 ms.
    pub floor: Duration,
    /// Delay factor over `t(L)` until `min_samples` GETs are known.
    /// Default 3.
    pub warmup_factor: f64,
    /// Ratios needed before the quantile is trusted. Default 32.
    pub min_samples: usize,
    /// Hedges in flight at most, `1..=4096`, beside the I/O slots. Default 8.
    pub slots: usize,
}

impl Default for HedgePolicy {
    fn default() -> Self {
        Self {
            budget: 0.05,
            burst: 10.0,
            quantile: 0.97,
            floor: Duration::from_millis(5),
            warmup_factor: 3.0,
            min_samples: 32,
            slots: 8,
        }
    }
}

impl HedgePolicy {
    /// Checks the fields; the message names the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.budget) {
            return Err(format!("hedge.budget = {} must be in [0, 1]", self.budget));
        }
        if !(self.burst.is_finite() && self.burst >= 1.0) {
            return Err(format!("hedge.burst = {} must be >= 1", self.burst));
        }
        if !(self.quantile > 0.0 && self.quantile < 1.0) {
            return Err(format!(
                "hedge.quantile = {} must be in (0, 1)",
                self.quantile
            ));
        }
        if !(1..=4096).contains(&self.slots) {
            return Err(format!("hedge.slots = {} must be in 1..=4096", self.slots));
        }
        if !(self.warmup_factor.is_finite() && self.warmup_factor >= 1.0) {
            return Err(format!(
                "hedge.warmup_factor = {} must be >= 1",
                self.warmup_factor
            ));
        }
        Ok(())
    }
}

const RING: usize = 256;
const REFRESH: u32 = 16;

#[derive(Debug)]
struct State {
    /// The last [`RING`] latency ratios `ρ = observed / predicted`.
    ratios: VecDeque<f64>,
    /// Scratch for the quantile's selection, capacity [`RING`].
    scratch: Vec<f64>,
    since: u32,
    quantile: Option<f64>,
    tokens: f64,
}

/// The hedging state of one store.
#[derive(Debug)]
pub(crate) struct Hedger {
    policy: HedgePolicy,
    state: Mutex<State>,
    slots: Semaphore,
}

impl Hedger {
    pub(crate) fn new(policy: HedgePolicy) -> Self {
        Self {
            policy,
            state: Mutex::new(State {
                ratios: VecDeque::with_capacity(RING),
                scratch: Vec::with_capacity(RING),
                since: 0,
                quantile: None,
                tokens: 1.0,
            }),
            slots: Semaphore::new(policy.slots),
        }
    }

    /// A hedge slot if one is free (never waits).
    pub(crate) fn try_slot(&self) -> Option<SemaphorePermit<'_>> {
        self.slots.try_acquire().ok()
    }

    /// When to hedge a GET predicted to take `t_ms`.
    pub(crate) fn delay(&self, t_ms: f64) -> Duration {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let factor = st.quantile.unwrap_or(self.policy.warmup_factor).max(1.0);
        let ms = (factor * t_ms).clamp(0.0, 3_600_000.0);
        Duration::from_secs_f64(ms / 1000.0).max(self.policy.floor)
    }

    /// Credits the bucket for one planned GET.
    pub(crate) fn credit(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.tokens = (st.tokens + self.policy.budget).min(self.policy.burst);
    }

    /// Takes a token if there is one.
    pub(crate) fn try_take(&self) -> bool {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.tokens >= 1.0 {
            st.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Gives back a token taken for a hedge that was not sent.
    pub(crate) fn refund(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.tokens = (st.tokens + 1.0).min(self.policy.burst);
    }

    /// Records a GET that took `ms` against its prediction `t_ms`.
    pub(crate) fn observe(&self, ms: f64, t_ms: f64) {
        if !(t_ms > 0.0 && ms.is_finite()) {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.ratios.len() == RING {
            st.ratios.pop_front();
        }
        st.ratios.push_back(ms / t_ms);
        st.since += 1;
        if st.ratios.len() >= self.policy.min_samples
            && (st.since >= REFRESH || st.quantile.is_none())
        {
            st.since = 0;
            let State {
                ratios, scratch, ..
            } = &mut *st;
            scratch.clear();
            scratch.extend(ratios.iter().copied());
            let n = scratch.len();
            let i = ((n as f64 * self.policy.quantile).ceil() as usize).clamp(1, n);
            let (_, q, _) = scratch.select_nth_unstable_by(i - 1, f64::total_cmp);
            st.quantile = Some(*q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_caps_hedges_at_one_plus_budget_times_gets() {
        let h = Hedger::new(HedgePolicy::default());
        let mut hedges = 0;
        for _ in 0..1000 {
            h.credit();
            if h.try_take() {
                hedges += 1;
            }
        }
        assert!(hedges <= 1 + 50, "{hedges}");
        assert!(hedges >= 50, "{hedges}");
    }

    #[test]
    fn hedge_slots_are_bounded_and_returned() {
        let h = Hedger::new(HedgePolicy {
            slots: 2,
            ..HedgePolicy::default()
        });
        let a = h.try_slot();
        let b = h.try_slot();
        assert!(a.is_some() && b.is_some());
        assert!(
            h.try_slot().is_none(),
            "a third hedge would exceed the slots"
        );
        drop(a);
        assert!(h.try_slot().is_some());
        let bad = HedgePolicy {
            slots: 0,
            ..HedgePolicy::default()
        };
        assert!(bad.validate().unwrap_err().contains("hedge.slots"));
    }

    #[test]
    fn delay_follows_the_quantile_after_warm_up() {
        let h = Hedger::new(HedgePolicy::default());
        assert_eq!(h.delay(10.0), Duration::from_millis(30));
        for i in 0..100 {
            h.observe(if i < 97 { 10.0 } else { 50.0 }, 10.0);
        }
        assert_eq!(h.delay(20.0), Duration::from_millis(20));
        assert_eq!(h.delay(1.0), Duration::from_millis(5), "floor");
    }

    #[test]
    fn quantile_is_the_order_statistic_of_the_last_256_ratios() {
        let h = Hedger::new(HedgePolicy::default());
        let mut ratios = Vec::new();
        // 592 = 37 · 16 samples: the last one refreshes the quantile, after
        // the ring has wrapped.
        for i in 0..592u64 {
            let ms = 10.0 + (i * 2_654_435_761 % 1000) as f64 / 10.0;
            h.observe(ms, 10.0);
            ratios.push(ms / 10.0);
        }
        let mut last: Vec<f64> = ratios[592 - RING..].to_vec();
        last.sort_unstable_by(f64::total_cmp);
        let q = last[(RING as f64 * 0.97).ceil() as usize - 1];
        assert_eq!(h.delay(100.0), Duration::from_secs_f64(q * 100.0 / 1000.0));
    }
}
