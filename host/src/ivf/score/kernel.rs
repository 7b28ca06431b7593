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

/// Lanes of the `f32` screens ([`sq_dist_f32`], [`dot_f32`]): two AVX
/// registers.
pub(super) const LANES32: usize = 16;

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

/// `Σ_i (x_i − q_i)²` in `f32`: the fast screen of an exact scan
/// ([`super::L2Query::lower_bound`]), never a ranked value. Sixteen lanes,
/// the tail to lanes `0, 1, …`, one fixed reduction tree, no fused
/// multiply-add: the same bits on every machine, as [`sq_dist`].
///
/// # Accuracy
/// For finite `x`, `q` and a finite result `s`, with `e` the exact sum,
/// `s ≤ (1 + δ)·e + η` where `(δ, η)` = [`sq_dist_f32_error`]`(n)`: each
/// difference and square is rounded once (relative `u = 2⁻²⁴`, or
/// an absolute `2⁻¹⁵⁰` where a square underflows; subnormal sums are
/// exact), each lane adds `⌈n/16⌉` non-negative terms in order and the tree
/// four more levels. An overflow gives `+∞` (the caller falls back).
///
/// # Complexity
/// `O(n)`, `n = x.len()` (`q.len()` must be the same); about a third of
/// [`sq_dist`]'s time on AVX (twice the lanes a register, no widening).
#[inline]
pub fn sq_dist_f32(x: &[f32], q: &[f32]) -> f32 {
    debug_assert_eq!(x.len(), q.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports AVX (checked just above).
        return unsafe { sq_dist_f32_avx(x, q) };
    }
    sq_dist_f32_portable(x, q)
}

/// [`sq_dist_f32_portable`] in AVX intrinsics: lanes `0..8` and `8..16` in
/// two registers, the same operations in the same order (so the same
/// bits), the tail and the tree as the portable loop.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn sq_dist_f32_avx(x: &[f32], q: &[f32]) -> f32 {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_sub_ps,
    };
    let n = x.len().min(q.len());
    let full = n - n % LANES32;
    let (mut lo, mut hi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut b = 0;
    while b < full {
        // SAFETY: `b + 16 <= full <= n`, the length of both slices.
        unsafe {
            let d_lo = _mm256_sub_ps(
                _mm256_loadu_ps(x.as_ptr().add(b)),
                _mm256_loadu_ps(q.as_ptr().add(b)),
            );
            let d_hi = _mm256_sub_ps(
                _mm256_loadu_ps(x.as_ptr().add(b + 8)),
                _mm256_loadu_ps(q.as_ptr().add(b + 8)),
            );
            lo = _mm256_add_ps(lo, _mm256_mul_ps(d_lo, d_lo));
            hi = _mm256_add_ps(hi, _mm256_mul_ps(d_hi, d_hi));
        }
        b += LANES32;
    }
    sq_finish(spill16(lo, hi), &x[full..n], &q[full..n])
}

/// The loop of [`sq_dist_f32`] for the baseline target.
#[inline(always)]
pub(super) fn sq_dist_f32_portable(x: &[f32], q: &[f32]) -> f32 {
    let mut acc = [0f32; LANES32];
    let (cx, cq) = (x.chunks_exact(LANES32), q.chunks_exact(LANES32));
    let (tx, tq) = (cx.remainder(), cq.remainder());
    for (a, b) in cx.zip(cq) {
        for l in 0..LANES32 {
            let d = a[l] - b[l];
            acc[l] += d * d;
        }
    }
    sq_finish(acc, tx, tq)
}

/// [`sq_dist_f32`]'s tail (fewer than 16 terms, to lanes `0, 1, …`) and
/// its tree ([`reduce_tree`]).
#[inline(always)]
fn sq_finish(mut acc: [f32; LANES32], x: &[f32], q: &[f32]) -> f32 {
    for (l, (a, b)) in x.iter().zip(q).enumerate() {
        let d = a - b;
        acc[l] += d * d;
    }
    reduce_tree(acc)
}

/// The `N` lanes of an `f32` loop (`N` a power of two) summed by one fixed
/// tree: `l += l + w` for `w = N/2, …, 2, 1` (the order every path of every
/// loop uses, so that all give the same bits; sixteen lanes here, 32 in the
/// 8-bit screen). `O(N)`.
#[inline(always)]
pub(super) fn reduce_tree<const N: usize>(mut acc: [f32; N]) -> f32 {
    let mut w = N;
    while w > 1 {
        w /= 2;
        for l in 0..w {
            acc[l] += acc[l + w];
        }
    }
    acc[0]
}

