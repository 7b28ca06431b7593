//! Query-path scoring: every distance the query path ranks by (routing on
//! the centroids, the IVF-Flat scan, IVF-PQ's ADC, the rerank) is computed
//! here, in `f64`, so that every finite query gets finite distances in the
//! right order (issue 23), under each [`Metric`].
//!
//! A [`Scorer`] is a query prepared for the index's [`Metric`]; it turns a
//! vector (or an ADC code) into a [`Key`], the exact value vectors are
//! ranked by (smaller is nearer), and a key into the reported distance:
//! squared L2 ([`L2Query`]), or the inner-product metrics `dot` and
//! `cosine` ([`IpQuery`]).
//!
//! The build side (k-means, assignment, ground truth) keeps its `f32`
//! `sgemm` kernels ([`super::distance`]) on values bounded by
//! [`super::distance::check_build_range`].

mod ip;
mod kernel;
mod key;
mod l2;
mod sq8;

pub use ip::IpQuery;
pub use kernel::{
    dot, dot_error, dot_f32, dot_f32_error, sq_dist, sq_dist_error, sq_dist_f32, sq_dist_f32_error,
};
pub use key::Key;
pub use l2::{AdcTable, L2Query};
pub use sq8::{Sq8List, Sq8Query, sq8_dot};

use super::distance::Proximity;
use crate::error::Result;
use crate::ivf::pq::ProductQuantizer;

/// The metric an index ranks by (the manifest's `metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Metric {
    /// Squared Euclidean distance `‖q − x‖²`, `"l2"`. The default.
    #[default]
    L2,
    /// Cosine distance `1 − q·x / (‖q‖·‖x‖)`, `"cosine"`: base vectors are
    /// normalised at build time, queries at query time.
    Cosine,
    /// Inner product, `"dot"`: the largest `q·x` is nearest; the reported
    /// distance is `−q·x`.
    Dot,
}

/// The metric names, as `--metric` and the manifest spell them.
pub const METRIC_NAMES: &str = "l2, cosine, dot";

impl Metric {
    /// The metric named `name` in a manifest, if supported.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "l2" => Some(Self::L2),
            "cosine" => Some(Self::Cosine),
            "dot" => Some(Self::Dot),
            _ => None,
        }
    }

    /// Parses `--metric`.
    ///
    /// # Errors
    /// A one-line message naming the accepted metrics.
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        Self::from_name(s.trim()).ok_or_else(|| {
            format!(
                "{:?} is not a metric ({METRIC_NAMES})",
                crate::error::bound(s, 40)
            )
        })
    }

    /// The name in a manifest: `l2`, `cosine` or `dot`.
    pub fn name(self) -> &'static str {
        match self {
            Self::L2 => "l2",
            Self::Cosine => "cosine",
            Self::Dot => "dot",
        }
    }

    /// How the build side compares vectors under this metric: squared L2,
    /// or the inner product (cosine on the normalised base).
    pub fn proximity(self) -> Proximity {
        match self {
            Self::L2 => Proximity::L2,
            Self::Cosine | Self::Dot => Proximity::InnerProduct,
        }
    }

    /// Whether vectors are normalised to unit length (cosine).
    pub fn normalizes(self) -> bool {
        self == Self::Cosine
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One query prepared for an index's metric.
#[derive(Debug, Clone)]
pub enum Scorer {
    /// Squared L2.
    L2(L2Query),
    /// Inner product (`dot`) or cosine.
    Ip(IpQuery),
}

impl Scorer {
    /// Prepares `q` for `metric`; `reach[i]` is twice the largest centroid
    /// magnitude in coordinate `i` (see [`L2Query::new`]; unused by the
    /// inner-product metrics).
    ///
    /// # Complexity
    /// `O(d)`.
    ///
    /// # Errors
    /// [`crate::error::Error::Input`] for an all-zero query under cosine.
    pub fn new(metric: Metric, q: &[f32], reach: &[f64]) -> Result<Self> {
        Ok(match metric {
            Metric::L2 => Self::L2(L2Query::new(q, reach)),
            Metric::Dot => Self::Ip(IpQuery::dot(q)),
            Metric::Cosine => Self::Ip(IpQuery::cosine(q)?),
        })
    }

    /// The ranking key of vector `x` (smaller is nearer). `O(d)`.
    #[inline]
    pub fn key(&self, x: &[f32]) -> Key {
        match self {
            Self::L2(s) => s.key(x),
            Self::Ip(s) => s.key(x),
        }
    }

    /// Whether [`Scorer::lower_bound`] screens: squared L2 with no far
    /// coordinate (every query inside the data's range), and the
    /// inner-product metrics always. `O(1)`.
    pub fn screens(&self) -> bool {
        match self {
            Self::L2(s) => s.screens(),
            Self::Ip(_) => true,
        }
    }

    /// A lower bound on `self.key(x).value()` from sums in `f32`
    /// ([`L2Query::lower_bound`], [`IpQuery::lower_bound`]); `−∞` where the
    /// scorer does not screen or the `f32` sums overflowed. `O(d)`.
    #[inline]
    pub fn lower_bound(&self, x: &[f32]) -> f64 {
        match self {
            Self::L2(s) => s.lower_bound(x),
            Self::Ip(s) => s.lower_bound(x),
        }
    }

    /// The query prepared for `list`'s 8-bit screen ([`Sq8Query`]): squared
    /// L2 with no far coordinate, and the inner products; `None` otherwise,
    /// or when the query's weights lie beyond `f32`. `O(d)`.
    pub fn sq8<'a>(&self, list: &'a Sq8List) -> Option<Sq8Query<'a>> {
        match self {
            Self::L2(s) => s.query_f32().and_then(|q| Sq8Query::new(q, list)),
            Self::Ip(s) => s.sq8(list),
        }
    }

    /// The reported distance of a key, non-decreasing in the key: squared
    /// L2, `1 − cos` or `−q·x`.
    pub fn distance(&self, key: Key) -> f64 {
        match self {
            Self::L2(s) => s.distance(key),
            Self::Ip(s) => s.distance(key),
        }
    }

    /// Fills `table` with the ADC table of the list whose centroid is
    /// `centroid`. `O(256·d)` for L2; for the inner-product metrics
    /// `O(256·d)` once per query, then `O(d)` per list.
    pub fn adc_table(&self, pq: &ProductQuantizer, centroid: &[f32], table: &mut AdcTable) {
        match self {
            Self::L2(s) => s.adc_table(pq, centroid, table),
            Self::Ip(s) => s.adc_table(pq, centroid, table),
        }
    }

    /// The ADC key of `code` from [`Scorer::adc_table`]'s table. `O(m)`
    /// plus `O(1)` per far coordinate (L2).
    #[inline]
    pub fn adc_key(&self, table: &AdcTable, code: &[u8]) -> Key {
        match self {
            Self::L2(_) => L2Query::adc_key(table, code),
            Self::Ip(s) => s.adc_key(table, code),
        }
    }
}
