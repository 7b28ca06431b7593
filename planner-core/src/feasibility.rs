//! Span caps: which groups fit under a cap, and how few groups a cap allows.

use crate::spans::Spans;

/// For a span cap `Λ`, fills `hi[i]` = the largest `j ≥ i` with
/// `span(i, j) ≤ Λ` and `min_groups[i]` = the fewest groups that cover the
/// suffix `i..n` with every span `≤ Λ` (`min_groups[n] = 0`).
///
/// Greedy is optimal for the fewest groups (exchange argument: extending the
/// first group as far as possible never hurts), so
/// `min_groups[i] = 1 + min_groups[hi[i] + 1]`. Both arrays are monotone:
/// `hi` nondecreasing, `min_groups` nonincreasing in `i`.
///
/// Returns `false` (arrays unspecified) when some interval alone exceeds `Λ`.
///
/// # Complexity
/// `O(n)` time (two pointers), no allocation.
pub(crate) fn reach(sp: &Spans<'_>, cap: u64, hi: &mut [u32], min_groups: &mut [u32]) -> bool {
    let n = sp.n();
    let mut j = 0usize;
    for (i, hi_i) in hi.iter_mut().enumerate().take(n) {
        if sp.len(i) > cap {
            return false;
        }
        j = j.max(i);
        while j + 1 < n && sp.span(i, j + 1) <= cap {
            j += 1;
        }
        *hi_i = j as u32;
    }
    min_groups[n] = 0;
    for i in (0..n).rev() {
        min_groups[i] = 1 + min_groups[hi[i] as usize + 1];
    }
    true
}

/// Number of groups of the greedy left-to-right scan under cap `Λ`, stopping
/// early once it exceeds `limit` (returns `limit + 1` then). `Λ` must be at
/// least the longest interval.
///
/// # Complexity
/// `O(n)` time, no allocation.
pub(crate) fn greedy_count(sp: &Spans<'_>, cap: u64, limit: usize) -> usize {
    let n = sp.n();
    let mut groups = 0;
    let mut i = 0;
    while i < n {
        groups += 1;
        if groups > limit {
            return groups;
        }
        let s = sp.start[i];
        let mut j = i;
        while j + 1 < n && sp.end[j + 1] - s <= cap {
            j += 1;
        }
        i = j + 1;
    }
    groups
}

/// The smallest span cap `Λ_B` for which `k_max` groups suffice:
/// `min over plans with |π| ≤ K_max of max_g L_g` (paper §4.2). `B* = t(Λ_B)`
/// because `t` is nondecreasing.
///
/// # Math
/// Feasibility of a cap is monotone, so binary search over
/// `[max_i |I_i|, span(0, n−1)]` with the greedy scan as the oracle is exact.
///
/// # Complexity
/// `O(n log(span))` time, at most 64 scans of `O(n)`; no allocation.
pub(crate) fn min_b_cap(sp: &Spans<'_>, k_max: usize) -> u64 {
    let (mut lo, mut hi) = (sp.max_len(), sp.total_span());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if greedy_count(sp, mid, k_max) <= k_max {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The largest span `Λ' ≥ Λ` (up to the total span) with `t(Λ') = t(Λ)`.
///
/// A plan's `B` is `t` of its longest span, so where `t` is flat every cap in
/// `[Λ, Λ']` has the same `B` and the largest one has the least `W`: the
/// `min B`, ties-by-`W` plan lives at `Λ'`, not at `Λ_B`.
///
/// # Complexity
/// `O(log(span))` surrogate evaluations.
pub(crate) fn flat_cap(sp: &Spans<'_>, cap: u64) -> u64 {
    let target = sp.surrogate.eval(cap);
    let (mut lo, mut hi) = (cap, sp.total_span().max(cap));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if sp.surrogate.eval(mid) <= target {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
