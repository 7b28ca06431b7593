//! Quantization of PCA coordinates and the Z-order (Morton) key.

/// Bits per coordinate for an `m`-dimensional key: `min(32, ⌊64/m⌋)`, so a
/// key fits a `u64`.
pub(crate) const fn bits_per_dim(m: usize) -> u32 {
    let b = 64 / m as u32;
    if b > 32 { 32 } else { b }
}

/// Quantizes `coords` (`C × m`, row-major) to unsigned `bits`-bit integers on
/// one isotropic grid.
///
/// # Math
/// With `lo_j = min_i x_ij` and the common range `R = max_j (max_i x_ij − lo_j)`,
/// `q_ij = ⌊(x_ij − lo_j) / R · (2^bits − 1)⌋`. One cell size for every axis
/// keeps Euclidean proportions: a low-variance principal axis spans fewer
/// cells instead of being stretched to the range of the first one, so the
/// curve does not split clusters that differ only along minor axes.
/// `R = 0` (all centroids project to one point) gives all-zero cells.
///
/// # Complexity
/// `O(C·m)` time; returns `4·C·m` bytes.
pub(crate) fn quantize(coords: &[f64], m: usize, bits: u32) -> Vec<u32> {
    let mut lo = vec![f64::INFINITY; m];
    let mut hi = vec![f64::NEG_INFINITY; m];
    for row in coords.chunks_exact(m) {
        for j in 0..m {
            lo[j] = lo[j].min(row[j]);
            hi[j] = hi[j].max(row[j]);
        }
    }
    let range = lo.iter().zip(&hi).fold(0.0f64, |r, (l, h)| r.max(h - l));
    let top = ((1u64 << bits) - 1) as f64;
    let mut out = vec![0u32; coords.len()];
    if range > 0.0 && range.is_finite() {
        for (row, q) in coords.chunks_exact(m).zip(out.chunks_exact_mut(m)) {
            for j in 0..m {
                // `as` saturates; the ratio is within [0, 1] up to rounding.
                q[j] = ((row[j] - lo[j]) / range * top) as u32;
            }
        }
    }
    out
}

/// The Z-order (Morton) key of a point with `point.len() = m` coordinates of
/// `bits` bits: bit `k` of coordinate `j` goes to key bit `k·m + (m − 1 − j)`,
/// so the most significant bits of every axis come first and axis 0 (the first
/// principal component) leads each group.
///
/// `bits` above 32 are treated as 32; when `m · bits > 64` only the low 64 bits
/// of the interleaving are kept.
///
/// # Complexity
/// `O(m · bits)`.
///
/// # Examples
/// ```
/// use planner_core::reorder::morton_key;
///
/// // 2-D, 2 bits: (x=1, y=2) = x 01, y 10 → interleaved x1 y1 x0 y0 = 0 1 1 0.
/// assert_eq!(morton_key(&[1, 2], 2), 0b0110);
/// ```
pub fn morton_key(point: &[u32], bits: u32) -> u64 {
    let mut key = 0u64;
    for k in (0..bits.min(32)).rev() {
        for &x in point {
            key = (key << 1) | u64::from((x >> k) & 1);
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morton_keys_of_a_grid_are_a_bijection_in_z_order() {
        // 2-D, 2 bits: the classic Z over a 4×4 grid.
        let mut keys = Vec::new();
        for x in 0..4u32 {
            for y in 0..4u32 {
                keys.push((morton_key(&[x, y], 2), x, y));
            }
        }
        keys.sort();
        let ks: Vec<u64> = keys.iter().map(|k| k.0).collect();
        assert_eq!(ks, (0..16).collect::<Vec<_>>());
        // The first quadrant (x < 2, y < 2) comes first.
        assert!(keys[..4].iter().all(|&(_, x, y)| x < 2 && y < 2));
    }

    #[test]
    fn quantize_uses_one_isotropic_grid() {
        // Axis 0 spans 10, axis 1 spans 1: axis 1 gets a tenth of the cells.
        let coords = [0.0, 0.0, 10.0, 1.0, 5.0, 0.5];
        let q = quantize(&coords, 2, 8);
        assert_eq!(q, vec![0, 0, 255, 25, 127, 12]);
        assert_eq!(bits_per_dim(1), 32);
        assert_eq!(bits_per_dim(3), 21);
        assert_eq!(bits_per_dim(16), 4);
    }
}
