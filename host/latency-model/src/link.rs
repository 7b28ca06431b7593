//! The shared link: fluid processor sharing with per-body caps.
//!
//! # The math
//!
//! The link carries `C` bytes/s. Each active body `j` (a *flow*) has a cap
//! `c_j` (its own pace; `∞` for none) and gets the max-min fair rate
//!
//! ```text
//! r_j = min(c_j, λ),   λ the water level with Σ_j min(c_j, λ) = C
//!                      (λ = ∞ when Σ_j c_j ≤ C: every flow runs at its cap)
//! ```
//!
//! found by water-filling over the caps in ascending order (O(n log n)).
//! Rates are constant between *events* — a flow arriving, finishing, leaving,
//! reaching its stall point or resuming — so a flow's delivered bytes are
//! `d_j(t) = d_j(t_e) + r_j · (t − t_e)` since the last event `t_e`, and the
//! next event is the earliest `t_e + (boundary_j − d_j(t_e)) / r_j` (or a
//! resume time). Any query first processes every event up to its time, in
//! time order, so the result does not depend on the order in which
//! bodies happen to ask (a late wake-up never wastes link time) — only a
//! flow that joins after the link was advanced past its arrival is clamped to
//! join then. A query is O(1) plus the events it processes; an event is
//! O(n log n).
//!
//! A body waiting for its next bytes sleeps until the estimate under the
//! current rates or the next event, whichever is first, so it wakes for every
//! rate increase that an event brings; an arrival only lowers rates (the
//! body wakes early and sleeps again), and a flow leaving early wakes every
//! waiting body.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::task::Waker;

/// Bytes short of a boundary still counted as reaching it (float slack).
const SLACK: f64 = 1e-6;

/// A flow on a [`Link`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(u64);

#[derive(Debug)]
struct Flow {
    /// Cap, bytes/s (`∞`: none).
    cap: f64,
    /// Bytes the flow carries in all.
    total: f64,
    /// Pending stall: once this many bytes are delivered, pause this long (s).
    stall: Option<(f64, f64)>,
    /// Inactive until then (s); `-∞` when active.
    resume_at: f64,
    /// Delivered bytes at `base_t`.
    base_d: f64,
    base_t: f64,
    rate: f64,
    waker: Option<Waker>,
}

impl Flow {
    /// Where the flow next stops on its own: the stall point or the end.
    fn boundary(&self) -> f64 {
        self.stall
            .map_or(self.total, |(after, _)| after.min(self.total))
    }

    fn delivered(&self, t: f64) -> f64 {
        (self.base_d + self.rate * (t - self.base_t).max(0.0)).min(self.boundary())
    }

    fn done(&self) -> bool {
        self.base_d >= self.total - SLACK
    }

    fn active(&self, t: f64) -> bool {
        !self.done() && t >= self.resume_at
    }

