//! The exact reference: every candidate cap (tests, `ε = 0`).

use core::cmp::Reverse;

use crate::min_b::{flat_cap, min_b_cap};
use crate::search::{Inner, Search};

/// Exact `min T_P` over plans with `|π| ≤ K_max`; the plan is left in the
/// search's incumbent and the optimum returned.
///
/// # Math
/// The optimum's longest span is one of the `O(n²)` spans `end_j − start_i`
/// at or above `Λ_B`; for each such cap `Λ` the thresholded DP gives
/// `W*(Λ)`, and `min_Λ W*(Λ)/P + (1 − 1/P)·t(Λ)` is the optimum. Caps are
/// enumerated in increasing order by a k-way merge of the rows `i` (spans
/// increase with `j`), and the enumeration stops once
/// `(1 − 1/P)·t(Λ) + W*(∞)/P` exceeds the incumbent. `P = 1` needs only
/// `Λ = ∞`, `P = ∞` only `Λ_B`.
///
/// # Complexity
/// `O(n²)` caps, each one exact DP (`O(nK log n)` convex, `O(n²K)` otherwise);
/// `O(n)` heap, no allocation. A reference for tests, not for the query path.
pub(crate) fn search(s: &mut Search<'_, '_, '_>) -> f64 {
    let (ww, bw) = (s.p.w_weight(), s.p.b_weight());
    let sp = s.sp;
    let n = sp.n();
    let cap_b = min_b_cap(sp, s.k_max);
    let top = sp.total_span();
    let Some((floor, _)) = s.eval(top, Inner::ThresholdedDp) else {
        return s.best_t();
    };
    let w_min = floor.lower_bound_w;
    if bw == 0.0 {
        return s.best_t();
    }
    if ww == 0.0 {
        s.eval(flat_cap(sp, cap_b), Inner::ThresholdedDp);
        return s.best_t();
    }
    // Heap of the next span >= cap_b of each row.
    s.ws.heap.clear();
    for i in 0..n {
        let j = (i..n).find(|&j| sp.span(i, j) >= cap_b);
        if let Some(j) = j {
            s.ws.heap.push(Reverse((sp.span(i, j), i as u32, j as u32)));
        }
    }
    let mut last = None;
    while let Some(Reverse((cap, i, j))) = s.ws.heap.pop() {
        if (j as usize) + 1 < n {
            s.ws.heap
                .push(Reverse((sp.span(i as usize, j as usize + 1), i, j + 1)));
        }
        if last == Some(cap) {
            continue;
        }
        if s.stop.stopped() {
            break;
        }
        last = Some(cap);
        if bw * sp.surrogate.eval(cap) + ww * w_min > s.best_t() {
            break;
        }
        s.eval(cap, Inner::ThresholdedDp);
    }
    s.best_t()
}
