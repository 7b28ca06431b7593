//! The convex nondecreasing piecewise-linear fit (convex regression).

use planner_core::{Breakpoint, Surrogate};

use super::{Point, nnls::nnls};

/// Least-squares convex, nondecreasing piecewise-linear surrogate with a
/// breakpoint at every measured size.
///
/// # Math
/// Every convex nondecreasing piecewise-linear `f` with knots `x_1 < … < x_m`
/// is, on `[x_1, ∞)`,
///
/// ```text
/// f(x) = a + b·(x − x_1) + Σ_{k=2}^{m−1} c_k · (x − x_k)₊,   a, b, c_k ≥ 0
/// ```
///
/// (`b` is the first slope, `c_k` the slope increase at knot `k`; `a ≥ 0`
/// keeps every value a valid time). Minimizing `Σ_i (f(x_i) − y_i)²` over
/// this hinge basis with non-negativity is a non-negative least-squares
/// problem ([`nnls`]), whose optimum is the least-squares projection of the
/// data onto the cone of convex nondecreasing sequences — convex regression
/// restricted to nondecreasing fits. The fitted values at the knots become the
/// breakpoints. The slopes are then re-derived by cumulative sums and a final
/// pass nudges values up by at most a few ulps where rounding would make
/// [`Surrogate::is_convex`] (which compares slopes by cross-multiplication)
/// disagree, so the result is convex and nondecreasing for every input.
///
/// # Complexity
/// NNLS with `m` columns: `O(m⁴)` worst case; `m ≤ 64` here.
pub fn fit_convex(points: &[Point]) -> Surrogate {
    let m = points.len();
    let x: Vec<f64> = points.iter().map(|p| p.bytes as f64).collect();
    let y: Vec<f64> = points.iter().map(|p| p.ms).collect();
    if m == 1 {
        return Surrogate::Piecewise(vec![Breakpoint {
            bytes: points[0].bytes,
            ms: y[0].max(0.0),
        }]);
    }
    // Work in units of the largest span so that columns are O(1).
    let span = x[m - 1] - x[0];
    let u: Vec<f64> = x.iter().map(|v| (v - x[0]) / span).collect();
    let mut columns = vec![vec![1.0; m], u.clone()];
    for k in 1..m - 1 {
        columns.push(u.iter().map(|&v| (v - u[k]).max(0.0)).collect());
    }
    let c = nnls(&columns, &y);
    // Slope on [u_k, u_{k+1}] = b + Σ_{j ≤ k, j ≥ 1} c_j: nondecreasing by construction.
    let mut ms = Vec::with_capacity(m);
    let mut value = c[0];
    let mut slope = c[1];
    ms.push(value);
    for k in 0..m - 1 {
        if k >= 1 {
            slope += c[k + 1];
        }
        value += slope * (u[k + 1] - u[k]);
        ms.push(value);
    }
    let mut out: Vec<Breakpoint> = points
        .iter()
        .zip(ms)
        .map(|(p, ms)| Breakpoint { bytes: p.bytes, ms })
        .collect();
    repair_convexity(&mut out);
    Surrogate::Piecewise(out)
}

/// Makes `points` pass [`Surrogate::is_convex`]'s exact test and be
/// nondecreasing, raising values by the smallest representable amounts left
/// to right (values that already pass are untouched).
pub(crate) fn repair_convexity(points: &mut [Breakpoint]) {
    for i in 1..points.len() {
        if points[i].ms < points[i - 1].ms {
            points[i].ms = points[i - 1].ms;
        }
        if i >= 2 {
            let (p0, p1) = (points[i - 2], points[i - 1]);
            let d0 = (p1.bytes - p0.bytes) as f64;
            let d1 = (points[i].bytes - p1.bytes) as f64;
            let ok = |m2: f64| (m2 - p1.ms) * d0 >= (p1.ms - p0.ms) * d1;
            if !ok(points[i].ms) {
                let mut m2 = p1.ms + (p1.ms - p0.ms) * (d1 / d0);
                // A handful of ulps at most; bounded loop.
                for _ in 0..64 {
                    if ok(m2) {
                        break;
                    }
                    m2 = m2.next_up();
                }
                points[i].ms = m2.max(points[i].ms);
            }
        }
    }
}
