//! Principal component analysis of the centroids: covariance, subspace
//! iteration with Rayleigh–Ritz, projection.

use super::linalg::{dot, dot_f32, jacobi_eigen, orthonormalize_against};
use super::random::SplitMix64;

/// Centroids sampled for the covariance: all of them up to this count, else
/// this many at evenly spaced rows `⌊i·C/S⌋`.
///
/// The covariance is the `O(C·d²)` term of PCA; 1024 evenly spaced centroids
/// estimate the leading directions of a `C = 8192` index well while keeping
/// the covariance at `1024·d²/2` multiply-adds. On the `C = 8192` benchmark
/// workload, sampling 1024 instead of 2048 centroids halves the covariance
/// time and leaves WaRP's GETs per query unchanged (13.72 vs 13.75).
pub const PCA_SAMPLE: usize = 1024;

/// Extra vectors carried by the subspace iteration beyond the `m` wanted: they
/// speed convergence from `λ_{m+1}/λ_m` to `λ_{m+p+1}/λ_m` per step.
const OVERSAMPLE: usize = 4;

/// Subspace iteration stops when the variance the `m` wanted vectors capture,
/// `Σ_k v_kᵀ Σ² v_k`, grows by less than this fraction in one step, or after
/// [`MAX_ITERATIONS`] steps. Captured variance converges quadratically faster
/// than the vectors, and is what a projection-based layout depends on: when
/// eigenvalues cluster (as with many equally spread groups) the individual
/// eigenvectors are ill-determined anyway. On the `C = 8192` benchmark
/// workload tolerances from 1e-3 to 1e-6 (7 to 18 iterations) give the same
/// layout quality.
const TOLERANCE: f64 = 1e-5;

/// Cap on subspace iteration steps (each costs `d²·b` multiply-adds).
const MAX_ITERATIONS: usize = 300;

/// Seed of the subspace iteration start block (fixed: the result must not
/// depend on a caller's seed).
const START_SEED: u64 = 0x0005_EED0_F9CA;

/// The projections of the `C` centroids on their `m` leading principal axes.
///
/// # Math
/// With mean `μ` and covariance `Σ = (1/S) Σ_{r∈sample} (x_r − μ)(x_r − μ)ᵀ`,
/// the axes `u_1..u_m` are the unit eigenvectors of the `m` largest
/// eigenvalues, found by subspace iteration `V ← orth(Σ² V)` (modified
/// Gram–Schmidt) on a block of `b = min(d, m + 4)` vectors followed by
/// Rayleigh–Ritz (Jacobi on `VᵀΣV`).
/// Each axis' sign is fixed so that its largest-magnitude entry is positive.
/// Row `i` of the result is `((x_i − μ)·u_1, …, (x_i − μ)·u_m)`.
///
/// # Complexity
/// Time `O(S·d² + d³ + I·d²·b + C·d·m)` with `S = min(C, PCA_SAMPLE)` and
/// `I ≤ 300` iterations; memory `8·(2d² + 3·b·d + 2·b² + 2d + C·m)` bytes.
pub(crate) fn project(centroids: &[f32], dim: usize, m: usize) -> Vec<f64> {
    let c = centroids.len() / dim;
    let mean = mean(centroids, dim);
    let axes = principal_axes(centroids, dim, &mean, m);
    // (x − μ)·u = x·u − μ·u.
    let offsets: Vec<f64> = axes.chunks_exact(dim).map(|u| dot(&mean, u)).collect();
    let mut out = vec![0.0; c * m];
    for (row, proj) in centroids.chunks_exact(dim).zip(out.chunks_exact_mut(m)) {
        for ((p, axis), off) in proj.iter_mut().zip(axes.chunks_exact(dim)).zip(&offsets) {
            *p = dot_f32(row, axis) - off;
        }
    }
    out
}

fn mean(centroids: &[f32], dim: usize) -> Vec<f64> {
    let c = centroids.len() / dim;
    let mut mean = vec![0.0; dim];
    for row in centroids.chunks_exact(dim) {
        for (m, &x) in mean.iter_mut().zip(row) {
            *m += f64::from(x);
        }
    }
    let inv = 1.0 / c as f64;
    mean.iter_mut().for_each(|m| *m *= inv);
    mean
}

/// The rows sampled for the covariance (see [`PCA_SAMPLE`]).
fn sample_rows(c: usize) -> impl Iterator<Item = usize> {
    let s = c.min(PCA_SAMPLE);
    (0..s).map(move |i| i * c / s)
}

