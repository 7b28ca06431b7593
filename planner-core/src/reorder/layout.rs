//! [`Layout`]: which payload layout method, and its one text spelling.

use core::fmt;
use core::str::FromStr;

use crate::spelling::ParseError;

/// The default number of PCA dimensions of [`Layout::PcaZOrder`] and
/// [`Layout::PcaHilbert`]: `m = 5`.
///
/// Chosen by measurement on clustered synthetic workloads ([`clustered`](super::clustered),
/// `C = 1024`, `d = 128`, 2000 queries; the `default_dims_is_near_best_*`
/// tests): a layout is judged by the WaRP plans over the log (`K_max = 16`,
/// `P = 8`, S3 surrogate). With 16 groups and `nprobe = 8` PCA m-D + Z-order
/// needs, for `m = 1..8`, 6.99, 5.56, 4.72, 4.55, **4.52**, 4.56, 4.56, 4.63
/// GETs per query (identity: 7.86). On three other mixtures (64 overlapping
/// groups, 256 tight groups, one anisotropic Gaussian; `nprobe = 16`) the best
/// `m` is 6, 5 and 4; `m = 5` is within 1.4% of the best on all four, `m = 4`
/// within 2.8%, `m = 1` needs 20–54% more GETs. Beyond 5 each added axis
/// halves the key bits of the others for no gain. The weighted co-access gap
/// alone would pick `m = 1` (0.22 vs 0.32 of identity): it sums byte
/// distances and is dominated by the rare far pairs a curve's jumps create,
/// while the plans depend on how many co-probed payloads end up adjacent.
pub const DEFAULT_DIMS: u32 = 5;

/// The largest accepted PCA dimension count (4 bits per coordinate).
pub const MAX_DIMS: u32 = 16;

/// A payload layout method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Clusters in id order (as k-means numbered them).
    Identity,
    /// A seeded Fisher–Yates shuffle ([`SplitMix64`](super::SplitMix64)).
    Random {
        /// The shuffle seed.
        seed: u64,
    },
    /// Sort by the projection on the first principal axis.
    Pca1d,
    /// Project on `dims` principal axes, quantize on an isotropic grid, sort by
    /// the Z-order (Morton) key ([`morton_key`](super::morton_key)). The default, with
    /// [`DEFAULT_DIMS`]; needs no query log.
    PcaZOrder {
        /// PCA dimensions `m`, `1..=MAX_DIMS`.
        dims: u32,
    },
    /// As [`Layout::PcaZOrder`] with the `m`-dimensional Hilbert key ([`hilbert_key`](super::hilbert_key)).
    PcaHilbert {
        /// PCA dimensions `m`, `1..=MAX_DIMS`.
        dims: u32,
    },
    /// The Fiedler order of the query-log co-access graph Laplacian, per
    /// connected component; never co-accessed clusters follow in PCA 1-D order.
    Spectral {
        /// Seed of the Lanczos start vectors.
        seed: u64,
    },
    /// A short path through the centroids by the greedy-edge heuristic of the
    /// travelling-salesman problem over each cluster's
    /// [`TOUR_NEIGHBORS`](super::TOUR_NEIGHBORS) nearest, its fragments chained
    /// by nearest neighbour. Needs no query log; uses full distances, so it
    /// keeps co-probed clusters together where a few principal axes do not.
    GreedyTour,
}

impl Default for Layout {
    /// PCA `m`-D + Z-order with `m = DEFAULT_DIMS`, the paper's deployed layout.
    fn default() -> Self {
        Self::PcaZOrder { dims: DEFAULT_DIMS }
    }
}

impl Layout {
    /// Every base name accepted by [`Layout::from_name`].
    pub const NAMES: [&'static str; 7] = [
        "identity",
        "random",
        "pca_1d",
        "pca_zorder",
        "pca_hilbert",
        "spectral",
        "greedy_tour",
    ];

    /// Every accepted spelling, as listed in parse errors.
    pub const SPELLINGS: &'static str = "identity, random[:SEED], pca_1d, pca_zorder[:M], \
         pca_hilbert[:M], spectral[:SEED], greedy_tour (M = PCA dimensions 1..=16, default 5; SEED default 0)";

