//! Request-time surrogates `t(L)`: estimated milliseconds for one Range-GET of `L` bytes.

use crate::{Field, PlanError};

/// Bytes in a mebibyte, `2^20`.
pub const MIB: f64 = 1_048_576.0;

/// One point `(bytes, ms)` of a piecewise-linear surrogate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breakpoint {
    /// Request length in bytes.
    pub bytes: u64,
    /// Estimated request time in milliseconds.
    pub ms: f64,
}

/// A nondecreasing request-time surrogate `t(L)` (ARCHITECTURE §2).
///
/// # Math
/// - Affine: `t(L) = fixed_ms + per_mib_ms · L / 2^20` — convex.
/// - Piecewise-linear through breakpoints `(b_0, m_0) < … < (b_r, m_r)`:
///   `t(L) = m_0` for `L <= b_0`; linear between consecutive breakpoints;
///   extrapolated with the last slope beyond `b_r` (constant if `r = 0`).
///   Convex exactly when the slopes `(m_{k+1} - m_k) / (b_{k+1} - b_k)` do not
///   decrease (the implicit slope 0 left of `b_0` never breaks convexity because
///   the surrogate is nondecreasing).
///
/// Evaluation uses only `+ − × ÷`, so native and WebAssembly builds return
/// bit-identical values.
#[derive(Debug, Clone, PartialEq)]
pub enum Surrogate {
    /// `t(L) = fixed_ms + per_mib_ms · L / 2^20`.
    Affine {
        /// Fixed per-request latency, ms.
        fixed_ms: f64,
        /// Transfer time per MiB, ms.
        per_mib_ms: f64,
    },
    /// Piecewise-linear through the breakpoints (sorted by `bytes`).
    Piecewise(Vec<Breakpoint>),
}

impl Surrogate {
    /// The paper's S3 figures: ~25 ms fixed, ~5 ms per MiB (1 KiB ≈ 25 ms, 1 MiB ≈ 30 ms).
    pub const S3: Surrogate = Surrogate::Affine {
        fixed_ms: 25.0,
        per_mib_ms: 5.0,
    };