/// `Σ_{r ∈ sample} (x_r − μ)(x_r − μ)ᵀ`, full symmetric `d × d` (the `1/S`
/// factor does not change eigenvectors and is omitted).
fn covariance(centroids: &[f32], dim: usize, mean: &[f64]) -> Vec<f64> {
    let c = centroids.len() / dim;
    let mut cov = vec![0.0; dim * dim];
    // Four centred rows at a time: each upper-triangle entry gains
    // `(x0i·x0j + x1i·x1j) + (x2i·x2j + x3i·x3j)` per block (fixed order), so
    // the matrix is read and written once per four rows.
    let mut x = vec![0.0; 4 * dim];
    let rows: Vec<usize> = sample_rows(c).collect();
    for block in rows.chunks(4) {
        x.iter_mut().for_each(|v| *v = 0.0);
        for (xr, &r) in x.chunks_exact_mut(dim).zip(block) {
            let row = &centroids[r * dim..(r + 1) * dim];
            for ((xi, &v), mu) in xr.iter_mut().zip(row).zip(mean) {
                *xi = f64::from(v) - mu;
            }
        }
        let (x0, rest) = x.split_at(dim);
        let (x1, rest) = rest.split_at(dim);
        let (x2, x3) = rest.split_at(dim);
        for i in 0..dim {
            let (a0, a1, a2, a3) = (x0[i], x1[i], x2[i], x3[i]);
            let upper = &mut cov[i * dim + i..(i + 1) * dim];
            for ((((cij, b0), b1), b2), b3) in upper
                .iter_mut()
                .zip(&x0[i..])
                .zip(&x1[i..])
                .zip(&x2[i..])
                .zip(&x3[i..])
            {
                *cij += (a0 * b0 + a1 * b1) + (a2 * b2 + a3 * b3);
            }
        }
    }
    for i in 0..dim {
        for j in 0..i {
            cov[i * dim + j] = cov[j * dim + i];
        }
    }
    cov
}

/// The `m` leading unit eigenvectors of the centroid covariance, as `m` rows
/// of length `dim` (see [`project`]). Axes beyond the covariance's rank are
/// arbitrary unit vectors orthogonal to the others (projections on them are 0
/// up to rounding).
pub(crate) fn principal_axes(centroids: &[f32], dim: usize, mu: &[f64], m: usize) -> Vec<f64> {
    let cov = covariance(centroids, dim, mu);
    let b = dim.min(m + OVERSAMPLE);
    let mut rng = SplitMix64::new(START_SEED);
    let mut v = vec![0.0; b * dim];
    fill_orthonormal(&mut v, dim, 0, &mut rng);
    let mut w = vec![0.0; b * dim];
    // Iterate on Σ² (same eigenvectors, squared eigenvalue ratios): one
    // `d³` product buys two steps per iteration.
    let sq = square(&cov, dim);
    let scale = (0..dim).map(|i| sq[i * dim + i]).sum::<f64>();
    let mut captured_prev = 0.0;
    if scale > 0.0 {
        for _ in 0..MAX_ITERATIONS {
            // W = Σ² V, and the variance (of Σ²) the wanted vectors capture.
            let mut captured = 0.0;
            for k in 0..b {
                let vk = &v[k * dim..(k + 1) * dim];
                let wk = &mut w[k * dim..(k + 1) * dim];
                for (i, wi) in wk.iter_mut().enumerate() {
                    *wi = dot(&sq[i * dim..(i + 1) * dim], vk);
                }
                if k < m {
                    captured += dot(vk, wk);
                }
            }
            core::mem::swap(&mut v, &mut w);
            fill_orthonormal(&mut v, dim, 0, &mut rng);
            if captured - captured_prev <= TOLERANCE * captured {
                break;
            }
            captured_prev = captured;
        }
    }
    rayleigh_ritz(&cov, dim, &mut v, b);
    v.truncate(m * dim);
    for axis in v.chunks_exact_mut(dim) {
        let lead = axis.iter().fold(
            0.0f64,
            |best, &x| if x.abs() > best.abs() { x } else { best },
        );
        if lead < 0.0 {
            axis.iter_mut().for_each(|x| *x = -*x);
        }
    }
    v
}

