//! Small dense kernels shared by PCA and the spectral method: dot products,
//! Gram–Schmidt and the cyclic Jacobi eigensolver. Only `+ − × ÷ sqrt`, with a
//! fixed summation order, so results are bit-identical on every platform.

/// `Σ_i a_i b_i` over `min(len)` entries, in a fixed order: four running
/// lanes over blocks of four (`s_l += a_{4j+l} b_{4j+l}`), combined as
/// `(s_0 + s_1) + (s_2 + s_3)`, then the tail left to right. The order is part
/// of the code, not the compiler's choice, so every platform gets the same
/// bits while the lanes vectorize.
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut s = [0.0f64; 4];
    let (ha, ta) = a.split_at(n - n % 4);
    let (hb, tb) = b.split_at(n - n % 4);
    for (x, y) in ha.chunks_exact(4).zip(hb.chunks_exact(4)) {
        for l in 0..4 {
            s[l] += x[l] * y[l];
        }
    }
    let mut total = (s[0] + s[1]) + (s[2] + s[3]);
    for (x, y) in ta.iter().zip(tb) {
        total += x * y;
    }
    total
}

/// [`dot`] of an `f32` row (widened exactly to `f64`) with an `f64` vector,
/// in the same fixed order.
pub(crate) fn dot_f32(a: &[f32], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut s = [0.0f64; 4];
    let (ha, ta) = a.split_at(n - n % 4);
    let (hb, tb) = b.split_at(n - n % 4);
    for (x, y) in ha.chunks_exact(4).zip(hb.chunks_exact(4)) {
        for l in 0..4 {
            s[l] += f64::from(x[l]) * y[l];
        }
    }
    let mut total = (s[0] + s[1]) + (s[2] + s[3]);
    for (x, y) in ta.iter().zip(tb) {
        total += f64::from(*x) * y;
    }
    total
}

/// `y ← y + alpha · x`.
pub(crate) fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

/// `‖v‖₂`.
pub(crate) fn norm(v: &[f64]) -> f64 {
    dot(v, v).sqrt()
}

/// Orthogonalizes `v` against the orthonormal rows `basis` (modified
/// Gram–Schmidt, applied twice — "twice is enough") and normalizes it.
///
/// Returns `false`, leaving `v` unnormalized, when less than `1e-10` of its
/// norm survives (it lies in the span of `basis`).
pub(crate) fn orthonormalize_against<'a>(
    v: &mut [f64],
    basis: impl Iterator<Item = &'a [f64]> + Clone,
) -> bool {
    let before = norm(v);
    if before == 0.0 || !before.is_finite() {
        return false;
    }
    for _ in 0..2 {
        for q in basis.clone() {
            let c = dot(q, v);
            axpy(-c, q, v);
        }
    }
    let after = norm(v);
    if after <= 1e-10 * before {
        return false;
    }
    let inv = 1.0 / after;
    for x in v.iter_mut() {
        *x *= inv;
    }
    true
}

/// Eigen-decomposition of the symmetric `n × n` matrix `a` (row-major) by the
/// cyclic Jacobi method (Golub & Van Loan §8.5): sweeps of plane rotations
/// annihilating each off-diagonal entry, until the off-diagonal Frobenius norm
/// is below `1e-14` of the total or 64 sweeps.
///
/// On return the diagonal of `a` holds the eigenvalues and row `k` of `vectors`
/// (`n × n`) the unit eigenvector of `a[k][k]`.
///
/// # Complexity
/// `O(n³)` per sweep, typically 6–10 sweeps; no allocation.
pub(crate) fn jacobi_eigen(a: &mut [f64], n: usize, vectors: &mut [f64]) {
    vectors.iter_mut().for_each(|x| *x = 0.0);
    for i in 0..n {
        vectors[i * n + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum();
    if total == 0.0 {
        return;
    }
    for _sweep in 0..64 {
        let mut off = 0.0;
        for p in 0..n {
            for q in p + 1..n {
                off += 2.0 * a[p * n + q] * a[p * n + q];
            }
        }
        if off <= 1e-28 * total {
            return;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let app = a[p * n + p];
                let aqq = a[q * n + q];
                let theta = (aqq - app) / (2.0 * apq);
                let t = if theta.abs() > 1e150 {
                    0.5 / theta
                } else {
                    let t = 1.0 / (theta.abs() + (theta * theta + 1.0).sqrt());
                    if theta < 0.0 { -t } else { t }
                };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // A ← Jᵀ A J on rows/columns p and q.
                for k in 0..n {
                    let akp = a[k * n + p];
                    let akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[p * n + k];
                    let aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for k in 0..n {
                    let vp = vectors[p * n + k];
                    let vq = vectors[q * n + k];
                    vectors[p * n + k] = c * vp - s * vq;
                    vectors[q * n + k] = s * vp + c * vq;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_diagonalizes_a_symmetric_matrix() {
        // Eigenvalues of [[2,1,0],[1,2,1],[0,1,2]] are 2 - √2, 2, 2 + √2.
        let orig = [2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0];
        let mut a = orig;
        let mut v = [0.0; 9];
        jacobi_eigen(&mut a, 3, &mut v);
        let mut eig = [a[0], a[4], a[8]];
        eig.sort_by(f64::total_cmp);
        let s2 = 2f64.sqrt();
        for (e, want) in eig.iter().zip([2.0 - s2, 2.0, 2.0 + s2]) {
            assert!((e - want).abs() < 1e-12, "{e} vs {want}");
        }
        // A v_k = λ_k v_k.
        for k in 0..3 {
            let vk = &v[k * 3..k * 3 + 3];
            for i in 0..3 {
                let av = dot(&orig[i * 3..i * 3 + 3], vk);
                assert!((av - a[k * 4] * vk[i]).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn gram_schmidt_detects_dependence() {
        let q = [1.0, 0.0, 0.0];
        let mut v = [2.0, 0.0, 0.0];
        assert!(!orthonormalize_against(&mut v, [&q[..]].into_iter()));
        let mut w = [1.0, 1.0, 0.0];
        assert!(orthonormalize_against(&mut w, [&q[..]].into_iter()));
        assert!((w[1] - 1.0).abs() < 1e-15 && w[0].abs() < 1e-15);
    }
}
