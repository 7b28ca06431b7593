//! The build side's distance kernels: a squared-L2 loop the compiler
//! vectorizes, and blocked nearest-neighbour searches on top of `sgemm`
//! under a [`Proximity`] (squared L2, `‖x − c‖² = ‖x‖² − 2·x·c + ‖c‖²`, or
//! the negated inner product `−x·c`), all in `f32` for speed (k-means,
//! assignment, PQ training, ground truth, layout samples). They are exact
//! enough only on bounded values, so a build refuses anything beyond
//! [`max_build_magnitude`] ([`check_build_range`]). The query path scores
//! in `f64` instead ([`super::score`]), for every finite query.

use rayon::prelude::*;

use crate::error::{Error, Result};

/// The largest `|value|` a build accepts in a base or query vector of
/// dimension `dim`: `min(10¹⁵, √(f32::MAX / (16·dim)))`.
///
/// Why: every `f32` squared distance of training then stays finite. The
/// largest is PQ training's, on residuals `x − c` (at most `2M` for a bound
/// `M`) against codewords (means of residuals, at most `2M`): the `sgemm`
/// form sums `‖r‖² + ‖c‖² + 2|r·c| ≤ 4·dsub·(2M)² ≤ 16·dim·M²`, below
/// `f32::MAX` (3.4·10³⁸) for `M = 10¹⁵` up to `dim = 2·10⁷`.
pub fn max_build_magnitude(dim: usize) -> f32 {
    let fit = (f64::from(f32::MAX) / (16.0 * dim.max(1) as f64)).sqrt();
    fit.min(1e15) as f32
}

/// Checks that every value of `data` (rows of `dim`) is within
/// [`max_build_magnitude`].
///
/// # Errors
/// [`Error::Input`] naming the first value beyond it: `"{what} vector ROW
/// component COL is V, beyond ±M ..."`. `O(n·dim)`.
pub fn check_build_range(data: &[f32], dim: usize, what: &str) -> Result<()> {
    let max = max_build_magnitude(dim);
    match data.iter().position(|x| !x.is_finite() || x.abs() > max) {
        None => Ok(()),
        Some(i) => Err(Error::input(format!(
            "{what} vector {} component {} is {:e}, beyond ±{max:e}: a build trains in f32 \
             (k-means, PQ, ground truth) and accepts |value| <= {max:e} at dimension {dim}",
            i / dim.max(1),
            i % dim.max(1),
            data[i]
        ))),
    }
}

/// Squared Euclidean distance. The 16 independent accumulators let the
/// compiler keep the loop in SIMD registers.
#[inline]
pub fn l2_sq(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    let mut acc = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            let d = x[i] - y[i];
            acc[i] += d * d;
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        let d = x - y;
        tail += d * d;
    }
    acc.iter().sum::<f32>() + tail
}

/// Squared norms of the rows of `data`.
pub fn norms(data: &[f32], dim: usize) -> Vec<f32> {
    data.par_chunks(dim.max(1))
        .map(|r| r.iter().map(|x| x * x).sum())
        .collect()
}

/// Rows of the point block handled per task.
const ROWS: usize = 256;
/// Centroid (base) rows per `sgemm` call.
const COLS: usize = 2048;

