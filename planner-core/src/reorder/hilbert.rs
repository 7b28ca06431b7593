//! The `m`-dimensional Hilbert key (Skilling's transpose algorithm).

/// The Hilbert-curve index of a point of an `m`-dimensional grid with `2^bits`
/// cells per axis (`m = point.len()`, `m · bits ≤ 64`).
///
/// A true `m`-dimensional Hilbert curve: consecutive indices are grid cells at
/// Manhattan distance 1, for every `m`. Implements J. Skilling, *Programming
/// the Hilbert curve*, AIP Conf. Proc. 707 (2004): `AxesToTranspose` turns the
/// coordinates into the "transposed" index by inverse-undoing the excess work
/// of each level and Gray-encoding; the index is then read MSB-first across the
/// axes (bit `k` of transposed axis `j` is index bit `k·m + (m − 1 − j)`).
///
/// # Arguments
/// * `point` — the cell, `m` coordinates below `2^bits`.
/// * `bits` — bits per coordinate, `1..=32` (larger values are treated as 32).
///
/// # Returns
/// The index in `0..2^(m·bits)`.
///
/// # Complexity
/// `O(m · bits)` time; `4m` bytes of stack-or-heap scratch (`m ≤ 16` on the stack).
///
/// # Examples
/// ```
/// use planner_core::reorder::hilbert_key;
///
/// // The 2-D order-1 curve visits (0,0), (0,1), (1,1), (1,0).
/// let idx: Vec<u64> = [[0, 0], [0, 1], [1, 1], [1, 0]].iter().map(|p| hilbert_key(p, 1)).collect();
/// assert_eq!(idx, vec![0, 1, 2, 3]);
/// ```
pub fn hilbert_key(point: &[u32], bits: u32) -> u64 {
    let bits = bits.min(32);
    let n = point.len();
    let mut stack = [0u32; 16];
    let mut heap;
    let x: &mut [u32] = if n <= 16 {
        stack[..n].copy_from_slice(point);
        &mut stack[..n]
    } else {
        heap = point.to_vec();
        &mut heap
    };
    if n == 0 || bits == 0 {
        return 0;
    }
    let m = 1u32 << (bits - 1);
    // Inverse undo.
    let mut q = m;
    while q > 1 {
        let p = q - 1;
        for i in 0..n {
            if x[i] & q != 0 {
                x[0] ^= p;
            } else {
                let t = (x[0] ^ x[i]) & p;
                x[0] ^= t;
                x[i] ^= t;
            }
        }
        q >>= 1;
    }
    // Gray encode.
    for i in 1..n {
        x[i] ^= x[i - 1];
    }
    let mut t = 0;
    let mut q = m;
    while q > 1 {
        if x[n - 1] & q != 0 {
            t ^= q - 1;
        }
        q >>= 1;
    }
    for xi in x.iter_mut() {
        *xi ^= t;
    }
    super::zorder::morton_key(x, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cell of the `2^bits`-per-axis `m`-D grid, sorted by Hilbert index,
    /// must give indices `0..2^(m·bits)` and consecutive cells one unit step apart.
    fn check_curve(m: usize, bits: u32) {
        let side = 1u32 << bits;
        let cells = (side as usize).pow(m as u32);
        let mut pts: Vec<(u64, Vec<u32>)> = (0..cells)
            .map(|mut c| {
                let p: Vec<u32> = (0..m)
                    .map(|_| {
                        let v = (c % side as usize) as u32;
                        c /= side as usize;
                        v
                    })
                    .collect();
                (hilbert_key(&p, bits), p)
            })
            .collect();
        pts.sort();
        for (i, (k, _)) in pts.iter().enumerate() {
            assert_eq!(*k, i as u64, "m={m} bits={bits}: not a bijection");
        }
        for w in pts.windows(2) {
            let dist: u32 = w[0]
                .1
                .iter()
                .zip(&w[1].1)
                .map(|(a, b)| a.abs_diff(*b))
                .sum();
            assert_eq!(dist, 1, "m={m} bits={bits}: {:?} -> {:?}", w[0].1, w[1].1);
        }
    }

    #[test]
    fn is_a_true_hilbert_curve_in_1_to_5_dims() {
        check_curve(1, 5);
        check_curve(2, 4);
        check_curve(3, 3);
        check_curve(4, 2);
        check_curve(5, 2);
    }
}
