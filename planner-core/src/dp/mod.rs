//! Sum-minimizing dynamic programs (paper §4.1).
//!
//! - [`thresholded`]: the paper's thresholded DP, exact `min W` under a span
//!   cap with at most `K_max` groups, by layers of "exactly `k` groups"
//!   ([`layer`]); rows solved by [`basic`] scans (any nondecreasing `t`,
//!   `O(n²K)`), by [`monge`] divide and conquer (convex `t`, `O(nK log n)`) or
//!   by [`affine`] sliding windows (affine `t`, `O(nK)`).
//! - [`penalized`]: the unconstrained-count program with a price `λ` per request,
//!   the inner step of the Lagrangian relaxation.
//! - [`window`]: the sliding-window minimum both affine programs use.
//!
//! Dependencies run one way: `layer` ← `basic`/`monge`/`affine` ←
//! `thresholded`; `window` ← `affine`/`penalized`.
//!
//! Every program runs over suffixes (`g(i)` = best plan of intervals `i..n`) and
//! prefers, on equal value, the smallest end of the first group; together with
//! optimal suffixes this yields the lexicographically smallest list of group ends
//! (ARCHITECTURE §2 tie-breaking).

pub(crate) mod affine;
pub(crate) mod basic;
pub(crate) mod layer;
pub(crate) mod monge;
pub(crate) mod penalized;
pub(crate) mod thresholded;
pub(crate) mod window;

/// `b`, ms per byte, when the surrogate is affine (the linear-time programs apply).
pub(crate) fn per_byte(sp: &crate::spans::Spans<'_>) -> Option<f64> {
    match sp.surrogate {
        crate::Surrogate::Affine { per_mib_ms, .. } => Some(per_mib_ms / crate::MIB),
        crate::Surrogate::Piecewise(_) => None,
    }
}

/// Value of a (partial) plan inside a layer: `W`, then bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Score {
    pub w: f64,
    pub bytes: u64,
}

impl Score {
    pub(crate) const ZERO: Score = Score { w: 0.0, bytes: 0 };
    pub(crate) const INF: Score = Score {
        w: f64::INFINITY,
        bytes: u64::MAX,
    };

    #[inline]
    pub(crate) fn is_finite(&self) -> bool {
        self.w.is_finite()
    }

    /// Strictly better: smaller `W`, then fewer bytes.
    #[inline]
    pub(crate) fn lt(&self, o: &Score) -> bool {
        self.w < o.w || (self.w == o.w && self.bytes < o.bytes)
    }
}

/// Writes the plan encoded by suffix choices: starting at row 0, the group
/// `(i..=next(i))`, then row `next(i) + 1`, until `n`. Returns the number of
/// groups.
pub(crate) fn unroll(
    sp: &crate::spans::Spans<'_>,
    mut next: impl FnMut(usize, usize) -> usize,
    out: &mut [crate::plan::Request],
) -> usize {
    let n = sp.n();
    let (mut i, mut g) = (0usize, 0usize);
    while i < n {
        let j = next(g, i);
        out[g] = crate::plan::Request {
            first: i as u32,
            last: j as u32,
            offset: sp.start[i],
            len: sp.span(i, j),
        };
        g += 1;
        i = j + 1;
    }
    g
}