/// `out[i][j] = a_i · b_j` for a block of `m` rows of `a` and `n` rows of `b`.
fn dots(a: &[f32], b: &[f32], dim: usize, out: &mut [f32]) {
    let (m, n) = (a.len() / dim, b.len() / dim);
    debug_assert!(out.len() >= m * n);
    // SAFETY: `a` is m×dim row-major, `b` is n×dim row-major read as its
    // transpose (dim×n, row stride 1, column stride dim), `out` holds at least
    // m×n floats; all strides stay within these slices.
    unsafe {
        matrixmultiply::sgemm(
            m,
            dim,
            n,
            1.0,
            a.as_ptr(),
            dim as isize,
            1,
            b.as_ptr(),
            1,
            dim as isize,
            0.0,
            out.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// How the build side compares a point with a centroid or base vector:
/// smaller scores are nearer under both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proximity {
    /// Squared Euclidean distance `‖x − c‖² = ‖x‖² − 2·x·c + ‖c‖²`
    /// (clamped at 0).
    L2,
    /// Negated inner product `−x·c` (the nearest row has the largest inner
    /// product; cosine on unit vectors, and `dot`).
    InnerProduct,
}

impl Proximity {
    /// The score of a row pair from its inner product `dot` and the squared
    /// norms `xn`, `cn` of the two rows.
    #[inline]
    fn score(self, xn: f32, cn: f32, dot: f32) -> f32 {
        match self {
            Self::L2 => {
                // A select, not `f32::max` (which orders NaN): it vectorizes.
                let d = xn + cn - 2.0 * dot;
                if d < 0.0 { 0.0 } else { d }
            }
            Self::InnerProduct => -dot,
        }
    }
}

/// For every row of `points`, the index of the nearest row of `centroids`
/// under squared L2 and its squared distance (ties to the lower index):
/// [`nearest_by`] with [`Proximity::L2`].
pub fn nearest(points: &[f32], centroids: &[f32], dim: usize) -> Vec<(u32, f32)> {
    nearest_by(points, centroids, dim, Proximity::L2)
}

/// For every row of `points`, the index of the nearest row of `centroids`
/// under `how` and its score (ties to the lower index).
///
/// # Complexity
/// `O(n·C·d)` flops in `sgemm` blocks, parallel over point blocks;
/// `O(256·2048)` floats of scratch per thread.
pub fn nearest_by(
    points: &[f32],
    centroids: &[f32],
    dim: usize,
    how: Proximity,
) -> Vec<(u32, f32)> {
    let cn = norms(centroids, dim);
    let mut out = vec![(0u32, f32::INFINITY); points.len() / dim];
    out.par_chunks_mut(ROWS)
        .zip(points.par_chunks(ROWS * dim))
        .for_each(|(best, block)| {
            let m = block.len() / dim;
            let pn: Vec<f32> = block
                .chunks_exact(dim)
                .map(|r| r.iter().map(|x| x * x).sum())
                .collect();
            let mut buf = vec![0f32; m * COLS.min(cn.len())];
            for (cb, cblock) in centroids.chunks(COLS * dim).enumerate() {
                let n = cblock.len() / dim;
                dots(block, cblock, dim, &mut buf);
                let cn = &cn[cb * COLS..cb * COLS + n];
                for (i, b) in best.iter_mut().enumerate().take(m) {
                    let row = &buf[i * n..(i + 1) * n];
                    let xn = pn[i];
                    let (j, d) = match how {
                        Proximity::L2 => argmin(row, cn, |c, dot| Proximity::L2.score(xn, c, dot)),
                        Proximity::InnerProduct => argmin(row, cn, |_, dot| -dot),
                    };
                    if d < b.1 {
                        *b = ((cb * COLS + j) as u32, d);
                    }
                }
            }
        });
    out
}

/// Lanes of [`argmin`]'s minimum.
const LANES: usize = 16;

/// The first index `j` of the smallest `score(cn[j], dots[j])` and that
/// score (`(0, +inf)` for an empty row): what a sequential scan keeping
/// strict improvements finds, in two passes the compiler keeps branch-free
/// (with `d/m = 8` dimensions, as PQ training has, this scan, not the
/// `sgemm`, is most of the work): the minimum over [`LANES`] independent
/// lanes, then the first index whose score equals it. Scores are never NaN
/// (bounded build values).
#[inline]
fn argmin(dots: &[f32], cn: &[f32], score: impl Fn(f32, f32) -> f32) -> (usize, f32) {
    let mut lanes = [f32::INFINITY; LANES];
    let (dc, cc) = (dots.chunks_exact(LANES), cn.chunks_exact(LANES));
    let (dr, cr) = (dc.remainder(), cc.remainder());
    for (d, c) in dc.zip(cc) {
        for l in 0..LANES {
            let s = score(c[l], d[l]);
            lanes[l] = if s < lanes[l] { s } else { lanes[l] };
        }
    }
    let mut min = lanes
        .iter()
        .fold(f32::INFINITY, |a, &b| if b < a { b } else { a });
    for (&d, &c) in dr.iter().zip(cr) {
        let s = score(c, d);
        min = if s < min { s } else { min };
    }
    match dots.iter().zip(cn).position(|(&d, &c)| score(c, d) == min) {
        Some(j) => (j, min),
        None => (0, f32::INFINITY),
    }
}

/// For every row of `queries`, the `k` nearest rows of `base` under squared
/// L2, ascending by `(distance, index)`: [`knn_by`] with [`Proximity::L2`].
pub fn knn(queries: &[f32], base: &[f32], dim: usize, k: usize) -> Vec<Vec<(f32, u32)>> {
    knn_by(queries, base, dim, k, Proximity::L2)
}

/// For every row of `queries`, the `k` nearest rows of `base` under `how`,
/// ascending by `(score, index)`: exact ground truth (in `f32`).
///
/// # Complexity
/// `O(nq·nb·d)` flops in `sgemm` blocks plus `O(nq·nb·log k)` heap work,
/// parallel over query blocks.
pub fn knn_by(
    queries: &[f32],
    base: &[f32],
    dim: usize,
    k: usize,
    how: Proximity,
) -> Vec<Vec<(f32, u32)>> {
    let bn = norms(base, dim);
    queries
        .par_chunks(64 * dim)
        .flat_map_iter(|block| {
            let m = block.len() / dim;
            let qn: Vec<f32> = block
                .chunks_exact(dim)
                .map(|r| r.iter().map(|x| x * x).sum())
                .collect();
            let mut heaps: Vec<std::collections::BinaryHeap<(OrdF32, u32)>> = (0..m)
                .map(|_| std::collections::BinaryHeap::with_capacity(k + 1))
                .collect();
            let mut buf = vec![0f32; m * COLS.min(bn.len())];
            for (bb, bblock) in base.chunks(COLS * dim).enumerate() {
                let n = bblock.len() / dim;
                dots(block, bblock, dim, &mut buf);
                for (i, heap) in heaps.iter_mut().enumerate() {
                    for (j, &dot) in buf[i * n..(i + 1) * n].iter().enumerate() {
                        let d = how.score(qn[i], bn[bb * COLS + j], dot);
                        let id = (bb * COLS + j) as u32;
                        if heap.len() < k {
                            heap.push((OrdF32(d), id));
                        } else if let Some(top) = heap.peek()
                            && (OrdF32(d), id) < *top
                        {
                            heap.pop();
                            heap.push((OrdF32(d), id));
                        }
                    }
                }
            }
            heaps.into_iter().map(|h| {
                h.into_sorted_vec()
                    .into_iter()
                    .map(|(d, i)| (d.0, i))
                    .collect::<Vec<_>>()
            })
        })
        .collect()
}

/// An `f32` ordered by [`f32::total_cmp`] (distances are never NaN here).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrdF32(pub f32);

impl Eq for OrdF32 {}

impl PartialOrd for OrdF32 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdF32 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_refuse_values_beyond_the_bound() {
        assert_eq!(max_build_magnitude(128), 1e15);
        assert!(max_build_magnitude(1 << 26) < 1e15);
        let mut v = vec![1.0f32; 12];
        assert!(check_build_range(&v, 4, "base").is_ok());
        v[9] = -1e20;
        let e = check_build_range(&v, 4, "base").unwrap_err().to_string();
        assert!(
            e.contains("base vector 2 component 1 is -1e20, beyond ±1e15") && !e.contains('\n'),
            "{e}"
        );
        v[9] = f32::NAN;
        assert!(check_build_range(&v, 4, "query").is_err());
    }

    #[test]
    fn gemm_paths_match_the_direct_kernel() {
        let dim = 20;
        let pts: Vec<f32> = (0..300 * dim)
            .map(|i| ((i * 7919) % 101) as f32 / 10.0)
            .collect();
        let cs: Vec<f32> = (0..37 * dim)
            .map(|i| ((i * 104729) % 97) as f32 / 10.0)
            .collect();
        let near = nearest(&pts, &cs, dim);
        for (p, &(c, d)) in pts.chunks_exact(dim).zip(&near) {
            let direct: Vec<f32> = cs.chunks_exact(dim).map(|c| l2_sq(p, c)).collect();
            let min = direct.iter().cloned().fold(f32::INFINITY, f32::min);
            assert!((direct[c as usize] - min).abs() <= 1e-2 * (1.0 + min));
            assert!((d - min).abs() <= 1e-2 * (1.0 + min));
        }
        let nn = knn(&pts[..5 * dim], &cs, dim, 3);
        assert_eq!(nn.len(), 5);
        assert!(
            nn.iter()
                .all(|r| r.len() == 3 && r[0].0 <= r[1].0 && r[1].0 <= r[2].0)
        );
        assert_eq!(nn[0][0].1, near[0].0);
    }

    #[test]
    fn lane_argmin_is_the_sequential_scan() {
        // Ties (every value repeats), lengths around the lane count, and a
        // minimum in the tail.
        for n in [0usize, 1, 5, 16, 17, 33, 256, 300] {
            let dots: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32).collect();
            let cn: Vec<f32> = (0..n).map(|i| ((i * 13) % 7) as f32).collect();
            let score = |c: f32, d: f32| c - 2.0 * d;
            let mut seq = (0usize, f32::INFINITY);
            for j in 0..n {
                let s = score(cn[j], dots[j]);
                if s < seq.1 {
                    seq = (j, s);
                }
            }
            assert_eq!(argmin(&dots, &cn, score), seq, "n = {n}");
        }
    }
}
