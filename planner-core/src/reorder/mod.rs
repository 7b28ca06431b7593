//! Offline cluster payload reordering (paper §5, §7.4).
//!
//! An IVF index writes its cluster payloads once, in some order. Queries probe
//! `nprobe` clusters; when the payloads of clusters probed together sit close
//! together, the planner can merge them into few cheap requests. This module
//! computes the permutation ([`reorder`]) and measures its locality
//! ([`coaccess_gap`], [`plan_log`]).
//!
//! ## Brief overview
//!
//! - [`Layout`] selects the method: [`Layout::Identity`], [`Layout::Random`],
//!   [`Layout::Pca1d`], [`Layout::PcaZOrder`] (the default, needs no query
//!   log), [`Layout::PcaHilbert`], [`Layout::Spectral`] (needs a query log)
//!   and [`Layout::GreedyTour`] (a short path through the centroids).
//! - [`ReorderInput`] borrows the centroids, payload sizes and an optional query
//!   log in CSR form; [`reorder`] returns `order[position] = cluster id`.
//! - [`coaccess_gap`] is the paper's weighted co-access gap
//!   `Σ_{a<b} count(a, b) · bytes_between(a, b)`; [`plan_log`] judges a layout
//!   by the plans the planner makes for every query of a log.
//! - [`clustered`] generates seeded synthetic workloads for tests and benches.
//!
//! The code is pure and deterministic: no I/O, clocks or unseeded randomness,
//! and float code uses only `+ − × ÷ sqrt` in a fixed order, so native and
//! WebAssembly builds return identical permutations.
//!
//! ## Methods and their cost (`C` clusters, dimension `d`, `m` PCA dims)
//!
//! | layout | uses | time |
//! |---|---|---|
//! | `identity` | nothing | `O(C)` |
//! | `random` | seed | `O(C)` |
//! | `pca_1d` | centroids | PCA + `O(C log C)` sort |
//! | `pca_zorder` (default, `m = 5`) | centroids | PCA + `O(C·m·b)` keys + sort |
//! | `pca_hilbert` | centroids | PCA + `O(C·m·b)` keys + sort |
//! | `spectral` | query log, seed | `O(Σ_q |probes_q|²)` graph + Lanczos `O(R·(k·nnz + k²·C))` |
//! | `greedy_tour` | centroids | `O(C²·d/2)` neighbours + `O(C·t·log(C·t))` greedy edges + `O(F²·d)` chaining |
//!
//! PCA costs `O(S·d² + d³ + I·d²·(m + 4) + C·d·m)` with `S = min(C, 1024)`
//! sampled centroids for the covariance and `I ≤ 300` subspace iterations; `b =
//! min(32, ⌊64/m⌋)` bits per quantized coordinate; `k = 32` Lanczos steps,
//! `R ≤ 2` runs per component, `nnz` co-access edges; `t =`
//! [`TOUR_NEIGHBORS`] candidate neighbours, `F ≤ C` path fragments.
//!
//! ## Example
//!
//! ```
//! use planner_core::reorder::{Layout, ReorderInput, SyntheticParams, clustered, coaccess_gap, reorder};
//!
//! let w = clustered(&SyntheticParams { clusters: 256, dim: 16, queries: 300, ..Default::default() });
//! let gap = |layout: &Layout| {
//!     let order = reorder(&w.input(), layout).unwrap();
//!     coaccess_gap(&order, &w.sizes, &w.probes, &w.probe_offsets).unwrap()
//! };
//! // Co-probed clusters end up much closer than in the k-means (identity) order.
//! assert!(gap(&Layout::default()) < 0.6 * gap(&Layout::Identity));
//! assert!(gap(&Layout::Spectral { seed: 1 }) < 0.6 * gap(&Layout::Identity));
//! ```

mod error;
mod gap;
mod hilbert;
mod judge;
mod layout;
mod linalg;
mod log;
mod order;
mod pca;
mod random;
mod spectral;
mod synthetic;
mod tour;
mod zorder;

pub use error::ReorderError;
pub use gap::coaccess_gap;
pub use hilbert::hilbert_key;
pub use judge::{LogPlanSettings, LogPlanTotals, plan_log};
pub use layout::{DEFAULT_DIMS, Layout, MAX_DIMS};
pub use pca::PCA_SAMPLE;
pub use random::SplitMix64;
pub use spectral::{LANCZOS_RESTARTS, LANCZOS_STEPS};
pub use synthetic::{SyntheticParams, SyntheticWorkload, clustered};
pub use tour::{TOUR_MAX_CLUSTERS, TOUR_NEIGHBORS};
pub use zorder::morton_key;