    /// The base name (`"pca_zorder"`, …); the full spelling is the `Display`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::Random { .. } => "random",
            Self::Pca1d => "pca_1d",
            Self::PcaZOrder { .. } => "pca_zorder",
            Self::PcaHilbert { .. } => "pca_hilbert",
            Self::Spectral { .. } => "spectral",
            Self::GreedyTour => "greedy_tour",
        }
    }

    /// Parses a base name with default parameters (`dims =`
    /// [`DEFAULT_DIMS`], `seed = 0`); see [`Layout::with_dims`] and
    /// [`Layout::with_seed`].
    ///
    /// # Examples
    /// ```
    /// use planner_core::reorder::Layout;
    ///
    /// assert_eq!(Layout::from_name("pca_zorder"), Some(Layout::default()));
    /// assert_eq!(Layout::from_name("spectral").unwrap().with_seed(7), Some(Layout::Spectral { seed: 7 }));
    /// assert_eq!(Layout::from_name("pca_1d").unwrap().with_dims(3), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "identity" => Self::Identity,
            "random" => Self::Random { seed: 0 },
            "pca_1d" => Self::Pca1d,
            "pca_zorder" => Self::PcaZOrder { dims: DEFAULT_DIMS },
            "pca_hilbert" => Self::PcaHilbert { dims: DEFAULT_DIMS },
            "spectral" => Self::Spectral { seed: 0 },
            "greedy_tour" => Self::GreedyTour,
            _ => return None,
        })
    }

    /// The PCA dimension count, for the layouts that have one.
    pub fn dims(&self) -> Option<u32> {
        match self {
            Self::PcaZOrder { dims } | Self::PcaHilbert { dims } => Some(*dims),
            _ => None,
        }
    }

    /// Whether [`reorder`](super::reorder) reads the query log for this
    /// layout (`spectral` alone; every other layout ignores it).
    pub fn reads_query_log(&self) -> bool {
        matches!(self, Self::Spectral { .. })
    }

    /// The seed, for the layouts that have one.
    pub fn seed(&self) -> Option<u64> {
        match self {
            Self::Random { seed } | Self::Spectral { seed } => Some(*seed),
            _ => None,
        }
    }

    /// This layout with `dims` PCA dimensions; `None` if it has no such parameter.
    pub fn with_dims(self, dims: u32) -> Option<Self> {
        match self {
            Self::PcaZOrder { .. } => Some(Self::PcaZOrder { dims }),
            Self::PcaHilbert { .. } => Some(Self::PcaHilbert { dims }),
            _ => None,
        }
    }

    /// This layout with seed `seed`; `None` if it has no seed.
    pub fn with_seed(self, seed: u64) -> Option<Self> {
        match self {
            Self::Random { .. } => Some(Self::Random { seed }),
            Self::Spectral { .. } => Some(Self::Spectral { seed }),
            _ => None,
        }
    }
}

/// The canonical spelling: the [`Layout::name`], then `:SEED` for `random`
/// and `spectral` or `:M` for the PCA-curve layouts (`pca_zorder:5`,
/// `random:7`, `identity`).
impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match (self.dims(), self.seed()) {
            (Some(m), _) => write!(f, ":{m}"),
            (_, Some(seed)) => write!(f, ":{seed}"),
            _ => Ok(()),
        }
    }
}

/// Reads the [`Display`](fmt::Display) spelling back; the parameter may be
/// omitted for its default (`pca_zorder` = `pca_zorder:5`, `random` = `random:0`).
///
/// # Errors
/// A [`ParseError`] naming the input and listing [`Layout::SPELLINGS`]: an
/// unknown name, a parameter that is not a decimal integer, a parameter on a
/// layout without one, or `M` outside `1..=MAX_DIMS`.
///
/// # Examples
/// ```
/// use planner_core::reorder::Layout;
///
/// assert_eq!("pca_hilbert:3".parse(), Ok(Layout::PcaHilbert { dims: 3 }));
/// assert_eq!("pca_zorder".parse::<Layout>().unwrap().to_string(), "pca_zorder:5");
/// assert!("pca_1d:3".parse::<Layout>().is_err());
/// ```
impl FromStr for Layout {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, ParseError> {
        let bad = |reason: String| ParseError::new("layout", s, reason, Self::SPELLINGS);
        let (base, param) = match s.split_once(':') {
            Some((b, p)) => (b, Some(p)),
            None => (s, None),
        };
        let layout = Self::from_name(base).ok_or_else(|| bad("unknown layout".into()))?;
        let Some(p) = param else {
            return Ok(layout);
        };
        let number = |p: &str| {
            (!p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                .then(|| p.parse::<u64>().ok())
                .flatten()
                .ok_or_else(|| bad(format!("parameter {p:?} is not a non-negative integer")))
        };
        if layout.dims().is_some() {
            let dims = u32::try_from(number(p)?)
                .ok()
                .filter(|d| (1..=MAX_DIMS).contains(d))
                .ok_or_else(|| bad(format!("M must be in 1..={MAX_DIMS}")))?;
            return Ok(layout.with_dims(dims).unwrap_or(layout));
        }
        let seed = number(p)?;
        layout
            .with_seed(seed)
            .ok_or_else(|| bad(format!("{base} takes no parameter")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layout_round_trips_through_its_spelling() {
        let all = [
            Layout::Identity,
            Layout::Random { seed: u64::MAX },
            Layout::Pca1d,
            Layout::PcaZOrder { dims: 1 },
            Layout::PcaZOrder { dims: MAX_DIMS },
            Layout::PcaHilbert { dims: 3 },
            Layout::Spectral { seed: 0 },
            Layout::GreedyTour,
        ];
        for l in all {
            let text = l.to_string();
            assert_eq!(text.parse::<Layout>(), Ok(l), "{text}");
        }
        for name in Layout::NAMES {
            let l: Layout = name.parse().unwrap();
            assert_eq!(l.name(), name);
            assert_eq!(l.reads_query_log(), name == "spectral", "{name}");
        }
    }

    #[test]
    fn errors_name_the_input_and_list_the_spellings() {
        for bad in [
            "zorder",
            "pca_1d:3",
            "identity:1",
            "pca_zorder:0",
            "pca_zorder:17",
            "random:-1",
            "random:",
            "spectral:1:2",
            "greedy_tour:3",
            "",
        ] {
            let e = bad.parse::<Layout>().unwrap_err().to_string();
            assert!(e.starts_with(&format!("layout {bad:?}: ")), "{e}");
            assert!(e.contains(Layout::SPELLINGS), "{e}");
        }
    }
}
