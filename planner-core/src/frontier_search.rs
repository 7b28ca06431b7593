//! Adaptive frontier search for finite `P` (paper §4.3).

use crate::min_b::{flat_cap, min_b_cap};
use crate::search::{Inner, Search};
use crate::workspace::Capacity;

/// One evaluated cap: the cap, a lower bound on `W*(cap)`, the longest span of
/// the plan found, and whether that plan is proven `W`-optimal for the cap.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Eval {
    pub cap: u64,
    pub lower_bound_w: f64,
    pub max_span: u64,
    pub proven_optimal: bool,
}

/// How the frontier search evaluates caps. Every mode stops at `(1 + ε)` of
/// its certified bound; none of them is method `exact` (which evaluates
/// every candidate cap, `crate::exact`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// The complete thresholded DP at every cap (the paper's algorithm;
    /// method `frontier`).
    ThresholdedDp,
    /// Lagrangian only; stops early where a gap cannot be closed (method `lagrangian`).
    Lagrangian,
    /// Lagrangian first, the thresholded DP only at caps whose gap blocks the
    /// `(1+ε)` stop (method `warp`).
    LagrangianThenDp,
}

/// Minimizes `T_P = W/P + (1 − 1/P)·B` over plans with `|π| ≤ K_max` to within
/// `(1 + ε)`; the plan is left in the search's incumbent. Returns a certified
/// lower bound on the optimum.
///
/// # Math
/// Every plan with longest span in `(Λ_a, Λ_b]` has `W ≥ W*(Λ_b)` and
/// `B ≥ t(Λ_a + 1)`, so evaluated caps `Λ_B = c_0 < c_1 < … < c_m` split the
/// `(B, W)` frontier into segments with lower bounds
/// `LB_0 = ℓ_0/P + (1 − 1/P)·t(c_0)` and `LB_i = ℓ_i/P + (1 − 1/P)·t(c_{i−1} + 1)`,
/// `ℓ_i ≤ W*(c_i)`. The search expands the segment with the smallest bound by
/// evaluating the midpoint cap between `c_{i−1}` and the longest span of the
/// plan found at `c_i` (caps above it cannot change `W*`), and stops when the
/// incumbent is within `(1 + ε)` of the smallest bound. `Λ_B` is the min-B cap
/// (§4.2) and `c_m` the total span (no cap).
///
/// # Complexity
/// `O(log(span))` evaluations per segment in the worst case, usually a handful
/// in all; each evaluation is one thresholded DP (`ThresholdedDp`) or one Lagrangian
/// search. Workspace: `64·(n + 1)` segment records, no allocation.
pub(crate) fn search(s: &mut Search<'_, '_, '_>, epsilon: f64, mode: Mode) -> f64 {
    let (ww, bw) = (s.p.w_weight(), s.p.b_weight());
    let t = |cap: u64| s.sp.surrogate.eval(cap);
    let first_inner = if mode == Mode::ThresholdedDp {
        Inner::ThresholdedDp
    } else {
        Inner::Lagrangian
    };
    // Caps in [Λ_B, flat_cap(Λ_B)] share B = t(Λ_B); the largest has the least W.
    let cap_b = flat_cap(s.sp, min_b_cap(s.sp, s.k_max));
    let top = s.sp.total_span();
    s.ws.evals.clear();
    // The record limit depends on the instance only (never on the planner's
    // capacity), so every runtime and every planner size plans identically.
    let limit = Capacity::new(s.sp.n(), 0).max_frontier_evals();
    for cap in [cap_b, top] {
        if s.ws.evals.last().is_some_and(|e| e.cap == cap) {
            continue;
        }
        // Caps at or above the min-B cap are always feasible.
        let Some(e) = record(s, cap, first_inner) else {
            return s.best_t();
        };
        s.ws.evals.push(e);
    }
    loop {
        let evals = &s.ws.evals;
        let (mut at, mut lower) = (0, ww * evals[0].lower_bound_w + bw * t(evals[0].cap));
        for i in 1..evals.len() {
            let lb = ww * evals[i].lower_bound_w + bw * t(evals[i - 1].cap + 1);
            if lb < lower {
                (at, lower) = (i, lb);
            }
        }
        let best = s.best_t();
        if best <= (1.0 + epsilon) * lower {
            return lower.min(best);
        }
        let e = evals[at];
        let split = if at == 0 {
            None
        } else {
            let lo = evals[at - 1].cap;
            let mid = lo + (e.max_span.saturating_sub(lo)).div_ceil(2);
            (e.max_span > lo && mid != e.cap && evals.len() < limit).then_some(mid)
        };
        let refined = if let Some(mid) = split {
            record(s, mid, first_inner).map(|r| s.ws.evals.insert(at, r))
        } else if !e.proven_optimal && mode == Mode::LagrangianThenDp {
            record(s, e.cap, Inner::ThresholdedDp).map(|r| s.ws.evals[at] = r)
        } else {
            None
        };
        if refined.is_none() {
            // Nothing can raise this segment's bound: it is the certified bound.
            return lower.min(best);
        }
    }
}

/// Evaluates `cap` and returns its segment record.
fn record(s: &mut Search<'_, '_, '_>, cap: u64, inner: Inner) -> Option<Eval> {
    let (ev, max_span) = s.eval(cap, inner)?;
    Some(Eval {
        cap,
        lower_bound_w: ev.lower_bound_w,
        max_span,
        proven_optimal: ev.proven_optimal,
    })
}
