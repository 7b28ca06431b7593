//! The `f64` loops every query-path score runs: `Σ_i (x_i − r_i)²` (squared
//! L2) and `Σ_i x_i·r_i` (inner product) for an `f32` vector `x` and an
//! `f64` reference `r`.
//!
//! Bit-identical on every machine: each lane adds its terms in index order,
//! the tail goes to lanes `0, 1, …` in order, the lanes are reduced by one
//! fixed tree, and nothing is contracted into a fused multiply-add (Rust
//! never does so unasked). The AVX path is the same source compiled with
//! 256-bit registers: the same operations on the same lanes in the same
//! order, so the same bits.

/// Independent accumulators: eight `f64` lanes (two AVX or four SSE2
/// registers) keep the loop vectorized.
const LANES: usize = 8;

/// `Σ_i (x_i − r_i)²` in `f64`, `x_i` widened exactly.
///
/// # Accuracy
/// Each term is `fl(x_i − r_i)²` rounded once more; every term is
/// non-negative, so the result is within `γ_{⌈n/8⌉+5}·Σ_i (x_i − r_i)²`
/// of the exact sum (`γ_k = k·u/(1 − k·u)`, `u = 2⁻⁵³`): a relative error
/// below `3·10⁻¹⁵` at `n = 128`. Never overflows for `f32` inputs
/// (`n·(2·f32::MAX)² < f64::MAX` for `n < 2⁵⁰`), and squares of `f32`
/// differences, subnormal ones included, are normal `f64` numbers.
///
/// # Complexity
/// `O(n)`, `n = x.len()` (`r.len()` must be the same).
#[inline]
pub fn sq_dist(x: &[f32], r: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), r.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports AVX (checked just above).
        return unsafe { sq_dist_avx(x, r) };
    }
    sq_dist_portable(x, r)
}

/// [`sq_dist_portable`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn sq_dist_avx(x: &[f32], r: &[f64]) -> f64 {
    sq_dist_portable(x, r)
}

/// The loop of [`sq_dist`] for the baseline target (SSE2 on x86-64).
#[inline(always)]
pub(super) fn sq_dist_portable(x: &[f32], r: &[f64]) -> f64 {
    let mut acc = [0f64; LANES];
    let (cx, cr) = (x.chunks_exact(LANES), r.chunks_exact(LANES));
    let (tx, tr) = (cx.remainder(), cr.remainder());
    for (a, b) in cx.zip(cr) {
        for l in 0..LANES {
            let d = f64::from(a[l]) - b[l];
            acc[l] += d * d;
        }
    }
    for (l, (a, b)) in tx.iter().zip(tr).enumerate() {
        let d = f64::from(*a) - b;
        acc[l] += d * d;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

/// `Σ_i x_i·r_i` in `f64`, `x_i` widened exactly.
///
/// # Accuracy
/// Each product is rounded once, each lane sum in index order, the lanes by
/// one fixed tree: the result is within `γ_{⌈n/8⌉+4}·Σ_i |x_i·r_i|` of the
/// exact sum (`γ_k = k·u/(1 − k·u)`, `u = 2⁻⁵³`). Finite for finite `f32`
/// `x` and `|r_i| ≤ f32::MAX` (`n·f32::MAX² < f64::MAX` for `n < 2⁹⁰`).
/// The same bits on every machine, as [`sq_dist`].
///
/// # Complexity
/// `O(n)`, `n = x.len()` (`r.len()` must be the same).
#[inline]
pub fn dot(x: &[f32], r: &[f64]) -> f64 {
    debug_assert_eq!(x.len(), r.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports AVX (checked just above).
        return unsafe { dot_avx(x, r) };
    }
    dot_portable(x, r)
}

/// [`dot_portable`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn dot_avx(x: &[f32], r: &[f64]) -> f64 {
    dot_portable(x, r)
}

/// The loop of [`dot`] for the baseline target.
#[inline(always)]
pub(super) fn dot_portable(x: &[f32], r: &[f64]) -> f64 {
    let mut acc = [0f64; LANES];
    let (cx, cr) = (x.chunks_exact(LANES), r.chunks_exact(LANES));
    let (tx, tr) = (cx.remainder(), cr.remainder());
    for (a, b) in cx.zip(cr) {
        for l in 0..LANES {
            acc[l] += f64::from(a[l]) * b[l];
        }
    }
    for (l, (a, b)) in tx.iter().zip(tr).enumerate() {
        acc[l] += f64::from(*a) * b;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values across the whole `f32` range: huge, tiny, subnormal, mixed
    /// signs, zeros.
    fn edgy(n: usize, seed: u32) -> Vec<f32> {
        let pool = [
            3.4e38f32,
            -3.4e38,
            1e20,
            -1e20,
            1.0,
            -0.5,
            1e-40,
            -1e-45,
            f32::MIN_POSITIVE,
            0.0,
            -0.0,
            123.456,
        ];
        (0..n)
            .map(|i| {
                let h = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(seed);
                pool[(h >> 7) as usize % pool.len()] * (0.5 + (h % 97) as f32 / 194.0)
            })
            .collect()
    }

    #[test]
    fn every_path_gives_the_same_bits_and_finite_sums() {
        for n in [0, 1, 7, 8, 9, 16, 31, 128, 129] {
            let x = edgy(n, 1);
            let r: Vec<f64> = edgy(n, 2).into_iter().map(f64::from).collect();
            let a = sq_dist(&x, &r);
            let b = sq_dist_portable(&x, &r);
            assert_eq!(a.to_bits(), b.to_bits(), "n = {n}");
            assert!(a.is_finite() && a >= 0.0, "n = {n}: {a}");
        }
    }

    #[test]
    fn dot_paths_give_the_same_bits_and_finite_sums() {
        for n in [0, 1, 7, 8, 9, 16, 31, 128, 129] {
            let x = edgy(n, 3);
            let r: Vec<f64> = edgy(n, 4).into_iter().map(f64::from).collect();
            let a = dot(&x, &r);
            assert_eq!(a.to_bits(), dot_portable(&x, &r).to_bits(), "n = {n}");
            assert!(a.is_finite(), "n = {n}: {a}");
        }
        assert_eq!(dot(&[1.0, 2.0, 3.0], &[4.0, -5.0, 6.0]), 12.0);
    }

    #[test]
    fn subnormal_differences_are_not_lost() {
        let x = [1e-45f32, 0.0, 3e-44];
        let r = [0.0, f64::from(1e-45f32), 0.0];
        let d = sq_dist(&x, &r);
        assert!(d > 0.0);
        let unit = f64::from(1e-45f32);
        assert_eq!(d, unit * unit * (1.0 + 1.0 + 21.0 * 21.0));
    }
}
