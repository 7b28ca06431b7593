//! The affine fit `t(L) = fixed_ms + per_mib_ms · L / 2^20`.

use planner_core::{MIB, Surrogate};

use super::{Point, nnls::nnls};

/// Least-squares affine surrogate through `points` with both coefficients
/// non-negative (so the result is always a valid, convex surrogate).
///
/// # Math
/// `min Σ_i (a + b·x_i − y_i)²` over `a, b ≥ 0`, `x_i = bytes_i / 2^20`: the
/// ordinary least-squares line when its coefficients are non-negative, else
/// the non-negative least-squares solution ([`nnls`]): a flat line at the mean
/// for decreasing data, a line through the origin when the intercept would be
/// negative. One point gives the flat line `t = y_0`.
///
/// # Complexity
/// `O(m)` for `m` points.
pub fn fit_affine(points: &[Point]) -> Surrogate {
    if points.len() == 1 {
        return Surrogate::Affine {
            fixed_ms: points[0].ms.max(0.0),
            per_mib_ms: 0.0,
        };
    }
    let x: Vec<f64> = points.iter().map(|p| p.bytes as f64 / MIB).collect();
    let y: Vec<f64> = points.iter().map(|p| p.ms).collect();
    let c = nnls(&[vec![1.0; x.len()], x], &y);
    Surrogate::Affine {
        fixed_ms: c[0],
        per_mib_ms: c[1],
    }
}
