//! Robust statistics the load estimates are made of: quantiles by rank and
//! the Theil–Sen slope with Sen's confidence bound. Both ignore a minority of
//! outliers (a straggling GET, a slice the scheduler bunched), which a mean
//! or a least-squares fit would follow.

/// The `q`-quantile (lower, by rank `⌊q · (n − 1)⌋`) of `v`, 0 for none.
/// Reorders `v`. `O(n)` (a selection, not a sort: the size test's 2 016
/// slopes are selected on the GET completion path).
pub(crate) fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let k = ((v.len() - 1) as f64 * q) as usize;
    *v.select_nth_unstable_by(k, f64::total_cmp).1
}

/// The Theil–Sen slope of the points `(x, y)`, or the lower end of Sen's
/// one-sided confidence interval for it; `None` with fewer than `min_pairs`
/// pairs whose `x` differ by at least `min_dx`.
///
/// The Theil–Sen slope is the median of the `N` pairwise slopes
/// `(y_j − y_i) / (x_j − x_i)`. Sen's interval takes the slope of rank
/// `⌊(N − z·σ) / 2⌋` from the bottom, with `σ² = n(n − 1)(2n + 5)/18` the
/// variance of Kendall's statistic over `n` points; pairs too close in `x`
/// are left out, so `n` is the `n_eff` that makes `N = n_eff(n_eff − 1)/2`.
/// `z = 0` gives the point estimate, `z = 1.96` its 97.5 % lower bound.
/// `O(n²)` for `n` points; `slopes` is scratch space, cleared first (it keeps
/// its capacity, so a warm caller allocates nothing).
pub(crate) fn sen_slope(
    points: &[(f64, f64)],
    min_dx: f64,
    min_pairs: usize,
    z: f64,
    slopes: &mut Vec<f64>,
) -> Option<f64> {
    slopes.clear();
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let dx = b.0 - a.0;
            if dx.abs() >= min_dx {
                slopes.push((b.1 - a.1) / dx);
            }
        }
    }
    if slopes.len() < min_pairs.max(1) {
        return None;
    }
    let pairs = slopes.len() as f64;
    let n = 0.5 + (0.25 + 2.0 * pairs).sqrt();
    let sigma = (n * (n - 1.0) * (2.0 * n + 5.0) / 18.0).sqrt();
    let rank = ((pairs - z * sigma) / 2.0).max(0.0);
    Some(quantile(slopes, rank / (pairs - 1.0).max(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_by_rank() {
        let mut v = [30.0, 30.0, 60.0, 45.0, 600.0];
        assert_eq!(quantile(&mut v, 0.5), 45.0);
        assert_eq!(quantile(&mut v, 0.1), 30.0);
        assert_eq!(quantile(&mut v, 1.0), 600.0);
        assert_eq!(quantile(&mut [], 0.5), 0.0);
    }

    #[test]
    fn the_slope_is_the_median_pairwise_slope() {
        // 10 + 3x, one outlier: the slope stays 3.
        let mut p: Vec<(f64, f64)> = (0..12)
            .map(|i| (i as f64 * 0.25, 10.0 + 0.75 * i as f64))
            .collect();
        p.push((1.0, 400.0));
        let mut scratch = vec![f64::NAN; 5000];
        let s = sen_slope(&p, 1e-9, 32, 0.0, &mut scratch).unwrap();
        assert!((s - 3.0).abs() < 1e-9, "{s}");
        // The scratch is cleared first: what it held earlier does not count.
        assert_eq!(scratch.len(), 12 * 13 / 2 - 1, "pairs of distinct x");
        // The lower bound lies below the point estimate on noisy points.
        let noisy: Vec<(f64, f64)> = (0..40)
            .map(|i| (i as f64, 2.0 * i as f64 + ((i * 37) % 17) as f64 - 8.0))
            .collect();
        let point = sen_slope(&noisy, 1e-9, 32, 0.0, &mut scratch).unwrap();
        let low = sen_slope(&noisy, 1e-9, 32, 1.96, &mut scratch).unwrap();
        assert!(low < point && point > 1.5 && point < 2.5, "{low} {point}");
        // One x only, or too few pairs: no slope.
        let flat: Vec<(f64, f64)> = (0..64).map(|_| (1.0, 10.0)).collect();
        assert_eq!(sen_slope(&flat, 1e-9, 32, 0.0, &mut scratch), None);
        assert_eq!(sen_slope(&p[..4], 1e-9, 32, 0.0, &mut scratch), None);
    }
}
