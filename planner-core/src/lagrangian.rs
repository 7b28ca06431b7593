//! Lagrangian relaxation of the request budget (paper §4.3.2 fast path).

use crate::dp::penalized::{self, PenalizedWs};
use crate::interrupt::Stop;
use crate::plan::Request;
use crate::spans::Spans;

/// What one evaluation at a span cap produced: a feasible plan (written to the
/// caller's buffer), a certified lower bound on the capped optimum `W*(Λ)`, and
/// whether the plan is proven optimal (`W` equals the bound).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CapEval {
    pub len: usize,
    pub lower_bound_w: f64,
    pub proven_optimal: bool,
}

/// Upper bound on the relaxation's iterations (each one finds a new vertex of the
/// convex `F(k)`, so `n` suffices; this only guards against rounding loops).
const MAX_ITERATIONS: usize = 64;

/// `min W(π)` over plans with every span `≤ Λ` and `|π| ≤ K`, by pricing requests.
///
/// # Math
/// For any price `λ ≥ 0`, `D(λ) = min_π [W(π) + λ|π|] − λK ≤ W*(Λ, K)` (weak
/// duality), and a minimizer with `|π| = K` is optimal. Starting from `λ = 0`
/// (most requests, least `W`) and `λ = ∞` (fewest requests), each step prices at
/// the slope of the chord between the current points with `|π| > K` and
/// `|π| ≤ K` — the Eisner–Severance search over the lower hull of
/// `F(k) = min{W : |π| = k}` — and stops when no point lies below the chord.
/// The returned plan is the best feasible point found; `proven_optimal` reports whether
/// it equals `max D(λ)`.
///
/// # Complexity
/// One penalized DP per hull vertex visited (usually a handful), each
/// `O(n log n)` for convex `t`, `O(n²)` otherwise; no allocation.
///
/// Returns `None` when no plan fits (`Λ` below the min-B cap for `K`) or
/// `stop` fired.
pub(crate) fn at_cap(
    sp: &Spans<'_>,
    cap: u64,
    k_max: usize,
    convex: bool,
    ws: &mut PenalizedWs,
    out: &mut [Request],
    stop: &mut Stop<'_>,
) -> Option<CapEval> {
    let n = sp.n();
    if n == 0 {
        return Some(CapEval {
            len: 0,
            lower_bound_w: 0.0,
            proven_optimal: true,
        });
    }
    if sp.max_len() > cap {
        return None;
    }
    let k = k_max as f64;
    let free = penalized::solve(sp, cap, 0.0, convex, ws, stop)?;
    if free.k as usize <= k_max {
        let len = penalized::write_plan(sp, ws, out);
        return Some(CapEval {
            len,
            lower_bound_w: free.w,
            proven_optimal: true,
        });
    }
    // λ large enough that one request outweighs any difference in W.
    let big = 2.0 * (n as f64 + 1.0) * sp.cost(0, n - 1) + 1.0;
    let fewest = penalized::solve(sp, cap, big, convex, ws, stop)?;
    if fewest.k as usize > k_max {
        return None;
    }
    let mut len = penalized::write_plan(sp, ws, out);
    let (mut lo_k, mut lo_w) = (fewest.k as f64, fewest.w);
    let (mut hi_k, mut hi_w) = (free.k as f64, free.w);
    let mut lower = free.w;
    let mut proven_optimal = fewest.k as usize == k_max;
    for _ in 0..MAX_ITERATIONS {
        if proven_optimal {
            break;
        }
        let lambda = ((lo_w - hi_w) / (hi_k - lo_k)).max(0.0);
        let s = penalized::solve(sp, cap, lambda, convex, ws, stop)?;
        lower = lower.max(s.pen - lambda * k);
        let sk = s.k as f64;
        if s.k as usize == k_max {
            len = penalized::write_plan(sp, ws, out);
            lo_w = s.w;
            proven_optimal = true;
        } else if (s.k as usize) < k_max {
            if s.pen < lo_w + lambda * lo_k {
                len = penalized::write_plan(sp, ws, out);
                (lo_k, lo_w) = (sk, s.w);
            } else {
                break;
            }
        } else if s.pen < hi_w + lambda * hi_k {
            (hi_k, hi_w) = (sk, s.w);
        } else {
            break;
        }
    }
    let proven_optimal = proven_optimal || lo_w <= lower;
    Some(CapEval {
        len,
        lower_bound_w: if proven_optimal {
            lo_w
        } else {
            lower.min(lo_w)
        },
        proven_optimal,
    })
}
