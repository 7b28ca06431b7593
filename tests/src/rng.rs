//! The case builders' draws: planner-core's seeded generator
//! ([`planner_core::reorder::SplitMix64`], the one implementation in the
//! workspace) with the two draws the builders need.

use planner_core::reorder::SplitMix64;

/// The draws of the case builders on a [`SplitMix64`].
pub trait Draws {
    /// Uniform in `lo..=hi` (`lo <= hi`; the modulo bias is irrelevant here).
    fn range(&mut self, lo: u64, hi: u64) -> u64;

    /// `k` distinct values of `0..n`, sorted (partial Fisher–Yates; `k <= n`).
    fn sample_sorted(&mut self, n: usize, k: usize) -> Vec<usize>;
}

impl Draws for SplitMix64 {
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    fn sample_sorted(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + (self.next_u64() % (n - i) as u64) as usize;
            all.swap(i, j);
        }
        let mut out = all[..k].to_vec();
        out.sort_unstable();
        out
    }
}