/// Lanes `0..8` (`lo`) and `8..16` (`hi`) of an AVX loop, as an array.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
pub(super) fn spill16(
    lo: std::arch::x86_64::__m256,
    hi: std::arch::x86_64::__m256,
) -> [f32; LANES32] {
    use std::arch::x86_64::_mm256_storeu_ps;
    let mut acc = [0f32; LANES32];
    // SAFETY: `acc` holds 16 floats: 8 from its start, 8 from index 8.
    unsafe {
        _mm256_storeu_ps(acc.as_mut_ptr(), lo);
        _mm256_storeu_ps(acc.as_mut_ptr().add(8), hi);
    }
    acc
}

/// `(δ, η)` bounding [`sq_dist_f32`] over `n` terms from above:
/// `s ≤ (1 + δ)·e + η`, with `δ = 1.01·(⌈n/16⌉ + 7)·2⁻²⁴` (`⌈n/16⌉` lane
/// additions, four tree levels, a difference and a square, each within a
/// factor `1 + u` for non-negative terms, `(1 + u)^k ≤ 1 + 1.01·k·u` for
/// `k·u < 0.01`) and `η = n·2⁻¹⁴⁹` (each underflowed square off by at
/// most `2⁻¹⁵⁰`, and that carried through the additions). `O(1)`.
pub fn sq_dist_f32_error(n: usize) -> (f64, f64) {
    let depth = n.div_ceil(LANES32) as f64 + 7.0;
    (1.01 * depth * 2f64.powi(-24), n as f64 * 2f64.powi(-149))
}

/// `(Σ_i x_i·q_i, Σ_i |x_i·q_i|)` in `f32`: the screen of an exact
/// inner-product scan ([`super::IpQuery::lower_bound`]). Each product is
/// rounded once and added to both sums, sixteen lanes each, the tail to
/// lanes `0, 1, …`, one fixed tree; the same bits on every machine.
///
/// # Accuracy
/// With `(δ, η)` = [`dot_f32_error`]`(n)`, `S` the exact inner product
/// and `A` the exact `Σ |x_i q_i|`, a finite result `(s, a)` has
/// `|s − S| ≤ δ·A + η` and `A ≤ (1 + δ)·a + η` (each product within a
/// factor `1 + u` or, underflowing, `2⁻¹⁵⁰`; each partial sum of a lane
/// and the tree one rounding more). An overflow gives a non-finite sum.
///
/// # Complexity
/// `O(n)`, `n = x.len()` (`q.len()` must be the same).
#[inline]
pub fn dot_f32(x: &[f32], q: &[f32]) -> (f32, f32) {
    debug_assert_eq!(x.len(), q.len());
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU supports AVX (checked just above).
        return unsafe { dot_f32_avx(x, q) };
    }
    dot_f32_portable(x, q)
}

/// [`dot_f32_portable`] in AVX intrinsics (as [`sq_dist_f32_avx`]; `|p|`
/// by clearing the sign bit, as `f32::abs`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn dot_f32_avx(x: &[f32], q: &[f32]) -> (f32, f32) {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_andnot_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set1_ps,
        _mm256_setzero_ps,
    };
    let n = x.len().min(q.len());
    let full = n - n % LANES32;
    let sign = _mm256_set1_ps(-0.0);
    let (mut lo, mut hi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let (mut alo, mut ahi) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    let mut b = 0;
    while b < full {
        // SAFETY: `b + 16 <= full <= n`, the length of both slices.
        unsafe {
            let p_lo = _mm256_mul_ps(
                _mm256_loadu_ps(x.as_ptr().add(b)),
                _mm256_loadu_ps(q.as_ptr().add(b)),
            );
            let p_hi = _mm256_mul_ps(
                _mm256_loadu_ps(x.as_ptr().add(b + 8)),
                _mm256_loadu_ps(q.as_ptr().add(b + 8)),
            );
            lo = _mm256_add_ps(lo, p_lo);
            hi = _mm256_add_ps(hi, p_hi);
            alo = _mm256_add_ps(alo, _mm256_andnot_ps(sign, p_lo));
            ahi = _mm256_add_ps(ahi, _mm256_andnot_ps(sign, p_hi));
        }
        b += LANES32;
    }
    dot_finish(spill16(lo, hi), spill16(alo, ahi), &x[full..n], &q[full..n])
}

/// The loop of [`dot_f32`] for the baseline target.
#[inline(always)]
pub(super) fn dot_f32_portable(x: &[f32], q: &[f32]) -> (f32, f32) {
    let mut acc = [0f32; LANES32];
    let mut abs = [0f32; LANES32];
    let (cx, cq) = (x.chunks_exact(LANES32), q.chunks_exact(LANES32));
    let (tx, tq) = (cx.remainder(), cq.remainder());
    for (a, b) in cx.zip(cq) {
        for l in 0..LANES32 {
            let p = a[l] * b[l];
            acc[l] += p;
            abs[l] += p.abs();
        }
    }
    dot_finish(acc, abs, tx, tq)
}

