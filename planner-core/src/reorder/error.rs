//! The one error type of the reordering methods.

use core::fmt;

use crate::PlanError;

/// Why a reordering or gap computation was refused.
///
/// Every variant names the offending input field ([`ReorderError::field`]) and
/// its [`Display`](fmt::Display) is the single line the `warp reorder` CLI
/// prints. No input makes the reordering code panic: anything it cannot handle
/// is one of these.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ReorderError {
    /// `dim` is zero.
    ZeroDim,
    /// `centroids.len()` is not a multiple of `dim`.
    CentroidsLength {
        /// `centroids.len()`.
        len: usize,
        /// The dimension.
        dim: usize,
    },
    /// More clusters than a `u32` cluster id can name.
    TooManyClusters {
        /// The number of clusters `C`.
        clusters: usize,
    },
    /// `centroids[cluster * dim + component]` is NaN or infinite.
    NonFiniteCentroid {
        /// The cluster.
        cluster: usize,
        /// The coordinate within the centroid.
        component: usize,
    },
    /// `sizes.len()` differs from the number of clusters.
    SizesLength {
        /// `sizes.len()`.
        len: usize,
        /// The number of clusters `C`.
        clusters: usize,
    },
    /// `Σ sizes` does not fit in a `u64`.
    SizesOverflow,
    /// `probe_offsets` is not a valid CSR offset array for `probes`.
    ProbeOffsets {
        /// Index into `probe_offsets`.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A cluster id in the query log is `>= C`.
    ProbeOutOfRange {
        /// The query (row of the log).
        query: usize,
        /// The id found.
        id: u32,
        /// The number of clusters `C`.
        clusters: usize,
    },
    /// The layout's cost grows faster than its bound allows at this many
    /// clusters (`greedy_tour`: `C²/2` distances).
    TooManyForLayout {
        /// The layout's name.
        layout: &'static str,
        /// The number of clusters `C`.
        clusters: usize,
        /// The layout's largest `C`.
        max: usize,
    },
    /// The query log co-probes more pairs of clusters than `spectral`'s
    /// bound ([`SPECTRAL_MAX_PAIRS`](super::SPECTRAL_MAX_PAIRS)): its graph
    /// costs time in `Σ_q |probes_q|²` and memory in as many edges.
    TooManyPairs {
        /// The layout's name.
        layout: &'static str,
        /// `Σ_q |probes_q|²` over the deduplicated log.
        pairs: u64,
        /// The layout's largest.
        max: u64,
    },
    /// The layout needs a query log and none (no query) was given.
    MissingQueryLog {
        /// The layout's name.
        layout: &'static str,
    },
    /// `order.len()` differs from the number of clusters.
    OrderLength {
        /// `order.len()`.
        len: usize,
        /// The number of clusters `C`.
        clusters: usize,
    },
    /// `order` is not a permutation of `0..C`: `order[index] = id` is out of
    /// range or repeats an earlier position.
    NotPermutation {
        /// Position in `order`.
        index: usize,
        /// The id found there.
        id: u32,
    },
    /// The layout's `dims` is outside `1..=MAX_DIMS`.
    InvalidDims {
        /// The value given.
        dims: u32,
        /// The largest accepted value.
        max: u32,
    },
    /// The layout name is not one of [`Layout::NAMES`](crate::reorder::Layout::NAMES).
    UnknownLayout {
        /// The name given.
        name: String,
    },
    /// Planning a query of the log failed (invalid planner settings in
    /// [`plan_log`](crate::reorder::plan_log)).
    Plan(PlanError),
}

impl ReorderError {
    /// The input field the error is about: `dim`, `centroids`, `sizes`,
    /// `probes`, `probe_offsets`, `order`, `layout.dims`, `layout` or `plan`
    /// (whose message names the planner field).
    pub fn field(&self) -> &str {
        match self {
            Self::ZeroDim => "dim",
            Self::CentroidsLength { .. }
            | Self::TooManyClusters { .. }
            | Self::NonFiniteCentroid { .. }
            | Self::TooManyForLayout { .. } => "centroids",
            Self::SizesLength { .. } | Self::SizesOverflow => "sizes",
            Self::ProbeOffsets { .. } => "probe_offsets",
            Self::ProbeOutOfRange { .. }
            | Self::MissingQueryLog { .. }
            | Self::TooManyPairs { .. } => "probes",
            Self::OrderLength { .. } | Self::NotPermutation { .. } => "order",
            Self::InvalidDims { .. } => "layout.dims",
            Self::UnknownLayout { .. } => "layout",
            Self::Plan(_) => "plan",
        }
    }
}

impl fmt::Display for ReorderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroDim => write!(f, "dim: must be >= 1"),
            Self::CentroidsLength { len, dim } => {
                write!(f, "centroids: length {len} is not a multiple of dim {dim}")
            }
            Self::TooManyClusters { clusters } => write!(
                f,
                "centroids: {clusters} clusters exceed the largest u32 cluster id"
            ),
            Self::TooManyForLayout {
                layout,
                clusters,
                max,
            } => write!(
                f,
                "centroids: {clusters} clusters, {layout} takes at most {max}"
            ),
            Self::TooManyPairs { layout, pairs, max } => write!(
                f,
                "probes: the query log co-probes {pairs} pairs of clusters (the sum of each query's probes squared), {layout} takes at most {max}; log fewer queries or fewer probes a query"
            ),
            Self::NonFiniteCentroid { cluster, component } => write!(
                f,
                "centroids: coordinate {component} of cluster {cluster} is not finite"
            ),
            Self::SizesLength { len, clusters } => write!(
                f,
                "sizes: length {len} differs from the number of clusters {clusters}"
            ),
            Self::SizesOverflow => write!(f, "sizes: the total payload bytes overflow u64"),
            Self::ProbeOffsets { index, reason } => {
                write!(f, "probe_offsets[{index}]: {reason}")
            }
            Self::ProbeOutOfRange {
                query,
                id,
                clusters,
            } => write!(
                f,
                "probes: query {query} probes cluster {id}, but there are only {clusters} clusters"
            ),
            Self::MissingQueryLog { layout } => write!(
                f,
                "probes: the {layout} layout needs a query log with at least one query"
            ),
            Self::OrderLength { len, clusters } => write!(
                f,
                "order: length {len} differs from the number of clusters {clusters}"
            ),
            Self::NotPermutation { index, id } => write!(
                f,
                "order: order[{index}] = {id} is out of range or repeated (order must be a permutation of the cluster ids)"
            ),
            Self::InvalidDims { dims, max } => {
                write!(f, "layout.dims: must be between 1 and {max}, got {dims}")
            }
            Self::UnknownLayout { name } => write!(
                f,
                "layout: unknown method {name:?} (expected identity, random, pca_1d, pca_zorder, pca_hilbert, spectral or greedy_tour)"
            ),
            Self::Plan(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReorderError {}
