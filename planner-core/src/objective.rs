//! The planning objectives `W`, `B` and `T_P`, and the deterministic order on plans.

use core::cmp::Ordering;

use crate::PlanError;
use crate::plan::{PlanSummary, Request};

/// Expected request parallelism `P` of one query (ARCHITECTURE §2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Parallelism {
    /// `P >= 1`, finite.
    Finite(f64),
    /// `P = ∞`: minimize `B`, ties broken by `W`.
    Unbounded,
}

impl Parallelism {
    /// `Some(p)` → [`Finite`](Self::Finite), `None` → [`Unbounded`](Self::Unbounded).
    ///
    /// # Errors
    /// [`PlanError::InvalidParallelism`] when `p < 1` or `p` is not finite.
    pub fn new(p: Option<f64>) -> Result<Self, PlanError> {
        match p {
            None => Ok(Self::Unbounded),
            Some(v) if v.is_finite() && v >= 1.0 => Ok(Self::Finite(v)),
            Some(v) => Err(PlanError::InvalidParallelism { value: v }),
        }
    }

    /// Each call's share of `slots` concurrent requests when `calls` calls
    /// share them: `P = max(1, slots / max(1, calls))` — the one place the
    /// host, the planned store and the benchmarks derive `P` from I/O slots
    /// and concurrency (ARCHITECTURE §8).
    ///
    /// ```
    /// use planner_core::Parallelism;
    /// assert_eq!(Parallelism::per_call(64, 8), 8.0);
    /// assert_eq!(Parallelism::per_call(4, 32), 1.0);
    /// assert_eq!(Parallelism::per_call(64, 0), 64.0);
    /// ```
    pub fn per_call(slots: usize, calls: usize) -> f64 {
        (slots as f64 / calls.max(1) as f64).max(1.0)
    }

    /// The JSON form: `Some(p)` or `None` for unbounded.
    pub fn as_option(self) -> Option<f64> {
        match self {
            Self::Finite(p) => Some(p),
            Self::Unbounded => None,
        }
    }

    /// `T_P = W/P + (1 − 1/P)·B`; `B` when unbounded.
    ///
    /// `T_P` is the list-scheduling bound for `|π|` jobs on `P` slots. It is linear
    /// in `(W, B)`, so its minimum over plans lies on a vertex of the lower convex
    /// hull of the `(B, W)` frontier. `P = 1` gives exactly `W`.
    #[inline]
    pub fn t_p(self, w: f64, b: f64) -> f64 {
        match self {
            Self::Finite(p) => w / p + (1.0 - 1.0 / p) * b,
            Self::Unbounded => b,
        }
    }

    /// Weight of `W` in `T_P` (`1/P`, 0 when unbounded).
    #[inline]
    pub fn w_weight(self) -> f64 {
        match self {
            Self::Finite(p) => 1.0 / p,
            Self::Unbounded => 0.0,
        }
    }

    /// Weight of `B` in `T_P` (`1 − 1/P`, 1 when unbounded).
    #[inline]
    pub fn b_weight(self) -> f64 {
        match self {
            Self::Finite(p) => 1.0 - 1.0 / p,
            Self::Unbounded => 1.0,
        }
    }
}

/// The ARCHITECTURE §2 order on plans: smaller objective (`T_P`; for `P = ∞`, `B`
/// then `W`), then fewer requests, then fewer bytes, then the lexicographically
/// smallest list of group ends.
pub fn compare_plans(
    p: Parallelism,
    a: &PlanSummary,
    a_requests: &[Request],
    b: &PlanSummary,
    b_requests: &[Request],
) -> Ordering {
    let primary = |s: &PlanSummary| match p {
        Parallelism::Finite(_) => (s.t_ms, 0.0),
        Parallelism::Unbounded => (s.b_ms, s.w_ms),
    };
    let (a1, a2) = primary(a);
    let (b1, b2) = primary(b);
    a1.total_cmp(&b1)
        .then(a2.total_cmp(&b2))
        .then(a.requests.cmp(&b.requests))
        .then(a.bytes.cmp(&b.bytes))
        .then_with(|| {
            a_requests
                .iter()
                .map(|r| r.last)
                .cmp(b_requests.iter().map(|r| r.last))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_p_interpolates_between_w_and_b() {
        assert_eq!(Parallelism::Finite(1.0).t_p(10.0, 3.0), 10.0);
        assert_eq!(Parallelism::Unbounded.t_p(10.0, 3.0), 3.0);
        assert_eq!(Parallelism::Finite(2.0).t_p(10.0, 4.0), 7.0);
        assert!(Parallelism::new(Some(0.5)).is_err());
        assert!(Parallelism::new(Some(f64::INFINITY)).is_err());
        assert!(Parallelism::new(Some(f64::NAN)).is_err());
    }
}