/// [`dot_f32`]'s tail and tree, as [`sq_finish`].
#[inline(always)]
fn dot_finish(
    mut acc: [f32; LANES32],
    mut abs: [f32; LANES32],
    x: &[f32],
    q: &[f32],
) -> (f32, f32) {
    for (l, (a, b)) in x.iter().zip(q).enumerate() {
        let p = a * b;
        acc[l] += p;
        abs[l] += p.abs();
    }
    (reduce_tree(acc), reduce_tree(abs))
}

/// `(δ, η)` of [`dot_f32`] over `n` terms: `δ = 1.01·(⌈n/16⌉ + 6)·2⁻²⁴`
/// (a product, `⌈n/16⌉` lane additions, four tree levels), `η = n·2⁻¹⁴⁹`.
/// `O(1)`.
pub fn dot_f32_error(n: usize) -> (f64, f64) {
    let depth = n.div_ceil(LANES32) as f64 + 6.0;
    (1.01 * depth * 2f64.powi(-24), n as f64 * 2f64.powi(-149))
}

/// How far [`dot`] can land from the exact inner product over `n` terms,
/// relative to `Σ_i |x_i·r_i|`: `1.01·(⌈n/8⌉ + 4)·2⁻⁵³` (its accuracy
/// note). `O(1)`.
pub fn dot_error(n: usize) -> f64 {
    1.01 * (n.div_ceil(LANES) as f64 + 4.0) * 2f64.powi(-53)
}

/// How far below the exact sum `e` [`sq_dist`] can land over `n` terms:
/// `sq_dist ≥ (1 − δ)·e` with `δ = 1.01·(⌈n/8⌉ + 5)·2⁻⁵³` (its accuracy
/// note; the squares of `f32` differences never underflow in `f64`). `O(1)`.
pub fn sq_dist_error(n: usize) -> f64 {
    1.01 * (n.div_ceil(LANES) as f64 + 5.0) * 2f64.powi(-53)
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
    fn the_f32_screen_stays_within_its_bound_on_every_path() {
        // Values spread over many magnitudes (the huge ones overflow to +∞,
        // which the screen reports as such).
        for n in [0, 1, 7, 15, 16, 17, 31, 128, 129, 384] {
            let x = edgy(n, 5);
            let q = edgy(n, 6);
            let s = sq_dist_f32(&x, &q);
            assert_eq!(
                s.to_bits(),
                sq_dist_f32_portable(&x, &q).to_bits(),
                "n = {n}"
            );
            let r: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
            let e = sq_dist(&x, &r);
            if s.is_finite() {
                let (d, eta) = sq_dist_f32_error(n);
                assert!(f64::from(s) <= (1.0 + d) * e + eta, "n = {n}: {s} vs {e}");
            } else {
                assert!(e > f64::from(f32::MAX), "n = {n}: {s} vs {e}");
            }
        }
        // Ordinary data: the screen is close to the exact sum.
        let x: Vec<f32> = (0..384).map(|i| (i as f32 * 0.37).sin()).collect();
        let q: Vec<f32> = (0..384).map(|i| (i as f32 * 0.11).cos()).collect();
        let r: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
        let (s, e) = (f64::from(sq_dist_f32(&x, &q)), sq_dist(&x, &r));
        assert!((s - e).abs() <= sq_dist_f32_error(384).0 * e, "{s} vs {e}");
        // Underflowing squares: the absolute term covers them.
        let tiny = [1e-30f32; 40];
        let (d, eta) = sq_dist_f32_error(40);
        let s = f64::from(sq_dist_f32(&tiny, &[0.0; 40]));
        let e = sq_dist(&tiny, &[0.0; 40]);
        assert!(s <= (1.0 + d) * e + eta, "{s} vs {e}");
    }

    #[test]
    fn the_f32_inner_product_stays_within_its_bound() {
        for n in [0, 1, 7, 15, 16, 17, 31, 128, 129, 384] {
            let x = edgy(n, 7);
            let q = edgy(n, 8);
            let (s, a) = dot_f32(&x, &q);
            let (sp, ap) = dot_f32_portable(&x, &q);
            assert_eq!(
                (s.to_bits(), a.to_bits()),
                (sp.to_bits(), ap.to_bits()),
                "n = {n}"
            );
            if !(s.is_finite() && a.is_finite()) {
                continue;
            }
            let r: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
            let exact = dot(&x, &r);
            let abs: f64 = x
                .iter()
                .zip(&r)
                .map(|(&x, r)| (f64::from(x) * r).abs())
                .sum();
            let (d, eta) = dot_f32_error(n);
            let slack = dot_error(n) * abs;
            assert!(
                (f64::from(s) - exact).abs() <= d * abs + eta + slack,
                "n = {n}"
            );
            assert!(abs <= (1.0 + d) * f64::from(a) + eta + slack, "n = {n}");
        }
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