    /// The flow's next event after `base_t`.
    fn next_event(&self) -> f64 {
        if self.done() {
            f64::INFINITY
        } else if self.resume_at > self.base_t {
            self.resume_at
        } else if self.rate > 0.0 {
            self.base_t + (self.boundary() - self.base_d) / self.rate
        } else {
            f64::INFINITY
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Time the link has been advanced to (s).
    at: f64,
    flows: BTreeMap<FlowId, Flow>,
    next_id: u64,
    next_event: f64,
}

impl State {
    /// Moves every flow's base to `t` (no event in between).
    fn rebase(&mut self, t: f64) {
        for f in self.flows.values_mut() {
            f.base_d = f.delivered(t);
            f.base_t = t;
        }
    }

    /// Water-filling at `t` over the active flows; then the next event.
    fn reallocate(&mut self, capacity: f64, t: f64) {
        let mut active: Vec<(f64, FlowId)> = self
            .flows
            .iter()
            .filter(|(_, f)| f.active(t))
            .map(|(&id, f)| (f.cap, id))
            .collect();
        active.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for f in self.flows.values_mut() {
            f.rate = 0.0;
        }
        let mut left = capacity;
        let mut n = active.len();
        for (cap, id) in active {
            let share = left / n as f64;
            let rate = cap.min(share);
            if let Some(f) = self.flows.get_mut(&id) {
                f.rate = rate;
            }
            left -= rate;
            n -= 1;
        }
        self.next_event = self
            .flows
            .values()
            .map(Flow::next_event)
            .fold(f64::INFINITY, f64::min);
    }

    /// Processes every event up to `t` in time order, then notes `t`.
    fn advance(&mut self, capacity: f64, t: f64) {
        while self.next_event <= t {
            let e = self.next_event;
            // The flows whose own event this is reach their boundary now,
            // exactly: `base_d + rate · (e − base_t)` can fall short of it in
            // floating point (at times far from the epoch, an event a few
            // femtoseconds on rounds to `base_t` itself), and a flow left
            // short would name the same event again forever.
            let reached: Vec<FlowId> = self
                .flows
                .iter()
                .filter(|(_, f)| f.next_event() <= e && f.resume_at <= f.base_t)
                .map(|(&id, _)| id)
                .collect();
            self.rebase(e);
            for id in reached {
                if let Some(f) = self.flows.get_mut(&id) {
                    f.base_d = f.boundary();
                }
            }
            for f in self.flows.values_mut() {
                if f.resume_at <= e {
                    f.resume_at = f64::NEG_INFINITY;
                }
                if let Some((after, pause)) = f.stall
                    && f.base_d >= after.min(f.total) - SLACK
                {
                    f.base_d = after.min(f.total);
                    f.stall = None;
                    f.resume_at = e + pause;
                }
                if f.base_d >= f.total - SLACK {
                    f.base_d = f.total;
                }
            }
            self.reallocate(capacity, e);
        }
        self.at = self.at.max(t);
    }
}

/// A link of fixed capacity shared by every body that joins it. Times are
/// seconds on the caller's clock (the model uses seconds since its start).
#[derive(Debug)]
pub struct Link {
    /// Bytes/s; `0` for unlimited.
    bytes_per_s: f64,
    state: Mutex<State>,
}

impl Link {
    /// A link of `mib_per_s` MiB/s; `0` (or anything not positive and
    /// finite) for unlimited.
    pub fn new(mib_per_s: f64) -> Self {
        let bytes_per_s = if mib_per_s > 0.0 && mib_per_s.is_finite() {
            mib_per_s * 1_048_576.0
        } else {
            0.0
        };
        Self {
            bytes_per_s,
            state: Mutex::new(State {
                next_event: f64::INFINITY,
                ..State::default()
            }),
        }
    }

    /// Whether the link limits anything (an unlimited link is never joined).
    pub fn is_limited(&self) -> bool {
        self.bytes_per_s > 0.0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A flow of `total` bytes capped at `cap` bytes/s (`∞` for none) that
    /// arrives at `arrival` (or when the link was last advanced, if later),
    /// stalling once for `stall.1` s after `stall.0` bytes when given.
    pub fn join(&self, arrival: f64, total: u64, cap: f64, stall: Option<(u64, f64)>) -> FlowId {
        let mut s = self.lock();
        let t = arrival.max(s.at);
        s.advance(self.bytes_per_s, t);
        s.rebase(t);
        let id = FlowId(s.next_id);
        s.next_id += 1;
        s.flows.insert(
            id,
            Flow {
                cap: if cap > 0.0 { cap } else { f64::INFINITY },
                total: total as f64,
                stall: stall.map(|(after, pause)| (after as f64, pause.max(0.0))),
                resume_at: f64::NEG_INFINITY,
                base_d: 0.0,
                base_t: t,
                rate: 0.0,
                waker: None,
            },
        );
        s.reallocate(self.bytes_per_s, t);
        id
    }

    /// Whether flow `id` has delivered its first `upto` bytes by `now`:
    /// `None` if so, else when to ask again (the estimate under the current
    /// rates, or the next event if that is sooner). `waker` is woken if a
    /// flow leaves early before then.
    pub fn due(&self, id: FlowId, upto: u64, now: f64, waker: &Waker) -> Option<f64> {
        let mut s = self.lock();
        s.advance(self.bytes_per_s, now);
        let next_event = s.next_event;
        let f = s.flows.get_mut(&id)?;
        let target = (upto as f64).min(f.total);
        let got = f.delivered(now);
        if got >= target - SLACK {
            return None;
        }
        let estimate = if f.resume_at > now {
            f.resume_at
        } else if f.rate > 0.0 {
            f.base_t + (target - f.base_d) / f.rate
        } else {
            f64::INFINITY
        };
        let wake = estimate.min(next_event);
        if !f.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
            f.waker = Some(waker.clone());
        }
        // Never ask to be woken in the past (float rounding): a microsecond on.
        Some(if wake > now { wake } else { now + 1e-6 })
    }

    /// Bytes flow `id` has delivered by `now` (0 for an unknown flow).
    pub fn delivered(&self, id: FlowId, now: f64) -> f64 {
        let mut s = self.lock();
        s.advance(self.bytes_per_s, now);
        s.flows.get(&id).map_or(0.0, |f| f.delivered(now))
    }

    /// Removes flow `id` at `now`. If it was still taking a share, the others
    /// speed up: every waiting body is woken to look again.
    pub fn leave(&self, id: FlowId, now: f64) {
        let mut s = self.lock();
        let t = now.max(s.at);
        s.advance(self.bytes_per_s, t);
        let Some(f) = s.flows.remove(&id) else {
            return;
        };
        if f.rate > 0.0 {
            s.rebase(t);
            s.reallocate(self.bytes_per_s, t);
            for other in s.flows.values_mut() {
                if let Some(w) = other.waker.take() {
                    w.wake();
                }
            }
        }
    }

    /// Flows joined and not yet left.
    pub fn flows(&self) -> usize {
        self.lock().flows.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: f64 = 1_048_576.0;

    /// When flow `id` has delivered `upto` bytes, stepping like a body does.
    fn finish(link: &Link, id: FlowId, upto: u64, mut now: f64) -> f64 {
        let w = Waker::noop();
        while let Some(t) = link.due(id, upto, now, w) {
            now = t;
        }
        now
    }

    #[test]
    fn a_lone_flow_runs_at_its_cap_or_the_link() {
        let link = Link::new(100.0);
        let a = link.join(0.0, 10 << 20, 50.0 * MIB, None);
        assert!((finish(&link, a, 10 << 20, 0.0) - 0.2).abs() < 1e-9);
        let b = link.join(1.0, 10 << 20, f64::INFINITY, None);
        assert!((finish(&link, b, 10 << 20, 1.0) - 1.1).abs() < 1e-9);
    }

    #[test]
    fn flows_share_max_min_fairly() {
        // 100 MiB/s; a capped at 20, b and c uncapped: b and c get 40 each.
        let link = Link::new(100.0);
        let a = link.join(0.0, 20 << 20, 20.0 * MIB, None);
        let b = link.join(0.0, 40 << 20, f64::INFINITY, None);
        let c = link.join(0.0, 80 << 20, f64::INFINITY, None);
        // b: 40 MiB at 40 MiB/s → 1 s (a also ends at 1 s).
        let w = Waker::noop();
        assert!(link.due(b, 40 << 20, 0.5, w).is_some());
        assert!((finish(&link, b, 40 << 20, 0.0) - 1.0).abs() < 1e-9);
        assert!((link.delivered(a, 1.0) - 20.0 * MIB).abs() < 1.0);
        // Then c alone: 40 MiB left at 100 MiB/s → 1.4 s.
        assert!((finish(&link, c, 80 << 20, 0.0) - 1.4).abs() < 1e-9);
    }

    #[test]
    fn the_order_of_queries_does_not_matter() {
        // Two flows asked about out of time order give the same answers.
        let run = |flip: bool| {
            let link = Link::new(10.0);
            let a = link.join(0.0, 10 << 20, f64::INFINITY, None);
            let b = link.join(0.0, 5 << 20, f64::INFINITY, None);
            let w = Waker::noop();
            if flip {
                link.due(a, 10 << 20, 0.9, w);
                link.due(b, 5 << 20, 0.3, w);
            } else {
                link.due(b, 5 << 20, 0.3, w);
                link.due(a, 10 << 20, 0.9, w);
            }
            (
                finish(&link, b, 5 << 20, 0.0),
                finish(&link, a, 10 << 20, 0.0),
            )
        };
        let (b, a) = run(false);
        assert_eq!(run(true), (b, a));
        assert!((b - 1.0).abs() < 1e-9 && (a - 1.5).abs() < 1e-9, "{b} {a}");
    }

    /// Many bodies far from the epoch (where a femtosecond rounds away),
    /// stepped as a server steps them: every query returns, and the link
    /// always makes progress. Run on a thread with a deadline, so a link that
    /// loops fails the test instead of hanging it.
    #[test]
    fn far_from_the_epoch_every_body_finishes() {
        use rand::{Rng, SeedableRng};
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(20);
            for round in 0..20 {
                let link = Link::new(4096.0);
                let t0 = 86_400.0 * 3.0 + round as f64 * 0.37;
                let mut flows: Vec<(FlowId, u64, f64)> = Vec::new();
                for i in 0..64 {
                    let len = rng.random_range(1..=(4u64 << 20));
                    let cap = if rng.random_bool(0.5) {
                        f64::INFINITY
                    } else {
                        200.0 * MIB
                    };
                    let stall = rng
                        .random_bool(0.2)
                        .then(|| (rng.random_range(0..len), rng.random_range(0.0..0.01)));
                    let at = t0 + i as f64 * 1e-4 * rng.random::<f64>();
                    flows.push((link.join(at, len, cap, stall), len, at));
                }
                let w = Waker::noop();
                let mut now = t0;
                let mut steps = 0u64;
                while !flows.is_empty() {
                    steps += 1;
                    assert!(steps < 1_000_000, "round {round}: no progress at {now}");
                    let mut next = f64::INFINITY;
                    flows.retain(|&(id, len, _)| match link.due(id, len, now, w) {
                        None => {
                            link.leave(id, now);
                            false
                        }
                        Some(t) => {
                            assert!(t > now, "round {round}: due at {t} is not after {now}");
                            next = next.min(t);
                            true
                        }
                    });
                    if next.is_finite() {
                        now = next;
                    }
                }
            }
            let _ = tx.send(());
        });
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the link stopped making progress");
    }

    #[test]
    fn stalls_pause_a_flow_and_leaving_frees_its_share() {
        let link = Link::new(10.0);
        let a = link.join(0.0, 10 << 20, f64::INFINITY, Some((5 << 20, 2.0)));
        // 5 MiB at 10 MiB/s, 2 s stalled, 5 MiB more.
        assert!((finish(&link, a, 10 << 20, 0.0) - 3.0).abs() < 1e-9);
        let b = link.join(3.0, 10 << 20, f64::INFINITY, None);
        let c = link.join(3.0, 10 << 20, f64::INFINITY, None);
        assert_eq!(link.due(b, 10 << 20, 3.5, Waker::noop()), Some(5.0));
        link.leave(c, 3.5);
        // b had 2.5 MiB at 3.5 s; 7.5 MiB more at 10 MiB/s.
        assert!((finish(&link, b, 10 << 20, 3.5) - 4.25).abs() < 1e-9);
        link.leave(a, 5.0);
        link.leave(b, 5.0);
        assert_eq!(link.flows(), 0);
    }
}
