//! k-means (Lloyd iterations from a random pick of points), trained on a
//! random sample, parallel with rayon and deterministic for a seed; plain
//! (squared L2) or spherical (centroids on the unit sphere, assignment by
//! inner product).
//!
//! The choices follow faiss's `Clustering` as `IndexIVF` uses it, each
//! measured on the project's real-embedding set (BENCHMARKS.md, "Index
//! quality"): a sample of at most 256 points per centroid (64 lost 0.01 of
//! recall@10 at nprobe 4), seeds drawn uniformly from the sample (k-means++
//! on 2 048 or 8 192 candidates was no better there and costs a pass per
//! centroid), 10 iterations (20 gained at most 0.005 for twice the time),
//! and a spherical variant (faiss's `spherical`) for inner-product metrics
//! and unit-norm data, which on sentence embeddings gained 0.005–0.006 of
//! recall at every nprobe while scanning slightly fewer vectors.

use std::borrow::Cow;

use rand::SeedableRng;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::distance::{Proximity, nearest_by};
use crate::error::{Error, Result};
use crate::progress::Progress;

/// Default training sample per centroid (faiss's `max_points_per_centroid`).
pub const DEFAULT_MAX_POINTS_PER_CENTROID: usize = 256;

/// Default bound on the whole training sample, rows (2¹⁸). With
/// [`DEFAULT_MAX_POINTS_PER_CENTROID`] it binds from `nlist` 1024 on: at
/// 1M × 128, nlist 4096, the full 256 per centroid (the whole base) made
/// training 4× slower (314 s against 77 s) for the step where extra points
/// pay least, while at nlist ≤ 1024 the per-centroid sample is kept whole.
pub const DEFAULT_MAX_SAMPLE: usize = 1 << 18;

/// Default Lloyd iterations (faiss's `IndexIVF` coarse quantizer).
pub const DEFAULT_NITER: usize = 10;

/// k-means parameters. Defaults follow faiss's `ClusteringParameters` as
/// `IndexIVF` sets them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KMeansParams {
    /// Number of centroids `k` (faiss: `nlist` for the coarse quantizer).
    pub k: usize,
    /// Lloyd iterations. Default [`DEFAULT_NITER`].
    pub niter: usize,
    /// The training sample is at most `k · max_points_per_centroid` rows,
    /// drawn uniformly without replacement. Default
    /// [`DEFAULT_MAX_POINTS_PER_CENTROID`].
    pub max_points_per_centroid: usize,
    /// And at most this many rows in all (never fewer than `k`). Default
    /// [`DEFAULT_MAX_SAMPLE`].
    pub max_sample: usize,
    /// Spherical k-means (Dhillon & Modha 2001; faiss's `spherical`): every
    /// centroid is scaled to unit norm after each update, and points go to
    /// the centroid of largest inner product. Default `false`.
    pub spherical: bool,
    /// Seed of sampling and seeding.
    pub seed: u64,
}

impl KMeansParams {
    /// `k` centroids with the defaults.
    pub fn new(k: usize, seed: u64) -> Self {
        Self {
            k,
            niter: DEFAULT_NITER,
            max_points_per_centroid: DEFAULT_MAX_POINTS_PER_CENTROID,
            max_sample: DEFAULT_MAX_SAMPLE,
            spherical: false,
            seed,
        }
    }

    /// The training sample size for `n` rows:
    /// `min(n, max(k, min(k · max_points_per_centroid, max_sample)))`.
    pub fn sample_size(&self, n: usize) -> usize {
        let per_centroid = self.k.saturating_mul(self.max_points_per_centroid.max(1));
        n.min(per_centroid.min(self.max_sample).max(self.k))
    }

    /// How points are assigned while training: by inner product when
    /// spherical, else by squared L2.
    pub fn proximity(&self) -> Proximity {
        if self.spherical {
            Proximity::InnerProduct
        } else {
            Proximity::L2
        }
    }
}

