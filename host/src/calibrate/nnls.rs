//! Non-negative least squares (Lawson–Hanson active set) over a small dense
//! design, the solver behind the affine and convex fits.

/// Solves `min ‖A x − y‖²` subject to `x ≥ 0`.
///
/// `columns[j]` is column `j` of `A` (each of length `y.len()`).
///
/// # Math
/// Lawson & Hanson (1974), *Solving Least Squares Problems*, ch. 23: keep a
/// passive set `P` of free coordinates; add the coordinate with the largest
/// positive gradient `w = Aᵀ(y − A x)`; solve the unconstrained least squares
/// on `P` (Householder QR) and, while some coordinate of that solution is not
/// positive, step back along the segment to the first one that hits zero and
/// drop it from `P`. At the end the KKT conditions hold: `x ≥ 0`, `w ≤ 0` off
/// `P`, `w = 0` on `P`. Columns are scaled to unit norm first (the constraint
/// set is invariant under positive scaling), which keeps the QR well
/// conditioned when the design mixes kilobyte and gigabyte sizes.
///
/// # Complexity
/// At most `3p` outer iterations for `p` columns (a bound, not a loop that
/// can spin), each a QR of an `m × |P|` matrix: `O(p · m · p²)` in all. The
/// fits call it with `p ≤ m ≤ 64`.
pub fn nnls(columns: &[Vec<f64>], y: &[f64]) -> Vec<f64> {
    let p = columns.len();
    let m = y.len();
    let norms: Vec<f64> = columns
        .iter()
        .map(|c| c.iter().map(|v| v * v).sum::<f64>().sqrt())
        .collect();
    // Scaled columns; an all-zero column stays zero and is never chosen.
    let a: Vec<Vec<f64>> = columns
        .iter()
        .zip(&norms)
        .map(|(c, &n)| {
            if n > 0.0 {
                c.iter().map(|v| v / n).collect()
            } else {
                vec![0.0; m]
            }
        })
        .collect();
    let ynorm = y.iter().map(|v| v * v).sum::<f64>().sqrt();
    let tol = 1e-12 * ynorm.max(1e-300);
    let mut x = vec![0.0; p];
    let mut passive = vec![false; p];
    for _ in 0..3 * p.max(1) {
        let w = gradient(&a, y, &x);
        let pick = (0..p)
            .filter(|&j| !passive[j] && norms[j] > 0.0 && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(j) = pick else { break };
        passive[j] = true;
        // Inner loop: at most p steps, each drops at least one coordinate.
        for _ in 0..=p {
            let z = solve_on(&a, y, &passive);
            if (0..p).all(|k| !passive[k] || z[k] > 0.0) {
                x = z;
                break;
            }
            let alpha = (0..p)
                .filter(|&k| passive[k] && z[k] <= 0.0)
                .map(|k| x[k] / (x[k] - z[k]))
                .fold(1.0_f64, f64::min)
                .max(0.0);
            for k in 0..p {
                if passive[k] {
                    x[k] += alpha * (z[k] - x[k]);
                    if x[k] <= tol {
                        x[k] = 0.0;
                        passive[k] = false;
                    }
                }
            }
            if !passive.iter().any(|&b| b) {
                break;
            }
        }
    }
    x.iter()
        .zip(&norms)
        .map(|(&v, &n)| if n > 0.0 { (v / n).max(0.0) } else { 0.0 })
        .collect()
}

/// `Aᵀ (y − A x)`.
fn gradient(a: &[Vec<f64>], y: &[f64], x: &[f64]) -> Vec<f64> {
    let r: Vec<f64> = (0..y.len())
        .map(|i| y[i] - a.iter().zip(x).map(|(c, &xj)| c[i] * xj).sum::<f64>())
        .collect();
    a.iter()
        .map(|c| c.iter().zip(&r).map(|(u, v)| u * v).sum())
        .collect()
}

/// Unconstrained least squares on the passive columns (others 0), by
/// Householder QR; a numerically dependent column gets 0.
fn solve_on(a: &[Vec<f64>], y: &[f64], passive: &[bool]) -> Vec<f64> {
    let idx: Vec<usize> = (0..a.len()).filter(|&j| passive[j]).collect();
    let coef = lstsq(&idx.iter().map(|&j| a[j].clone()).collect::<Vec<_>>(), y);
    let mut out = vec![0.0; a.len()];
    for (k, &j) in idx.iter().enumerate() {
        out[j] = coef[k];
    }
    out
}

/// `argmin ‖A c − y‖` for the given columns, by Householder QR with back
/// substitution. Columns whose pivot is negligible (rank deficiency, or more
/// columns than rows) get coefficient 0.
///
/// # Complexity
/// `O(m q²)` for `q` columns of length `m`.
pub fn lstsq(columns: &[Vec<f64>], y: &[f64]) -> Vec<f64> {
    let m = y.len();
    let q = columns.len();
    let mut r: Vec<Vec<f64>> = columns.to_vec();
    let mut b = y.to_vec();
    let scale = r
        .iter()
        .flat_map(|c| c.iter())
        .fold(0.0_f64, |s, v| s.max(v.abs()));
    let eps = 1e-12 * scale.max(1e-300);
    let mut pivot_ok = vec![false; q];
    let mut row = 0;
    for j in 0..q {
        if row >= m {
            break;
        }
        let norm = r[j][row..].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= eps {
            continue;
        }
        pivot_ok[j] = true;
        let alpha = if r[j][row] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = r[j][row..].to_vec();
        v[0] -= alpha;
        let vnorm2: f64 = v.iter().map(|t| t * t).sum();
        if vnorm2 > 0.0 {
            for col in r.iter_mut().skip(j) {
                let dot: f64 = v.iter().zip(&col[row..]).map(|(a, b)| a * b).sum();
                let f = 2.0 * dot / vnorm2;
                for (c, vi) in col[row..].iter_mut().zip(&v) {
                    *c -= f * vi;
                }
            }
            let dot: f64 = v.iter().zip(&b[row..]).map(|(a, c)| a * c).sum();
            let f = 2.0 * dot / vnorm2;
            for (c, vi) in b[row..].iter_mut().zip(&v) {
                *c -= f * vi;
            }
        }
        row += 1;
    }
    // Back substitution over the pivot columns (pivot k sits at row k-th).
    let pivots: Vec<usize> = (0..q).filter(|&j| pivot_ok[j]).collect();
    let mut coef = vec![0.0; q];
    for (k, &j) in pivots.iter().enumerate().rev() {
        let mut s = b[k];
        for &jj in &pivots[k + 1..] {
            s -= r[jj][k] * coef[jj];
        }
        coef[j] = s / r[j][k];
    }
    coef
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lstsq_solves_a_line() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y: Vec<f64> = x.iter().map(|v| 2.0 + 3.0 * v).collect();
        let c = lstsq(&[vec![1.0; 4], x.to_vec()], &y);
        assert!(
            (c[0] - 2.0).abs() < 1e-12 && (c[1] - 3.0).abs() < 1e-12,
            "{c:?}"
        );
    }

    #[test]
    fn nnls_clamps_a_negative_slope() {
        // Decreasing data: the best nonnegative line is the flat mean.
        let x = [0.0, 1.0, 2.0, 3.0];
        let y = [4.0, 3.0, 2.0, 1.0];
        let c = nnls(&[vec![1.0; 4], x.to_vec()], &y);
        assert!((c[0] - 2.5).abs() < 1e-9 && c[1] == 0.0, "{c:?}");
    }

    #[test]
    fn nnls_matches_unconstrained_when_interior() {
        let x = [1.0, 2.0, 4.0, 8.0];
        let y = [11.0, 12.0, 14.0, 18.0];
        let c = nnls(&[vec![1.0; 4], x.to_vec()], &y);
        assert!(
            (c[0] - 10.0).abs() < 1e-9 && (c[1] - 1.0).abs() < 1e-9,
            "{c:?}"
        );
    }
}
