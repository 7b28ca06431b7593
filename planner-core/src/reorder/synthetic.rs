//! Seeded synthetic IVF workloads with clustered centroids and a
//! nearest-centroid query log, for tests, benchmarks and demos.

use super::ReorderInput;
use super::random::SplitMix64;

/// Shape of a [`clustered`] workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticParams {
    /// Number of clusters `C` (IVF `nlist`).
    pub clusters: usize,
    /// Vector dimension `d`.
    pub dim: usize,
    /// Number of Gaussian groups the centroids are drawn around.
    pub groups: usize,
    /// Standard deviation of centroids and queries around their group
    /// centre, relative to the unit spread of the group centres.
    pub spread: f64,
    /// Anisotropy: coordinate `j` is scaled by `1/sqrt(1 + decay·j)`, so the
    /// covariance spectrum decays like `1/j` as in real embeddings (`0` =
    /// isotropic).
    pub decay: f64,
    /// Number of queries in the log.
    pub queries: usize,
    /// Clusters probed per query (`nprobe`).
    pub nprobe: usize,
    /// Mean payload bytes per cluster; sizes are uniform in `[mean/2, 3·mean/2]`.
    pub mean_size: u64,
    /// The seed of everything.
    pub seed: u64,
}

impl Default for SyntheticParams {
    /// `C = 1024`, `d = 128`, 16 groups, spread 0.5, decay 1, 1000 queries, `nprobe = 8`,
    /// 1 MiB mean payload, seed 42.
    fn default() -> Self {
        Self {
            clusters: 1024,
            dim: 128,
            groups: 16,
            spread: 0.5,
            decay: 1.0,
            queries: 1000,
            nprobe: 8,
            mean_size: 1 << 20,
            seed: 42,
        }
    }
}

/// A synthetic workload: the arrays of a [`ReorderInput`], owned.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticWorkload {
    /// `C × dim` centroids, row-major.
    pub centroids: Vec<f32>,
    /// The dimension.
    pub dim: usize,
    /// Payload bytes per cluster.
    pub sizes: Vec<u64>,
    /// The query log's cluster ids (CSR values).
    pub probes: Vec<u32>,
    /// The query log's offsets (`queries + 1`).
    pub probe_offsets: Vec<u32>,
}

impl SyntheticWorkload {
    /// Borrows the workload as a reordering input.
    pub fn input(&self) -> ReorderInput<'_> {
        ReorderInput {
            centroids: &self.centroids,
            dim: self.dim,
            sizes: &self.sizes,
            probes: &self.probes,
            probe_offsets: &self.probe_offsets,
        }
    }
}

/// An approximately standard normal deviate: the sum of four uniforms on
/// `[-1, 1)` scaled to unit variance (only `+ − × ÷`, so reproducible everywhere).
fn normal(rng: &mut SplitMix64) -> f64 {
    let s =
        rng.symmetric_unit() + rng.symmetric_unit() + rng.symmetric_unit() + rng.symmetric_unit();
    s * 0.866_025_403_784_438_6
}

/// A clustered synthetic IVF workload, as k-means on grouped data produces.
///
/// # Math
/// `groups` centres `g_k ~ N(0, I_d)`; each centroid picks a group uniformly
/// and is `S (g_k + spread · N(0, I_d))` with the diagonal scaling
/// `S_jj = 1/sqrt(1 + decay·j)` (so cluster ids are in random order with
/// respect to groups, like k-means output, and the spectrum decays); each
/// query is drawn the same way and probes its `nprobe` nearest centroids in L2
/// (ties by id). Normal deviates are sums of four uniforms, rescaled.
///
/// # Complexity
/// `O(queries · C · (d + nprobe))` time for the exact probe sets;
/// `4·C·d + 8·C + 4·queries·(nprobe + 1)` bytes returned.
///
/// # Examples
/// ```
/// use planner_core::reorder::{SyntheticParams, clustered};
///
/// let w = clustered(&SyntheticParams { clusters: 64, dim: 8, queries: 10, nprobe: 4, ..Default::default() });
/// assert_eq!(w.centroids.len(), 64 * 8);
/// assert_eq!(w.probe_offsets, (0..=10).map(|q| q * 4).collect::<Vec<u32>>());
/// ```
pub fn clustered(p: &SyntheticParams) -> SyntheticWorkload {
    let (c, d) = (p.clusters, p.dim.max(1));
    let groups = p.groups.max(1);
    let nprobe = p.nprobe.min(c);
    let mut rng = SplitMix64::new(p.seed);
    let centres: Vec<f64> = (0..groups * d).map(|_| normal(&mut rng)).collect();
    let scale: Vec<f64> = (0..d)
        .map(|j| 1.0 / (1.0 + p.decay * j as f64).sqrt())
        .collect();
    let draw = |rng: &mut SplitMix64, out: &mut Vec<f32>| {
        let g = rng.below(groups as u64) as usize;
        for (j, s) in scale.iter().enumerate() {
            out.push((s * (centres[g * d + j] + p.spread * normal(rng))) as f32);
        }
    };
    let mut centroids = Vec::with_capacity(c * d);
    for _ in 0..c {
        draw(&mut rng, &mut centroids);
    }
    let half = p.mean_size / 2;
    let sizes: Vec<u64> = (0..c)
        .map(|_| half + rng.below(p.mean_size.saturating_add(1)))
        .collect();
    let mut probes = Vec::with_capacity(p.queries * nprobe);
    let mut probe_offsets = Vec::with_capacity(p.queries + 1);
    probe_offsets.push(0);
    let mut query = Vec::with_capacity(d);
    let mut best: Vec<(f32, u32)> = Vec::with_capacity(nprobe + 1);
    for _ in 0..p.queries {
        query.clear();
        draw(&mut rng, &mut query);
        best.clear();
        for (id, row) in centroids.chunks_exact(d).enumerate() {
            let mut dist = 0.0f32;
            for (a, b) in row.iter().zip(&query) {
                dist += (a - b) * (a - b);
            }
            if best.len() == nprobe && nprobe > 0 && dist >= best[nprobe - 1].0 {
                continue;
            }
            let at = best.partition_point(|&(bd, _)| bd <= dist);
            best.insert(at, (dist, id as u32));
            best.truncate(nprobe);
        }
        probes.extend(best.iter().map(|&(_, id)| id));
        probe_offsets.push(probes.len() as u32);
    }
    SyntheticWorkload {
        centroids,
        dim: d,
        sizes,
        probes,
        probe_offsets,
    }
}
