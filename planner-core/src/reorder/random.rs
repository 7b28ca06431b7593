//! Seeded randomness: SplitMix64, the seeded shuffle layout, and start vectors.

/// The SplitMix64 generator (Steele, Lea, Flood 2014): a 64-bit state advanced
/// by a Weyl increment and finalized with two xor-shift-multiply rounds.
///
/// Integer-only, so every platform produces the same stream for the same seed.
/// Used for the [`Layout::Random`](super::Layout::Random) shuffle and for the
/// start vectors of the PCA subspace iteration and the spectral Lanczos run.
///
/// # Examples
/// ```
/// use planner_core::reorder::SplitMix64;
///
/// let mut a = SplitMix64::new(7);
/// let mut b = SplitMix64::new(7);
/// assert_eq!(a.next_u64(), b.next_u64());
/// assert!(a.below(10) < 10);
/// ```
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` by Lemire's multiply-shift (`n = 0` gives 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A float uniform in `[-1, 1)` built from the top 53 bits (exact, no rounding).
    pub fn symmetric_unit(&mut self) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / 9_007_199_254_740_992.0;
        2.0 * u - 1.0
    }
}

/// The seeded random layout: a Fisher–Yates shuffle of `0..clusters` driven by
/// [`SplitMix64`].
///
/// # Arguments
/// * `clusters` — the number of clusters `C`.
/// * `seed` — the shuffle seed; equal seeds give equal permutations everywhere.
///
/// # Returns
/// `order[position] = cluster id`.
///
/// # Complexity
/// `O(C)` time, `4C` bytes (the returned order).
pub(crate) fn shuffle(clusters: usize, seed: u64) -> Vec<u32> {
    let mut order: Vec<u32> = (0..clusters as u32).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..clusters).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}
