//! A tiny seeded generator for the case builders (no dependency, no hidden state).

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, every seed valid.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator started at `seed`.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi` (`lo <= hi`; the modulo bias is irrelevant here).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// `k` distinct values of `0..n`, sorted (partial Fisher–Yates; `k <= n`).
    pub fn sample_sorted(&mut self, n: usize, k: usize) -> Vec<usize> {
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