/// Trains `params.k` centroids on the rows of `data` (`n × dim`, row-major).
///
/// The sample `S` is `m = min(n, k · max_points_per_centroid)` rows drawn
/// uniformly; the seeds are `k` distinct rows of `S`; each of the `niter`
/// iterations assigns every row of `S` to its nearest centroid (squared L2,
/// or largest inner product when spherical) and moves each centroid to the
/// mean of its rows (summed in `f64`, in row order), scaled to unit norm when
/// spherical. An emptied cluster takes half of the largest one
/// (`split_empty`).
///
/// # Returns
/// The centroids, `k × dim` row-major.
///
/// # Complexity
/// Each iteration `O(m · k · d)` flops (`sgemm` blocks) plus `O(m · d)` for
/// the means; memory `O(m · d)` for a drawn sample (none when `m = n`) plus
/// `O(k · d + m)`.
///
/// # Errors
/// [`Error::Input`] when `k` is zero or exceeds the number of rows, or `dim`
/// is zero.
pub fn train(data: &[f32], dim: usize, params: &KMeansParams, label: &str) -> Result<Vec<f32>> {
    let k = params.k;
    if dim == 0 || !data.len().is_multiple_of(dim) {
        return Err(Error::input(format!(
            "k-means: {} values are not rows of dimension {dim}",
            data.len()
        )));
    }
    let n = data.len() / dim;
    if k == 0 || k > n {
        return Err(Error::input(format!(
            "k-means: cannot train {k} centroids on {n} vectors (need 1 <= k <= n)"
        )));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
    let m = params.sample_size(n);
    let points: Cow<'_, [f32]> = if m < n {
        let mut rows = sample(&mut rng, n, m).into_vec();
        rows.sort_unstable();
        Cow::Owned(
            rows.iter()
                .flat_map(|&r| &data[r * dim..(r + 1) * dim])
                .copied()
                .collect(),
        )
    } else {
        Cow::Borrowed(data)
    };
    let progress = Progress::new(params.niter as u64, label);
    let mut centroids: Vec<f32> = sample(&mut rng, m, k)
        .into_iter()
        .flat_map(|r| &points[r * dim..(r + 1) * dim])
        .copied()
        .collect();
    if params.spherical {
        normalize_rows(&mut centroids, dim);
    }
    let how = params.proximity();
    for _ in 0..params.niter {
        let assign: Vec<u32> = nearest_by(&points, &centroids, dim, how)
            .into_iter()
            .map(|(c, _)| c)
            .collect();
        let mut counts = update_means(&points, dim, &assign, &mut centroids);
        split_empty(&mut centroids, &mut counts, dim);
        if params.spherical {
            normalize_rows(&mut centroids, dim);
        }
        progress.inc(1);
    }
    progress.finish();
    Ok(centroids)
}

/// Moves every centroid with rows to the mean of its rows (`assign[i]` is
/// row `i`'s cluster) and returns the row count of each cluster; a cluster
/// without rows keeps its centroid.
///
/// Rows are grouped by cluster (a counting sort), then each cluster's sum
/// is taken in `f64` in row order, clusters in parallel: the same bits for
/// every thread count.
///
/// # Complexity
/// `O(m · d)` time, `O(m + k)` extra memory.
fn update_means(points: &[f32], dim: usize, assign: &[u32], centroids: &mut [f32]) -> Vec<usize> {
    let k = centroids.len() / dim;
    let mut counts = vec![0usize; k];
    for &c in assign {
        counts[c as usize] += 1;
    }
    let mut start = Vec::with_capacity(k + 1);
    start.push(0usize);
    for &c in &counts {
        start.push(start.last().copied().unwrap_or(0) + c);
    }
    let mut fill = start.clone();
    let mut members = vec![0u32; assign.len()];
    for (i, &c) in assign.iter().enumerate() {
        members[fill[c as usize]] = i as u32;
        fill[c as usize] += 1;
    }
    centroids
        .par_chunks_mut(dim)
        .enumerate()
        .for_each(|(c, centroid)| {
            let rows = &members[start[c]..start[c + 1]];
            if rows.is_empty() {
                return;
            }
            let mut sum = vec![0f64; dim];
            for &r in rows {
                let r = r as usize;
                for (s, &x) in sum.iter_mut().zip(&points[r * dim..(r + 1) * dim]) {
                    *s += f64::from(x);
                }
            }
            let inv = 1.0 / rows.len() as f64;
            for (c, s) in centroid.iter_mut().zip(&sum) {
                *c = (s * inv) as f32;
            }
        });
    counts
}

/// Scales every row of `rows` to unit L2 norm (the norm taken in `f64`); a
/// zero row stays zero. `O(len)`.
pub fn normalize_rows(rows: &mut [f32], dim: usize) {
    rows.par_chunks_mut(dim.max(1)).for_each(|r| {
        let norm = r
            .iter()
            .map(|&x| f64::from(x) * f64::from(x))
            .sum::<f64>()
            .sqrt();
        if norm > 0.0 {
            for x in r.iter_mut() {
                *x = (f64::from(*x) / norm) as f32;
            }
        }
    });
}

