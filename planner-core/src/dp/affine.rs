//! Linear-time thresholded-DP rows for the affine surrogate `t(L) = a + b·L`.
//!
//! With `t` affine the group cost separates: `t(end_j − start_i) = a − b·start_i + b·end_j`,
//! so `min_j t(span(i, j)) + tail(j)` is a row constant plus the minimum of a
//! column key `b·end_j + tail(j)` over the row's window of feasible columns. The
//! window's both ends are nonincreasing as the row index decreases (spans grow
//! to the left), so a monotone deque gives every row's minimum in `O(1)`
//! amortized — `O(n)` per layer instead of `O(n log n)` — exactly the same
//! optimum as the general programs. Offsets are taken relative to `start_0` so
//! `b·end_j` keeps full precision.

use super::Score;
use super::layer::Layer;
use super::window::Window;

/// Column key of the thresholded program: `(b·(end_j − start_0) + W_tail, (end_j − start_0) + bytes_tail)`.
#[derive(Clone, Copy)]
pub(crate) struct LayerKey {
    w: f64,
    bytes: u128,
}

impl LayerKey {
    pub(crate) const ZERO: LayerKey = LayerKey { w: 0.0, bytes: 0 };
}

/// Affine version of [`basic::solve_rows`](super::basic::solve_rows): `O(n)` per layer.
pub(crate) fn solve_rows(
    layer: &Layer<'_>,
    first: usize,
    last: usize,
    b: f64,
    cur: &mut [Score],
    choice: &mut [u32],
    queue: (&mut [u32], &mut [LayerKey]),
) {
    let sp = layer.sp;
    let base = sp.start[0];
    let mut win = Window::new(queue.0, queue.1);
    let le = |x: &LayerKey, y: &LayerKey| x.w < y.w || (x.w == y.w && x.bytes <= y.bytes);
    // Columns enter as the lower window end max(i, col_lo) moves left.
    let mut next_col = layer.cols(last).1 + 1;
    for i in (first..=last).rev() {
        let (lo, hi) = layer.cols(i);
        while next_col > lo {
            next_col -= 1;
            let tail = layer.prev[next_col + 1];
            let rel = sp.end[next_col] - base;
            win.push(
                next_col,
                LayerKey {
                    w: b * rel as f64 + tail.w,
                    bytes: u128::from(rel) + u128::from(tail.bytes),
                },
                le,
            );
        }
        let j = win.best(hi).unwrap_or(lo);
        cur[i] = layer.value(i, j);
        choice[i] = j as u32;
    }
}