    /// Checks every number is finite and non-negative, breakpoints strictly
    /// increase in `bytes` and do not decrease in `ms`.
    ///
    /// # Errors
    /// [`PlanError::InvalidSurrogateValue`], [`PlanError::EmptySurrogate`],
    /// [`PlanError::UnsortedSurrogate`] or [`PlanError::DecreasingSurrogate`].
    pub fn validate(&self) -> Result<(), PlanError> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        match self {
            Self::Affine {
                fixed_ms,
                per_mib_ms,
            } => {
                if !ok(*fixed_ms) {
                    return Err(PlanError::InvalidSurrogateValue {
                        field: Field::AffineFixedMs,
                        index: None,
                        value: *fixed_ms,
                    });
                }
                if !ok(*per_mib_ms) {
                    return Err(PlanError::InvalidSurrogateValue {
                        field: Field::AffinePerMibMs,
                        index: None,
                        value: *per_mib_ms,
                    });
                }
            }
            Self::Piecewise(points) => {
                if points.is_empty() {
                    return Err(PlanError::EmptySurrogate);
                }
                for (i, p) in points.iter().enumerate() {
                    if !ok(p.ms) {
                        return Err(PlanError::InvalidSurrogateValue {
                            field: Field::BreakpointMs,
                            index: Some(i),
                            value: p.ms,
                        });
                    }
                    if i > 0 {
                        if p.bytes <= points[i - 1].bytes {
                            return Err(PlanError::UnsortedSurrogate { index: i });
                        }
                        if p.ms < points[i - 1].ms {
                            return Err(PlanError::DecreasingSurrogate { index: i });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// `t(len)` in milliseconds.
    ///
    /// # Complexity
    /// `O(1)` for affine, `O(log r)` for `r` breakpoints.
    #[inline]
    pub fn eval(&self, len: u64) -> f64 {
        match self {
            Self::Affine {
                fixed_ms,
                per_mib_ms,
            } => fixed_ms + per_mib_ms * (len as f64 / MIB),
            Self::Piecewise(points) => piecewise_eval(points, len),
        }
    }

    /// Whether `t` is convex, which makes the span cost Monge and enables the
    /// divide-and-conquer and monotone-queue dynamic programs.
    pub fn is_convex(&self) -> bool {
        match self {
            Self::Affine { .. } => true,
            Self::Piecewise(points) => points.windows(3).all(|w| {
                let (d0, d1) = (
                    (w[1].bytes - w[0].bytes) as f64,
                    (w[2].bytes - w[1].bytes) as f64,
                );
                // slope1 >= slope0  <=>  (m2 - m1) * d0 >= (m1 - m0) * d1  (d0, d1 > 0)
                (w[2].ms - w[1].ms) * d0 >= (w[1].ms - w[0].ms) * d1
            }),
        }
    }
}

/// Piecewise-linear evaluation (see [`Surrogate`]); `points` is non-empty and sorted.
fn piecewise_eval(points: &[Breakpoint], len: u64) -> f64 {
    let first = points[0];
    if len <= first.bytes {
        return first.ms;
    }
    // k = index of the last breakpoint with bytes <= len (k >= 0).
    let k = points.partition_point(|p| p.bytes <= len) - 1;
    let (a, b) = if k + 1 < points.len() {
        (points[k], points[k + 1])
    } else if k > 0 {
        (points[k - 1], points[k])
    } else {
        return first.ms;
    };
    // a.bytes <= len in both cases above.
    a.ms + (b.ms - a.ms) * ((len - a.bytes) as f64 / (b.bytes - a.bytes) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pw(points: &[(u64, f64)]) -> Surrogate {
        Surrogate::Piecewise(
            points
                .iter()
                .map(|&(bytes, ms)| Breakpoint { bytes, ms })
                .collect(),
        )
    }

    #[test]
    fn affine_matches_paper_figures() {
        let s = Surrogate::S3;
        assert_eq!(s.eval(0), 25.0);
        assert_eq!(s.eval(1 << 20), 30.0);
        assert!(s.is_convex());
    }

    #[test]
    fn piecewise_interpolates_and_extrapolates() {
        let s = pw(&[(1024, 25.0), (1 << 20, 30.0), (4 << 20, 46.0)]);
        assert_eq!(s.eval(0), 25.0);
        assert_eq!(s.eval(1024), 25.0);
        assert_eq!(s.eval(1 << 20), 30.0);
        assert_eq!(s.eval(4 << 20), 46.0);
        assert_eq!(s.eval(7 << 20), 62.0); // last slope 16/3 ms/MiB
        let mid = s.eval((1024 + (1 << 20)) / 2);
        assert!(mid > 27.4 && mid < 27.6);
        assert!(s.is_convex());
        assert!(!pw(&[(0, 0.0), (10, 10.0), (20, 11.0)]).is_convex());
        assert_eq!(pw(&[(5, 3.0)]).eval(1000), 3.0);
    }

    #[test]
    fn validation_names_the_field() {
        let e = Surrogate::Affine {
            fixed_ms: -1.0,
            per_mib_ms: 1.0,
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "surrogate.affine.fixed_ms: must be finite and >= 0, got -1"
        );
        let e = pw(&[(0, 2.0), (10, 1.0)]).validate().unwrap_err();
        assert_eq!(e, PlanError::DecreasingSurrogate { index: 1 });
        assert_eq!(
            pw(&[(10, 2.0), (10, 3.0)]).validate(),
            Err(PlanError::UnsortedSurrogate { index: 1 })
        );
        assert_eq!(pw(&[]).validate(), Err(PlanError::EmptySurrogate));
        assert!(pw(&[(0, f64::NAN)]).validate().is_err());
    }
}
