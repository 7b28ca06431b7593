//! Validated intervals viewed as the span-cost matrix of the dynamic programs.

use crate::surrogate::Surrogate;

/// The validated instance: `n` intervals `[start_i, end_i)` and the surrogate.
///
/// Group `(i..=j)` costs `c(i, j) = t(end_j − start_i)`. For convex `t` the
/// matrix `c` is Monge: for `a ≤ b ≤ c ≤ d`,
/// `c(a, c) + c(b, d) ≤ c(a, d) + c(b, c)`, because the two pairs of spans have
/// equal sums and `span(a, d)` is the largest of the four.
#[derive(Clone, Copy)]
pub(crate) struct Spans<'a> {
    pub start: &'a [u64],
    pub end: &'a [u64],
    pub surrogate: &'a Surrogate,
    /// Longest single interval, computed once (every cap evaluation checks it).
    max_len: u64,
}

impl<'a> Spans<'a> {
    /// The view of validated bounds (`start.len() == end.len()`). O(n).
    pub(crate) fn new(start: &'a [u64], end: &'a [u64], surrogate: &'a Surrogate) -> Self {
        let max_len = start.iter().zip(end).map(|(s, e)| e - s).max().unwrap_or(0);
        Self {
            start,
            end,
            surrogate,
            max_len,
        }
    }

    #[inline]
    pub(crate) fn n(&self) -> usize {
        self.start.len()
    }

    /// `end_j − start_i`, exact in `u64` (`i ≤ j`).
    #[inline]
    pub(crate) fn span(&self, i: usize, j: usize) -> u64 {
        self.end[j] - self.start[i]
    }

    /// `t(span(i, j))`.
    #[inline]
    pub(crate) fn cost(&self, i: usize, j: usize) -> f64 {
        self.surrogate.eval(self.span(i, j))
    }

    /// Length of interval `i`.
    #[inline]
    pub(crate) fn len(&self, i: usize) -> u64 {
        self.end[i] - self.start[i]
    }

    /// `Σ |I_i|`.
    pub(crate) fn required_bytes(&self) -> u64 {
        (0..self.n()).map(|i| self.len(i)).sum()
    }

    /// Span of everything, `end_{n−1} − start_0` (0 when empty).
    pub(crate) fn total_span(&self) -> u64 {
        if self.n() == 0 {
            0
        } else {
            self.span(0, self.n() - 1)
        }
    }

    /// Longest single interval: no cap below it is feasible. O(1).
    pub(crate) fn max_len(&self) -> u64 {
        self.max_len
    }
}