/// The input of [`reorder`], borrowed.
#[derive(Debug, Clone, Copy)]
pub struct ReorderInput<'a> {
    /// `C × dim` centroids, row-major, finite.
    pub centroids: &'a [f32],
    /// The dimension `d >= 1`.
    pub dim: usize,
    /// Payload bytes per cluster (`len C`).
    pub sizes: &'a [u64],
    /// The query log in CSR form: query `q` probes
    /// `probes[probe_offsets[q]..probe_offsets[q + 1]]`.
    pub probes: &'a [u32],
    /// `queries + 1` offsets into `probes`; `[]` or `[0]` means no log.
    pub probe_offsets: &'a [u32],
}

impl ReorderInput<'_> {
    /// Validates the input and returns the number of clusters `C`.
    ///
    /// # Errors
    /// See [`reorder`].
    pub fn validate(&self) -> Result<usize, ReorderError> {
        if self.dim == 0 {
            return Err(ReorderError::ZeroDim);
        }
        if !self.centroids.len().is_multiple_of(self.dim) {
            return Err(ReorderError::CentroidsLength {
                len: self.centroids.len(),
                dim: self.dim,
            });
        }
        let clusters = self.centroids.len() / self.dim;
        if clusters > u32::MAX as usize {
            return Err(ReorderError::TooManyClusters { clusters });
        }
        // A branch-free scan first (it vectorizes); locate the culprit only on failure.
        if !self.centroids.iter().fold(true, |ok, x| ok & x.is_finite())
            && let Some(i) = self.centroids.iter().position(|x| !x.is_finite())
        {
            return Err(ReorderError::NonFiniteCentroid {
                cluster: i / self.dim,
                component: i % self.dim,
            });
        }
        if self.sizes.len() != clusters {
            return Err(ReorderError::SizesLength {
                len: self.sizes.len(),
                clusters,
            });
        }
        self.sizes
            .iter()
            .try_fold(0u64, |t, &s| t.checked_add(s))
            .ok_or(ReorderError::SizesOverflow)?;
        log::validate(self.probes, self.probe_offsets, clusters)?;
        Ok(clusters)
    }
}

/// The most co-probed pairs `Σ_q |probes_q|²` (over the deduplicated log)
/// `spectral` takes: 2²⁶, at most 1.6 GB of graph edges (24 bytes each,
/// fewer where `C²` is smaller) and as many steps to build them. A log of
/// 10 000 queries at 64 probes is 4·10⁷; 20 queries of 5 000 probes over
/// 70 000 clusters (5·10⁸) took 9 GB before this bound.
pub const SPECTRAL_MAX_PAIRS: u64 = 1 << 26;