/// `Σ²` of the symmetric `d × d` matrix `a` (row `i` accumulates
/// `a_ik · row_k` for `k = 0..d` in order).
///
/// # Complexity
/// `d³` multiply-adds; `8d²` bytes.
fn square(a: &[f64], dim: usize) -> Vec<f64> {
    let mut out = vec![0.0; dim * dim];
    for i in 0..dim {
        let row = &mut out[i * dim..(i + 1) * dim];
        for k in 0..dim {
            let aik = a[i * dim + k];
            for (o, x) in row.iter_mut().zip(&a[k * dim..(k + 1) * dim]) {
                *o += aik * x;
            }
        }
    }
    out
}

/// Orthonormalizes the `b` rows of `v` in order (modified Gram–Schmidt),
/// replacing rows that collapse (rank deficiency) by fresh random rows.
fn fill_orthonormal(v: &mut [f64], dim: usize, from: usize, rng: &mut SplitMix64) {
    let b = v.len() / dim;
    for k in from..b {
        let (done, rest) = v.split_at_mut(k * dim);
        let row = &mut rest[..dim];
        let mut ok = orthonormalize_against(row, done.chunks_exact(dim));
        while !ok {
            row.iter_mut().for_each(|x| *x = rng.symmetric_unit());
            ok = orthonormalize_against(row, done.chunks_exact(dim));
        }
    }
}

/// Rotates the orthonormal block `v` (`b` rows) to the eigenvectors of
/// `VᵀΣV`, sorted by decreasing Ritz value (ties by original row).
fn rayleigh_ritz(cov: &[f64], dim: usize, v: &mut [f64], b: usize) {
    let mut h = vec![0.0; b * b];
    let mut sv = vec![0.0; dim];
    for k in 0..b {
        let vk = &v[k * dim..(k + 1) * dim];
        for (i, s) in sv.iter_mut().enumerate() {
            *s = dot(&cov[i * dim..(i + 1) * dim], vk);
        }
        for l in 0..b {
            h[l * b + k] = dot(&v[l * dim..(l + 1) * dim], &sv);
        }
    }
    // Symmetrize against rounding.
    for k in 0..b {
        for l in 0..k {
            let s = 0.5 * (h[k * b + l] + h[l * b + k]);
            h[k * b + l] = s;
            h[l * b + k] = s;
        }
    }
    let mut y = vec![0.0; b * b];
    jacobi_eigen(&mut h, b, &mut y);
    // Eigenvalues descending (complemented keys), ties by index.
    let idx = super::order::ids_by_key(
        (0..b)
            .map(|p| (!super::order::total_key(h[p * b + p]), p as u32))
            .collect(),
    );
    let mut out = vec![0.0; b * dim];
    for (dst, k) in out
        .chunks_exact_mut(dim)
        .zip(idx.iter().map(|&k| k as usize))
    {
        for (l, &coef) in y[k * b..(k + 1) * b].iter().enumerate() {
            for (o, x) in dst.iter_mut().zip(&v[l * dim..(l + 1) * dim]) {
                *o += coef * x;
            }
        }
    }
    v.copy_from_slice(&out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_dominant_axis_of_a_line() {
        // Points on the line t·(3, 4)/5 (+ tiny orthogonal noise) in 2-D.
        let mut pts = Vec::new();
        for i in 0..50 {
            let t = i as f32 - 25.0;
            let e = if i % 2 == 0 { 0.01 } else { -0.01 };
            pts.extend_from_slice(&[0.6 * t - 0.8 * e, 0.8 * t + 0.6 * e]);
        }
        let axes = principal_axes(&pts, 2, &mean(&pts, 2), 2);
        // The ±0.01 noise tilts the axis by about 2e-5.
        assert!(
            (axes[0] - 0.6).abs() < 1e-4 && (axes[1] - 0.8).abs() < 1e-4,
            "{axes:?}"
        );
        assert!(dot(&axes[0..2], &axes[2..4]).abs() < 1e-12);
        let proj = project(&pts, 2, 1);
        // Projections increase along the line.
        assert!(proj.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn rank_deficient_input_still_gives_orthonormal_axes() {
        // Three identical centroids in 5-D: covariance 0.
        let pts = [1.0f32; 15];
        let axes = principal_axes(&pts, 5, &mean(&pts, 5), 3);
        for i in 0..3 {
            for j in 0..3 {
                let d = dot(&axes[i * 5..i * 5 + 5], &axes[j * 5..j * 5 + 5]);
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((d - want).abs() < 1e-12);
            }
        }
    }
}
