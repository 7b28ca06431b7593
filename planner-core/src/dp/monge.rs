//! Divide-and-conquer rows for Monge costs (convex `t`), paper §4.1.2.

use super::Score;
use super::layer::Layer;

/// Same contract as [`basic::solve_rows`](super::basic::solve_rows), for convex `t`.
///
/// # Math
/// With `c` Monge and a column-only term `g_{k−1}(j + 1)`, the leftmost argmin
/// `opt(i)` is nondecreasing in `i` (also within the staircase of feasible
/// columns, whose bounds are nondecreasing). Solving the middle row and recursing
/// on `[first, mid − 1] × [lo, opt(mid)]` and `[mid + 1, last] × [opt(mid), hi]`
/// evaluates `O(n log n)` cells.
///
/// # Complexity
/// `O(n log n)` cost evaluations per layer, recursion depth `O(log n)`.
pub(crate) fn solve_rows(
    layer: &Layer<'_>,
    first: usize,
    last: usize,
    cur: &mut [Score],
    choice: &mut [u32],
) {
    recurse(layer, first, last, 0, usize::MAX, cur, choice);
}

fn recurse(
    layer: &Layer<'_>,
    first: usize,
    last: usize,
    opt_lo: usize,
    opt_hi: usize,
    cur: &mut [Score],
    choice: &mut [u32],
) {
    if first > last {
        return;
    }
    let mid = first + (last - first) / 2;
    let (lo, hi) = layer.cols(mid);
    let (lo, hi) = (lo.max(opt_lo), hi.min(opt_hi));
    let (best, arg) = layer.argmin(mid, lo, hi);
    cur[mid] = best;
    choice[mid] = arg as u32;
    if mid > first {
        recurse(layer, first, mid - 1, opt_lo, arg, cur, choice);
    }
    recurse(layer, mid + 1, last, arg, opt_hi, cur, choice);
}
