//! The count-free program with a price `λ` per request (Lagrangian inner step).

use super::window::Window;
use crate::interrupt::{ROWS_PER_POLL, Stop};
use crate::plan::Request;
use crate::spans::Spans;

/// Value of a suffix plan under price `λ`: `W + λ·k`, then `k`, then bytes;
/// `w` carries the plain `W`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PenScore {
    pub pen: f64,
    pub w: f64,
    pub k: u32,
    pub bytes: u64,
}

impl PenScore {
    pub(crate) const ZERO: PenScore = PenScore {
        pen: 0.0,
        w: 0.0,
        k: 0,
        bytes: 0,
    };
    pub(crate) const INF: PenScore = PenScore {
        pen: f64::INFINITY,
        w: f64::INFINITY,
        k: u32::MAX,
        bytes: u64::MAX,
    };

    /// `a ≤ b` in the order (penalized value, requests, bytes).
    #[inline]
    fn le(&self, o: &PenScore) -> bool {
        if self.pen != o.pen {
            return self.pen < o.pen;
        }
        if self.k != o.k {
            return self.k < o.k;
        }
        self.bytes <= o.bytes
    }
}

/// Buffers of the penalized program.
pub(crate) struct PenalizedWs {
    pub g: Vec<PenScore>,
    pub next: Vec<u32>,
    /// Monotone queue: candidate columns and the highest row each one owns.
    pub queue_col: Vec<u32>,
    pub queue_top: Vec<u32>,
    /// Column keys of the affine sliding window.
    pub pen_keys: Vec<PenKey>,
}

impl PenalizedWs {
    /// Buffers for `n` intervals (none at all for `n = 0`: nothing to solve).
    pub(crate) fn with_capacity(n: usize) -> Self {
        let rows = if n == 0 { 0 } else { n + 1 };
        Self {
            g: vec![PenScore::INF; rows],
            next: vec![0; n],
            queue_col: vec![0; n],
            queue_top: vec![0; n],
            pen_keys: vec![PenKey::ZERO; n],
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.g.capacity() * size_of::<PenScore>()
            + (self.next.capacity() + self.queue_col.capacity() + self.queue_top.capacity())
                * size_of::<u32>()
            + self.pen_keys.capacity() * size_of::<PenKey>()
    }
}

/// Candidate `j` seen from row `i`: `t(span(i, j)) + λ + g(j + 1)`, infinite
/// past the cap.
#[inline]
pub(crate) fn value(
    sp: &Spans<'_>,
    cap: u64,
    lambda: f64,
    g: &[PenScore],
    i: usize,
    j: usize,
) -> PenScore {
    let span = sp.span(i, j);
    if span > cap {
        return PenScore::INF;
    }
    let t = sp.cost(i, j);
    let tail = g[j + 1];
    PenScore {
        pen: t + lambda + tail.pen,
        w: t + tail.w,
        k: tail.k + 1,
        bytes: span + tail.bytes,
    }
}

/// Solves `g(i) = min_{i ≤ j, span(i, j) ≤ Λ} t(span(i, j)) + λ + g(j + 1)`,
/// `g(n) = 0`, preferring fewer requests, fewer bytes, then the smallest `j`.
/// Returns `g(0)`, or `None` once `stop` fired (polled per solve and every
/// [`ROWS_PER_POLL`] rows of the quadratic scan); the plan is read back with
/// [`write_plan`].
///
/// `monotone` (convex `t` only) keeps a queue of candidate columns, each owning
/// the rows where it is best: for Monge costs a newer (smaller) column that is at
/// least as good as an older one at row `r` stays so at every row `< r`, so the
/// takeover row is found by binary search. Otherwise each row scans its window.
///
/// `Λ` must be at least the longest interval.
///
/// # Complexity
/// `O(n log n)` cost evaluations (`monotone`) or `O(Σ_i |window_i|) ⊆ O(n²)`;
/// no allocation.
pub(crate) fn solve(
    sp: &Spans<'_>,
    cap: u64,
    lambda: f64,
    monotone: bool,
    ws: &mut PenalizedWs,
    stop: &mut Stop<'_>,
) -> Option<PenScore> {
    if stop.check() {
        return None;
    }
    let n = sp.n();
    if let Some(b) = super::per_byte(sp) {
        return Some(solve_affine(sp, cap, lambda, b, ws));
    }
    ws.g[n] = PenScore::ZERO;
    if !monotone {
        let mut hi = n.saturating_sub(1);
        for i in (0..n).rev() {
            if i % ROWS_PER_POLL == 0 && stop.check() {
                return None;
            }
            while hi > i && sp.span(i, hi) > cap {
                hi -= 1;
            }
            let (mut best, mut arg) = (PenScore::INF, i);
            for j in i..=hi {
                let v = value(sp, cap, lambda, &ws.g, i, j);
                // Strictly better only: an equal later column never replaces.
                if !best.le(&v) {
                    best = v;
                    arg = j;
                }
            }
            ws.g[i] = best;
            ws.next[i] = arg as u32;
        }
        return Some(ws.g[0]);
    }
    // Deque stored back-to-front in a fixed array: entries [head, tail) with
    // head = front (smallest column, lowest rows).
    let (cols, tops) = (&mut ws.queue_col, &mut ws.queue_top);
    let (mut head, mut tail) = (n, n);
    for r in (0..n).rev() {
        // 1. Insert candidate column r.
        let a = r;
        let mut insert_top = Some(r);
        while head < tail {
            let f = cols[head] as usize;
            let f_top = (tops[head] as usize).min(r);
            let beats = |row: usize| {
                value(sp, cap, lambda, &ws.g, row, a).le(&value(sp, cap, lambda, &ws.g, row, f))
            };
            if beats(f_top) {
                head += 1; // a wins on all of f's rows
                continue;
            }
            if !beats(0) {
                insert_top = None; // never better than f
            } else {
                // largest row in [0, f_top) where a beats f
                let (mut lo, mut hi) = (0usize, f_top);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if beats(mid) { lo = mid } else { hi = mid }
                }
                insert_top = Some(lo);
            }
            break;
        }
        if let Some(top) = insert_top {
            head -= 1;
            cols[head] = a as u32;
            tops[head] = top as u32;
        }
        // 2. Answer row r: drop back entries whose rows all lie above r.
        while tail - head >= 2 && tops[tail - 2] as usize >= r {
            tail -= 1;
        }
        let j = cols[tail - 1] as usize;
        ws.g[r] = value(sp, cap, lambda, &ws.g, r, j);
        ws.next[r] = j as u32;
    }
    Some(ws.g[0])
}

/// Writes the plan found by the last [`solve`] into `out`; returns its length.
pub(crate) fn write_plan(sp: &Spans<'_>, ws: &PenalizedWs, out: &mut [Request]) -> usize {
    super::unroll(sp, |_, i| ws.next[i] as usize, out)
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
    pub(crate) const ZERO: PenKey = PenKey {
        pen: 0.0,
        k: 0,
        bytes: 0,
    };
}

/// Affine version of [`solve`]: `O(n)` with a sliding window.
fn solve_affine(sp: &Spans<'_>, cap: u64, lambda: f64, b: f64, ws: &mut PenalizedWs) -> PenScore {
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
        ws.g[i] = value(sp, cap, lambda, &ws.g, i, j);
        ws.next[i] = j as u32;
    }
    ws.g[0]
}
