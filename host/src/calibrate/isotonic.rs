//! The monotone piecewise-linear fit (isotonic regression).

use planner_core::{Breakpoint, Surrogate};

use super::Point;

/// Least-squares nondecreasing sequence through the per-size medians, linear
/// between sizes: a monotone (not necessarily convex) surrogate.
///
/// # Math
/// Pool-adjacent-violators (Ayer et al. 1955; Barlow et al. 1972): scan left
/// to right keeping blocks with their mean; whenever a block's mean is below
/// its left neighbour's, merge the two (weighted by their sizes) and repeat
/// leftwards. The block means, repeated over their members, minimize
/// `Σ_i (v_i − y_i)²` subject to `v_1 ≤ … ≤ v_m`. Negative inputs are
/// clamped to 0 first so every value is a valid time.
///
/// # Complexity
/// `O(m)` amortized for `m` points.
pub fn fit_monotone(points: &[Point]) -> Surrogate {
    // Blocks: (sum, count).
    let mut blocks: Vec<(f64, usize)> = Vec::with_capacity(points.len());
    for p in points {
        blocks.push((p.ms.max(0.0), 1));
        while blocks.len() >= 2 {
            let (s1, n1) = blocks[blocks.len() - 1];
            let (s0, n0) = blocks[blocks.len() - 2];
            if s1 / n1 as f64 >= s0 / n0 as f64 {
                break;
            }
            blocks.pop();
            let last = blocks.len() - 1;
            blocks[last] = (s0 + s1, n0 + n1);
        }
    }
    let mut out = Vec::with_capacity(points.len());
    let mut i = 0;
    let mut prev = 0.0_f64;
    for (s, n) in blocks {
        // max(): block means are nondecreasing up to rounding.
        let mean = (s / n as f64).max(prev);
        prev = mean;
        for _ in 0..n {
            out.push(Breakpoint {
                bytes: points[i].bytes,
                ms: mean,
            });
            i += 1;
        }
    }
    Surrogate::Piecewise(out)
}