/// Computes a payload layout: `order[position] = cluster id`.
///
/// # Arguments
/// * `input` — centroids, sizes and optional query log ([`ReorderInput`]).
/// * `layout` — the method ([`Layout`]).
///
/// # Returns
/// A permutation of `0..C`. Ties (equal keys or projections) are broken by
/// cluster id, so the result is a pure function of the input and the layout.
///
/// # Complexity
/// See the module table. Memory, in bytes, on top of the returned `4C`:
/// - `identity`, `random`: none;
/// - PCA layouts: `8·(2d² + 3bd + 2b² + 2d + C·m) + 16C` with `b = min(d, m + 4)`
///   (`m = 1` for `pca_1d`, `m = min(dims, d)` otherwise), plus `4C·m` for the
///   quantized coordinates of the curve layouts;
/// - `spectral`: `8(Q + 1) + 4L` for the deduplicated log (`Q` queries, `L =
///   Σ_q |probes_q|`), `8(C + 1) + 4L + 21C` for the graph scratch, at most
///   `24·nnz` for the edges, and `8·((k + 3)·C + 3k²)` for Lanczos (`k = 32`),
///   plus the PCA 1-D memory when some cluster is never co-accessed;
/// - `greedy_tour`: `24·C·t + 24·C` (`t =` [`TOUR_NEIGHBORS`]).
///
/// # Errors
/// [`ReorderError::ZeroDim`], [`ReorderError::CentroidsLength`],
/// [`ReorderError::TooManyClusters`], [`ReorderError::NonFiniteCentroid`],
/// [`ReorderError::SizesLength`], [`ReorderError::SizesOverflow`],
/// [`ReorderError::ProbeOffsets`], [`ReorderError::ProbeOutOfRange`],
/// [`ReorderError::InvalidDims`] (`dims` outside `1..=MAX_DIMS`),
/// [`ReorderError::MissingQueryLog`] (spectral without a query), or
/// [`ReorderError::TooManyForLayout`] (`greedy_tour` over more than
/// [`TOUR_MAX_CLUSTERS`] clusters), [`ReorderError::TooManyPairs`]
/// (`spectral` over a log of more than [`SPECTRAL_MAX_PAIRS`] co-probed
/// pairs).
///
/// # Examples
/// ```
/// use planner_core::reorder::{Layout, ReorderInput, reorder};
///
/// // Four clusters on a line, numbered out of order.
/// let centroids = [3.0f32, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 0.0];
/// let input = ReorderInput { centroids: &centroids, dim: 2, sizes: &[100; 4], probes: &[], probe_offsets: &[] };
/// let order = reorder(&input, &Layout::Pca1d).unwrap();
/// assert!(order == [1, 3, 2, 0] || order == [0, 2, 3, 1]);
/// assert_eq!(reorder(&input, &Layout::Identity).unwrap(), [0, 1, 2, 3]);
/// ```
pub fn reorder(input: &ReorderInput<'_>, layout: &Layout) -> Result<Vec<u32>, ReorderError> {
    let clusters = input.validate()?;
    if let Some(dims) = layout.dims()
        && !(1..=MAX_DIMS).contains(&dims)
    {
        return Err(ReorderError::InvalidDims {
            dims,
            max: MAX_DIMS,
        });
    }
    Ok(match *layout {
        Layout::Identity => (0..clusters as u32).collect(),
        Layout::Random { seed } => random::shuffle(clusters, seed),
        Layout::Pca1d => pca_1d(input.centroids, input.dim, (0..clusters as u32).collect()),
        Layout::PcaZOrder { dims } => curve(input, dims as usize, zorder::morton_key),
        Layout::PcaHilbert { dims } => curve(input, dims as usize, hilbert::hilbert_key),
        Layout::Spectral { seed } => {
            if input.probe_offsets.len() < 2 {
                return Err(ReorderError::MissingQueryLog { layout: "spectral" });
            }
            let log = log::DedupLog::new(input.probes, input.probe_offsets);
            let pairs = (0..log.queries())
                .map(|q| (log.query(q).len() as u64).pow(2))
                .fold(0u64, u64::saturating_add);
            if pairs > SPECTRAL_MAX_PAIRS {
                return Err(ReorderError::TooManyPairs {
                    layout: "spectral",
                    pairs,
                    max: SPECTRAL_MAX_PAIRS,
                });
            }
            let (mut order, isolated) = spectral::order(&log, clusters, seed);
            if !isolated.is_empty() {
                order.extend(pca_1d(input.centroids, input.dim, isolated));
            }
            order
        }
        Layout::GreedyTour => {
            if clusters > TOUR_MAX_CLUSTERS {
                return Err(ReorderError::TooManyForLayout {
                    layout: "greedy_tour",
                    clusters,
                    max: TOUR_MAX_CLUSTERS,
                });
            }
            tour::greedy_tour(input.centroids, input.dim)
        }
    })
}

/// `ids` sorted by their projection on the first principal axis (ties by id).
/// The axis is computed from all centroids.
fn pca_1d(centroids: &[f32], dim: usize, ids: Vec<u32>) -> Vec<u32> {
    let proj = pca::project(centroids, dim, 1);
    order::ids_by_key(
        ids.into_iter()
            .map(|a| (order::total_key(proj[a as usize]), a))
            .collect(),
    )
}

/// Clusters sorted by a space-filling-curve key of their quantized
/// `min(dims, d)`-dimensional PCA coordinates (ties by id).
fn curve(input: &ReorderInput<'_>, dims: usize, key: fn(&[u32], u32) -> u64) -> Vec<u32> {
    let m = dims.min(input.dim);
    let bits = zorder::bits_per_dim(m);
    let coords = pca::project(input.centroids, input.dim, m);
    let cells = zorder::quantize(&coords, m, bits);
    drop(coords);
    order::ids_by_key(
        cells
            .chunks_exact(m)
            .enumerate()
            .map(|(id, cell)| (key(cell, bits), id as u32))
            .collect(),
    )
}
