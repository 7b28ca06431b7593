//! The row problem of one layer of the thresholded DP, solved by the row
//! scans of [`basic`](super::basic), [`monge`](super::monge) and
//! [`affine`](super::affine).

use super::Score;
use crate::spans::Spans;

/// One layer's row problem: `cur[i] = min_j c(i, j) + prev[j + 1]` for rows
/// `rows`, column range of row `i` = `[max(i, col_lo), min(hi[i], col_hi)]`.
pub(crate) struct Layer<'a> {
    pub sp: &'a Spans<'a>,
    pub prev: &'a [Score],
    pub hi: &'a [u32],
    pub col_lo: usize,
    pub col_hi: usize,
}

impl Layer<'_> {
    #[inline]
    pub(crate) fn cols(&self, i: usize) -> (usize, usize) {
        (i.max(self.col_lo), (self.hi[i] as usize).min(self.col_hi))
    }

    #[inline]
    pub(crate) fn value(&self, i: usize, j: usize) -> Score {
        let tail = self.prev[j + 1];
        Score {
            w: self.sp.cost(i, j) + tail.w,
            bytes: self.sp.span(i, j) + tail.bytes,
        }
    }

    /// `min_{lo ≤ j ≤ hi} value(i, j)` and the least `j` attaining it
    /// (`(Score::INF, lo)` for an empty range). `O(hi − lo + 1)`.
    #[inline]
    pub(crate) fn argmin(&self, i: usize, lo: usize, hi: usize) -> (Score, usize) {
        let (mut best, mut arg) = (Score::INF, lo);
        for j in lo..=hi {
            let v = self.value(i, j);
            if v.lt(&best) {
                best = v;
                arg = j;
            }
        }
        (best, arg)
    }
}