/// Gives every empty cluster half of the largest one (faiss's split: the
/// two copies are pushed apart by a relative `1/1024` in alternating
/// dimensions). `O(k² + k·d)` in the worst case (every cluster empty).
fn split_empty(centroids: &mut [f32], counts: &mut [usize], dim: usize) {
    const EPS: f32 = 1.0 / 1024.0;
    for empty in 0..counts.len() {
        if counts[empty] > 0 {
            continue;
        }
        let big = (0..counts.len())
            .max_by_key(|&c| (counts[c], std::cmp::Reverse(c)))
            .expect("k >= 1");
        for j in 0..dim {
            let v = centroids[big * dim + j];
            let (a, b) = if j % 2 == 0 {
                (v * (1.0 + EPS), v * (1.0 - EPS))
            } else {
                (v * (1.0 - EPS), v * (1.0 + EPS))
            };
            centroids[empty * dim + j] = a;
            centroids[big * dim + j] = b;
        }
        let half = counts[big] / 2;
        counts[empty] = half;
        counts[big] -= half;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight tight blobs on the axes of 8-d space (centres 10 apart from
    /// the origin), 50 distinct points each, jittered by less than 0.1 in
    /// every coordinate.
    fn blobs() -> Vec<f32> {
        let dim = 8;
        let mut data = Vec::new();
        for i in 0..400u32 {
            for j in 0..dim as u32 {
                let h = (i * 8 + j).wrapping_mul(2_654_435_761) >> 8;
                let jitter = (h % 1000) as f32 / 10_000.0;
                data.push(if j == i % 8 { 10.0 } else { 0.0 } + jitter);
            }
        }
        data
    }

    /// The mean squared distance of every row to its nearest centroid.
    fn inertia(data: &[f32], c: &[f32], dim: usize) -> f64 {
        let near = nearest_by(data, c, dim, Proximity::L2);
        near.iter().map(|&(_, d)| f64::from(d)).sum::<f64>() / near.len() as f64
    }

    #[test]
    fn is_seeded_and_lowers_the_inertia_of_its_seeds() {
        let dim = 8;
        let data = blobs();
        let p = KMeansParams::new(64, 3);
        let a = train(&data, dim, &p, "").unwrap();
        assert_eq!(a, train(&data, dim, &p, "").unwrap());
        assert_ne!(a, train(&data, dim, &KMeansParams::new(64, 4), "").unwrap());
        let seeds = train(&data, dim, &KMeansParams { niter: 0, ..p }, "").unwrap();
        // 64 centroids on 8 blobs: every blob gets some, so every point is
        // within its blob's spread (< 8 · 0.1²) of a centroid; a blob
        // without one would add 200/8 to the mean.
        assert!(
            inertia(&data, &a, dim) < 0.08,
            "{}",
            inertia(&data, &a, dim)
        );
        assert!(inertia(&data, &a, dim) <= inertia(&data, &seeds, dim));
        let e = train(&data, dim, &KMeansParams::new(401, 3), "")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot train 401 centroids on 400"), "{e}");
    }

    #[test]
    fn samples_at_most_max_points_per_centroid() {
        let p = KMeansParams::new(4, 1);
        assert_eq!(p.sample_size(100), 100);
        assert_eq!(p.sample_size(10_000), 1024);
        let q = KMeansParams {
            max_points_per_centroid: 2,
            ..p
        };
        // A sample of 8 rows out of 400 still trains 4 centroids.
        let c = train(&blobs(), 8, &q, "").unwrap();
        assert_eq!(c.len(), 4 * 8);
        // The whole sample is bounded too, but never below k.
        let big = KMeansParams::new(4096, 1);
        assert_eq!(big.sample_size(1_000_000), DEFAULT_MAX_SAMPLE);
        assert_eq!(KMeansParams::new(1024, 1).sample_size(1_000_000), 1 << 18);
        assert_eq!(KMeansParams::new(256, 1).sample_size(1_000_000), 65_536);
        let tiny = KMeansParams { max_sample: 3, ..p };
        assert_eq!(tiny.sample_size(100), 4);
    }

    #[test]
    fn spherical_centroids_have_unit_norm() {
        let dim = 8;
        let mut data = blobs();
        normalize_rows(&mut data, dim);
        let p = KMeansParams {
            spherical: true,
            ..KMeansParams::new(8, 5)
        };
        let c = train(&data, dim, &p, "").unwrap();
        for row in c.chunks_exact(dim) {
            let norm: f32 = row.iter().map(|x| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-5, "{norm}");
        }
        let mut zero = vec![0f32; 4];
        normalize_rows(&mut zero, 2);
        assert_eq!(zero, vec![0.0; 4]);
    }

    #[test]
    fn means_do_not_depend_on_the_thread_count() {
        let dim = 8;
        let data: Vec<f32> = (0..3000 * dim)
            .map(|i| ((i * 7919) % 1009) as f32 * 0.37)
            .collect();
        let p = KMeansParams::new(32, 9);
        let many = train(&data, dim, &p, "").unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| train(&data, dim, &p, "").unwrap());
        assert_eq!(many, one);
    }

    #[test]
    fn an_empty_cluster_takes_half_of_the_largest() {
        let mut c = vec![1.0f32, 2.0, 5.0, 5.0];
        let mut counts = vec![0usize, 10];
        split_empty(&mut c, &mut counts, 2);
        assert_eq!(counts, vec![5, 5]);
        assert!(
            c[0] > 5.0 && c[2] < 5.0 && c[1] < 5.0 && c[3] > 5.0,
            "{c:?}"
        );
    }
}
