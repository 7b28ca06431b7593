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

/// What the greedy left-to-right scan under cap `Λ` learns about `Λ_B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Greedy {
    /// At most `limit` groups; the longest has span `max_span ≤ Λ`.
    Fits { max_span: u64 },
    /// More than `limit` groups. Each of the first `limit` groups stopped
    /// because adding its next interval would make its span exceed `Λ`;
    /// `min_extension > Λ` is the smallest such span.
    Exceeds { min_extension: u64 },
}

/// The greedy scan under cap `Λ`, stopping once it opens group `limit + 1`
/// (`limit ≥ 1`). `Λ` must be at least the longest interval.
///
/// # Complexity
/// `O(n)` time, no allocation.
pub(crate) fn greedy(sp: &Spans<'_>, cap: u64, limit: usize) -> Greedy {
    let n = sp.n();
    let (mut groups, mut max_span, mut min_extension) = (0, 0, u64::MAX);
    let mut i = 0;
    while i < n {
        if groups == limit {
            return Greedy::Exceeds { min_extension };
        }
        groups += 1;
        let s = sp.start[i];
        let mut j = i;
        while j + 1 < n && sp.end[j + 1] - s <= cap {
            j += 1;
        }
        max_span = max_span.max(sp.end[j] - s);
        if j + 1 < n {
            min_extension = min_extension.min(sp.end[j + 1] - s);
        }
        i = j + 1;
    }
    Greedy::Fits { max_span }
}

/// The smallest span cap `Λ_B` for which `k_max` groups suffice:
/// `min over plans with |π| ≤ K_max of max_g L_g` (paper §4.2). `B* = t(Λ_B)`
/// because `t` is nondecreasing.
///
/// # Math
/// Feasibility of a cap is monotone (greedy is optimal for the fewest groups),
/// so binary search over `[max_i |I_i|, span(0, n−1)]` with the greedy scan as
/// the oracle is exact. Each probe also snaps a bound to a span of the
/// instance: when cap `c` fits with longest group `m ≤ c`, the greedy scan
/// under `m` makes the same groups, so `Λ_B ≤ m`; when it does not fit, every
/// cap below the smallest extension `e > c` of its first `K_max` groups makes
/// the same groups with input left over, so `Λ_B ≥ e`.
///
/// # Complexity
/// `O(n log(span))` time, at most 64 scans of `O(n)` (far fewer in practice:
/// the bounds move to spans of the instance); no allocation.
pub(crate) fn min_b_cap(sp: &Spans<'_>, k_max: usize) -> u64 {
    let (mut lo, mut hi) = (sp.max_len(), sp.total_span());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match greedy(sp, mid, k_max.max(1)) {
            Greedy::Fits { max_span } => hi = max_span,
            Greedy::Exceeds { min_extension } => lo = min_extension,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Surrogate;
    use crate::reorder::SplitMix64;

    /// Fewest greedy groups under `cap` (no early stop).
    fn count(sp: &Spans<'_>, cap: u64) -> usize {
        let (mut groups, mut i) = (0, 0);
        while i < sp.n() {
            groups += 1;
            let mut j = i;
            while j + 1 < sp.n() && sp.end[j + 1] - sp.start[i] <= cap {
                j += 1;
            }
            i = j + 1;
        }
        groups
    }

    #[test]
    fn min_b_cap_is_the_smallest_cap_with_k_max_groups() {
        let mut rng = SplitMix64::new(7);
        let surrogate = Surrogate::S3;
        for case in 0..300 {
            let n = 1 + (rng.next_u64() % 40) as usize;
            let (mut start, mut end) = (Vec::new(), Vec::new());
            let mut at = rng.next_u64() % 1000;
            for _ in 0..n {
                at += rng.next_u64() % 5000;
                start.push(at);
                at += 1 + rng.next_u64() % 3000;
                end.push(at);
            }
            let sp = Spans::new(&start, &end, &surrogate);
            for k in 1..=n {
                let cap = min_b_cap(&sp, k);
                assert!(
                    count(&sp, cap) <= k,
                    "case {case}, k {k}: cap {cap} too small"
                );
                assert!(
                    cap == sp.max_len() || count(&sp, cap - 1) > k,
                    "case {case}, k {k}: cap {cap} not the smallest"
                );
            }
        }
    }
}
