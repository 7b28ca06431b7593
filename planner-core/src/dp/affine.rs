//! Linear-time rows for the affine surrogate `t(L) = a + b·L`.
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
use super::layered::Layer;
use super::penalized::{PenScore, PenalizedWs};
use crate::spans::Spans;

/// `b`, ms per byte, when the surrogate is affine.
pub(crate) fn per_byte(sp: &Spans<'_>) -> Option<f64> {
    match sp.surrogate {
        crate::Surrogate::Affine { per_mib_ms, .. } => Some(per_mib_ms / crate::MIB),
        crate::Surrogate::Piecewise(_) => None,
    }
}

/// Sliding-window minimum over columns, newest (smallest) column last.
struct Window<'q, K> {
    cols: &'q mut [u32],
    keys: &'q mut [K],
    head: usize,
    tail: usize,
}

impl<'q, K: Copy> Window<'q, K> {
    fn new(cols: &'q mut [u32], keys: &'q mut [K]) -> Self {
        Self {
            cols,
            keys,
            head: 0,
            tail: 0,
        }
    }

    /// Adds column `j` (smaller than every column held); drops held columns it
    /// dominates (`le(new, old)`: at least as good, and it stays in the window longer).
    fn push(&mut self, j: usize, key: K, le: impl Fn(&K, &K) -> bool) {
        while self.tail > self.head && le(&key, &self.keys[self.tail - 1]) {
            self.tail -= 1;
        }
        self.cols[self.tail] = j as u32;
        self.keys[self.tail] = key;
        self.tail += 1;
    }

    /// Drops columns above `hi`; returns the best remaining column.
    fn best(&mut self, hi: usize) -> Option<usize> {
        while self.head < self.tail && self.cols[self.head] as usize > hi {
            self.head += 1;
        }
        (self.head < self.tail).then(|| self.cols[self.head] as usize)
    }
}

/// Column key of the layered program: `(b·(end_j − start_0) + W_tail, (end_j − start_0) + bytes_tail)`.
#[derive(Clone, Copy)]
pub(crate) struct LayerKey {
    w: f64,
    bytes: u128,
}

impl LayerKey {
    pub const ZERO: LayerKey = LayerKey { w: 0.0, bytes: 0 };
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

/// Column key of the penalized program: `(b·(end_j − start_0) + pen_tail, k_tail,
/// (end_j − start_0) + bytes_tail)`.
///
/// `bytes` fits `u64` (unlike the layered key, whose tails may be infinite):
/// the tail is a plan of intervals `j + 1..n`, so its bytes are at most
/// `end_{n−1} − start_{j+1} ≤ end_{n−1} − end_j`, and the sum is at most
/// `end_{n−1} − start_0`.
#[derive(Clone, Copy)]
pub(crate) struct PenKey {
    pen: f64,
    k: u32,
    bytes: u64,
}

impl PenKey {
    pub const ZERO: PenKey = PenKey {
        pen: 0.0,
        k: 0,
        bytes: 0,
    };
}

/// Affine version of [`penalized::solve`](super::penalized::solve): `O(n)`.
pub(crate) fn solve_penalized(
    sp: &Spans<'_>,
    cap: u64,
    lambda: f64,
    b: f64,
    ws: &mut PenalizedWs,
) -> PenScore {
    let n = sp.n();
    let base = sp.start[0];
    ws.g[n] = PenScore::ZERO;
    let mut win = Window::new(&mut ws.queue_col, &mut ws.pen_keys);
    let le = |x: &PenKey, y: &PenKey| {
        if x.pen != y.pen {
            return x.pen < y.pen;
        }
        if x.k != y.k {
            return x.k < y.k;
        }
        x.bytes <= y.bytes
    };
    let mut hi = n - 1;
    for i in (0..n).rev() {
        let tail = ws.g[i + 1];
        let rel = sp.end[i] - base;
        win.push(
            i,
            PenKey {
                pen: b * rel as f64 + tail.pen,
                k: tail.k,
                bytes: rel + tail.bytes,
            },
            le,
        );
        while sp.span(i, hi) > cap {
            hi -= 1;
        }
        let j = win.best(hi).unwrap_or(i);
        ws.g[i] = super::penalized::value(sp, cap, lambda, &ws.g, i, j);
        ws.next[i] = j as u32;
    }
    ws.g[0]
}
