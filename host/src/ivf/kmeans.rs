//! k-means (Lloyd iterations after k-means++ seeding), trained on a sample,
//! parallel with rayon.

use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::distance::{l2_sq, nearest};
use crate::error::{Error, Result};
use crate::progress::Progress;

/// k-means parameters. Defaults follow faiss's `ClusteringParameters` where
/// they have an equivalent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KMeansParams {
    /// Number of centroids `k` (faiss: `nlist` for the coarse quantizer).
    pub k: usize,
    /// Lloyd iterations. Default 10.
    pub niter: usize,
    /// Training sample size is at most `k · max_points_per_centroid`. Default
    /// 64 (faiss: 256; smaller trains faster at a small quality cost).
    pub max_points_per_centroid: usize,
    /// k-means++ picks seeds among at most `k · seed_candidates_per_centroid`
    /// sampled points. Default 8.
    pub seed_candidates_per_centroid: usize,
    /// Seed of sampling and seeding.
    pub seed: u64,
}

impl KMeansParams {
    /// `k` centroids with the defaults.
    pub fn new(k: usize, seed: u64) -> Self {
        Self {
            k,
            niter: 10,
            max_points_per_centroid: 64,
            seed_candidates_per_centroid: 8,
            seed,
        }
    }
}

/// Trains `params.k` centroids on the rows of `data` (`n × dim`, row-major).
///
/// # Returns
/// The centroids, `k × dim` row-major.
///
/// # Complexity
/// Seeding `O(k · s · d)` for `s = min(n, 8k)` candidates; each iteration
/// `O(m · k · d)` for the sample size `m = min(n, 64k)`.
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
    let m = n.min(k.saturating_mul(params.max_points_per_centroid.max(1)));
    let mut rows: Vec<usize> = if m < n {
        sample(&mut rng, n, m).into_vec()
    } else {
        (0..n).collect()
    };
    rows.sort_unstable();
    let sample_data: Vec<f32> = if m < n {
        rows.iter()
            .flat_map(|&r| &data[r * dim..(r + 1) * dim])
            .copied()
            .collect()
    } else {
        data.to_vec()
    };
    let progress = Progress::new(params.niter as u64 + 1, label);
    let mut centroids = seed_plus_plus(
        &sample_data,
        dim,
        k,
        k.saturating_mul(params.seed_candidates_per_centroid.max(1)),
        &mut rng,
    );
    progress.inc(1);
    for _ in 0..params.niter {
        let assign = nearest(&sample_data, &centroids, dim);
        let mut sums = vec![0f64; k * dim];
        let mut counts = vec![0usize; k];
        for (row, &(c, _)) in sample_data.chunks_exact(dim).zip(&assign) {
            let c = c as usize;
            counts[c] += 1;
            for (s, &x) in sums[c * dim..(c + 1) * dim].iter_mut().zip(row) {
                *s += f64::from(x);
            }
        }
        for c in 0..k {
            if counts[c] > 0 {
                for j in 0..dim {
                    centroids[c * dim + j] = (sums[c * dim + j] / counts[c] as f64) as f32;
                }
            }
        }
        split_empty(&mut centroids, &mut counts, dim);
        progress.inc(1);
    }
    progress.finish();
    Ok(centroids)
}

/// k-means++ seeding (Arthur & Vassilvitskii 2007) on the first
/// `candidates` rows of `data` (already a random sample).
fn seed_plus_plus(
    data: &[f32],
    dim: usize,
    k: usize,
    candidates: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<f32> {
    let n = (data.len() / dim).min(candidates.max(k));
    let pts = &data[..n * dim];
    let mut centroids = Vec::with_capacity(k * dim);
    let first = rng.random_range(0..n);
    centroids.extend_from_slice(&pts[first * dim..(first + 1) * dim]);
    let mut d2: Vec<f32> = pts
        .par_chunks(dim)
        .map(|p| l2_sq(p, &centroids[..dim]))
        .collect();
    for _ in 1..k {
        let total: f64 = d2.iter().map(|&d| f64::from(d)).sum();
        let pick = if total > 0.0 {
            let mut target = rng.random::<f64>() * total;
            let mut pick = n - 1;
            for (i, &d) in d2.iter().enumerate() {
                target -= f64::from(d);
                if target <= 0.0 && d > 0.0 {
                    pick = i;
                    break;
                }
            }
            pick
        } else {
            rng.random_range(0..n)
        };
        let c = pts[pick * dim..(pick + 1) * dim].to_vec();
        d2.par_iter_mut()
            .zip(pts.par_chunks(dim))
            .for_each(|(d, p)| *d = d.min(l2_sq(p, &c)));
        centroids.extend_from_slice(&c);
    }
    centroids
}

/// Gives every empty cluster half of the largest one (faiss's split: the
/// two copies are pushed apart by a relative `1e-4` in alternating dims).
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

    #[test]
    fn finds_well_separated_clusters_and_is_seeded() {
        let dim = 4;
        let mut data = Vec::new();
        for i in 0..400 {
            let c = (i % 4) as f32 * 100.0;
            data.extend([c + (i % 7) as f32 * 0.1, c, -c, 1.0]);
        }
        let p = KMeansParams::new(4, 3);
        let a = train(&data, dim, &p, "").unwrap();
        let b = train(&data, dim, &p, "").unwrap();
        assert_eq!(a, b);
        let mut firsts: Vec<i32> = a
            .chunks(dim)
            .map(|c| (c[0] / 100.0).round() as i32)
            .collect();
        firsts.sort();
        assert_eq!(firsts, vec![0, 1, 2, 3]);
        let e = train(&data, dim, &KMeansParams::new(401, 3), "")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot train 401 centroids on 400"), "{e}");
    }
}
