//! The Pareto walk: the `(B, W)` Pareto frontier of plans with `|π| ≤ K_max`
//! (not the adaptive frontier search of `frontier_search`), vertex by vertex ([`Planner::frontier`](crate::Planner::frontier)).

use crate::dp::thresholded;
use crate::interrupt::Stop;
use crate::lagrangian;
use crate::min_b::min_b_cap;
use crate::objective::Parallelism;
use crate::plan::summarize;
use crate::search::Inner;
use crate::spans::Spans;
use crate::workspace::Workspace;

/// One vertex of the `(B, W)` Pareto frontier (see
/// [`Planner::frontier`](crate::Planner::frontier)): the least-`W` plan whose
/// longest span is at most `cap`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontierPoint {
    /// Longest span of the plan, bytes (the cap it is optimal for).
    pub cap: u64,
    /// `B` of the plan, ms.
    pub b_ms: f64,
    /// `W` of the plan, ms.
    pub w_ms: f64,
    /// Requests of the plan.
    pub requests: usize,
    /// Bytes of the plan.
    pub bytes: u64,
    /// Whether the plan is proven `W`-optimal for its cap: its `W` equals the
    /// least `W` of any plan with `|π| ≤ K_max` and longest span at most
    /// `cap`. Always `true` for points of the thresholded DP (`exact = true`
    /// in [`Planner::frontier`](crate::Planner::frontier)); for Lagrangian
    /// points, `true` where the relaxation's bound met the plan (no duality
    /// gap), `false` where the point is feasible but may not be optimal. It
    /// says nothing about method [`Method::Exact`](crate::Method::Exact). The
    /// field's name is part of the WIT's `frontier-point`.
    pub exact: bool,
}

/// Walks the Pareto frontier from the uncapped plan down to the min-B cap, pushing
/// one [`FrontierPoint`] per vertex into `out` (`B` ascending at the end).
///
/// # Math
/// `W*(Λ)` is a nonincreasing step function of the span cap `Λ`. Starting
/// at `Λ = span(0, n−1)`, the capped optimum at `Λ` has longest span
/// `b ≤ Λ` and `W*` is constant on `[b, Λ]`, so the next vertex is the
/// capped optimum at `b − 1`; the walk stops below the min-B cap. Each step
/// yields one Pareto vertex (points of equal `W` keep the smaller `B`).
///
/// # Complexity
/// One thresholded DP ([`Inner::ThresholdedDp`]) or Lagrangian evaluation per vertex, at most
/// `max_points`; allocates only by growing `out`.
pub(crate) fn walk(
    sp: &Spans<'_>,
    k_max: usize,
    p: Parallelism,
    inner: Inner,
    max_points: usize,
    ws: &mut Workspace,
    out: &mut Vec<FrontierPoint>,
) {
    let required = sp.required_bytes();
    let convex = sp.surrogate.is_convex();
    let cap_b = min_b_cap(sp, k_max);
    let mut cap = sp.total_span();
    while out.len() < max_points {
        let (len, proven_optimal) = if inner == Inner::ThresholdedDp {
            match thresholded::capped_min_w(
                sp,
                cap,
                k_max,
                convex,
                &mut ws.layered,
                &mut ws.cand,
                &mut Stop::never(),
            ) {
                Some(len) => (len, true),
                None => break,
            }
        } else {
            match lagrangian::at_cap(
                sp,
                cap,
                k_max,
                convex,
                &mut ws.penalized,
                &mut ws.cand,
                &mut Stop::never(),
            ) {
                Some(ev) => (ev.len, ev.proven_optimal),
                None => break,
            }
        };
        let plan = &ws.cand[..len];
        let s = summarize(plan, required, sp.surrogate, p);
        let b = plan.iter().map(|r| r.len).max().unwrap_or(0);
        let point = FrontierPoint {
            cap: b,
            b_ms: s.b_ms,
            w_ms: s.w_ms,
            requests: s.requests,
            bytes: s.bytes,
            exact: proven_optimal,
        };
        match out.last_mut() {
            Some(last) if last.w_ms == point.w_ms => *last = point,
            _ => out.push(point),
        }
        if b <= cap_b {
            break;
        }
        cap = b - 1;
    }
    out.reverse();
}
