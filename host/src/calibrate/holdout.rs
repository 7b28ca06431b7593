//! Leave-one-size-out validation: how well a fit predicts sizes it never saw.

use super::{FitKind, Point};

/// Mean absolute percentage error of `kind` on held-out sizes, in percent.
///
/// # Math
/// For each measured size `k` (except the single one of a one-size input),
/// fit on the other sizes and compare with the measured median there:
///
/// ```text
/// MAPE = 100/m · Σ_k |t̂_{−k}(L_k) − y_k| / y_k
/// ```
///
/// (the paper's Fig. 4a protocol: error on request sizes excluded from the
/// fit). Sizes with `y_k = 0` are skipped. Piecewise fits extrapolate as the
/// planner does: flat left of the first breakpoint, last slope right of the
/// last, so leaving out an end size measures extrapolation.
///
/// # Returns
/// `None` for fewer than two sizes (nothing to hold out against) or when
/// every measured median is 0.
///
/// # Complexity
/// `m` fits of `m − 1` points.
pub fn loso_mape(kind: FitKind, points: &[Point]) -> Option<f64> {
    if points.len() < 2 {
        return None;
    }
    let mut sum = 0.0;
    let mut n = 0usize;
    let mut rest = Vec::with_capacity(points.len() - 1);
    for k in 0..points.len() {
        if points[k].ms <= 0.0 {
            continue;
        }
        rest.clear();
        rest.extend(
            points
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != k)
                .map(|(_, p)| *p),
        );
        let s = kind.fit(&rest);
        sum += (s.eval(points[k].bytes) - points[k].ms).abs() / points[k].ms;
        n += 1;
    }
    (n > 0).then(|| 100.0 * sum / n as f64)
}
