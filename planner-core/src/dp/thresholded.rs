//! The thresholded DP (paper §4.1): exact `min W` with every span `≤ Λ` and
//! at most `K_max` groups.

use super::affine::{self, LayerKey};
use super::layer::Layer;
use super::{Score, basic, monge, per_byte, unroll};
use crate::interrupt::Stop;
use crate::min_b::reach;
use crate::plan::Request;
use crate::spans::Spans;

/// Buffers of the layered program, sized by the [`Capacity`](crate::Capacity).
pub(crate) struct LayeredWs {
    pub prev: Vec<Score>,
    pub cur: Vec<Score>,
    /// `choice[(k − 1)·n + i]`: end of the first group of the best `k`-group suffix plan from `i`.
    pub choice: Vec<u32>,
    pub hi: Vec<u32>,
    pub min_groups: Vec<u32>,
    /// Sliding window of the affine rows.
    pub queue_col: Vec<u32>,
    pub queue_key: Vec<LayerKey>,
}

impl LayeredWs {
    /// Buffers for `n` intervals and budget `k` (none at all for `n = 0`).
    pub(crate) fn with_capacity(n: usize, k: usize) -> Self {
        let rows = if n == 0 { 0 } else { n + 1 };
        Self {
            prev: vec![Score::INF; rows],
            cur: vec![Score::INF; rows],
            choice: vec![0; n * k],
            hi: vec![0; n],
            min_groups: vec![0; rows],
            queue_col: vec![0; n],
            queue_key: vec![LayerKey::ZERO; n],
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        (self.prev.capacity() + self.cur.capacity()) * size_of::<Score>()
            + (self.choice.capacity()
                + self.hi.capacity()
                + self.min_groups.capacity()
                + self.queue_col.capacity())
                * size_of::<u32>()
            + self.queue_key.capacity() * size_of::<LayerKey>()
    }
}

/// Exact sum-minimizing DP (paper §4.1) under span cap `cap`:
/// `min W(π)` over plans with `|π| ≤ k_max` and every `L_g ≤ cap`, ties broken
/// by fewer requests, fewer bytes, lexicographically smallest ends.
///
/// # Math
/// `g_k(i) = min_{j} t(end_j − start_i) + g_{k−1}(j + 1)`, `g_0(n) = 0`, over the
/// feasible rows `min_groups(i) ≤ k ≤ n − i` and columns `j ≤ hi(i)`. With
/// `monge` (convex `t`) each layer is solved by divide and conquer on monotone
/// leftmost argmins and the layers stop once `F(k) = g_k(0)` stops decreasing,
/// which is exact because `F` is convex in `k` for Monge costs.
///
/// # Complexity
/// `O(n² K)` (`basic`) or `O(n K log n)` (`monge`) time; `O(nK)` workspace,
/// no allocation.
///
/// Returns the number of groups written to `out`, or `None` when no plan fits
/// (`cap` below the longest interval or below the min-B cap for `k_max`) or
/// `stop` fired (polled once per layer and every few hundred `basic` rows).
pub(crate) fn capped_min_w(
    sp: &Spans<'_>,
    cap: u64,
    k_max: usize,
    use_monge: bool,
    ws: &mut LayeredWs,
    out: &mut [Request],
    stop: &mut Stop<'_>,
) -> Option<usize> {
    let n = sp.n();
    if n == 0 {
        return Some(0);
    }
    if !reach(sp, cap, &mut ws.hi, &mut ws.min_groups) || ws.min_groups[0] as usize > k_max {
        return None;
    }
    let kk = k_max.min(n);
    let per_byte = per_byte(sp);
    ws.prev[..=n].fill(Score::INF);
    ws.prev[n] = Score::ZERO;
    let mut prev_first_row = n; // first feasible row of layer k − 1
    let mut first_row = n;
    let mut best: Option<(usize, Score)> = None;
    let mut last_f = Score::INF;
    for k in 1..=kk {
        if stop.check() {
            return None;
        }
        while first_row > 0 && ws.min_groups[first_row - 1] as usize <= k {
            first_row -= 1;
        }
        let last_row = n - k;
        ws.cur[..=n].fill(Score::INF);
        if first_row <= last_row {
            let layer = Layer {
                sp,
                prev: &ws.prev,
                hi: &ws.hi,
                col_lo: prev_first_row.saturating_sub(1),
                col_hi: n - k,
            };
            let choice = &mut ws.choice[(k - 1) * n..k * n];
            if let Some(b) = per_byte {
                let queue = (&mut ws.queue_col[..], &mut ws.queue_key[..]);
                affine::solve_rows(&layer, first_row, last_row, b, &mut ws.cur, choice, queue);
            } else if use_monge {
                monge::solve_rows(&layer, first_row, last_row, &mut ws.cur, choice);
            } else {
                basic::solve_rows(&layer, first_row, last_row, &mut ws.cur, choice, stop);
            }
        }
        let f = ws.cur[0];
        // Equal W: the earlier layer (fewer requests) wins, whatever the bytes.
        if f.is_finite() && best.is_none_or(|(_, b)| f.w < b.w) {
            best = Some((k, f));
        }
        if use_monge && f.is_finite() && last_f.is_finite() && f.w >= last_f.w {
            break;
        }
        last_f = f;
        core::mem::swap(&mut ws.prev, &mut ws.cur);
        prev_first_row = first_row;
    }
    let (k, _) = best?;
    let choice = &ws.choice;
    Some(unroll(sp, |g, i| choice[(k - 1 - g) * n + i] as usize, out))
}
