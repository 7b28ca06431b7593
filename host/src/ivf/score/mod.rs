//! Query-path scoring: every distance the query path ranks by (routing on
//! the centroids, the IVF-Flat scan, IVF-PQ's ADC, the rerank) is computed
//! here, in `f64`, so that every finite query gets finite distances in the
//! right order (issue 23).
//!
//! A [`Scorer`] is a query prepared for the index's [`Metric`]; it turns a
//! vector (or an ADC code) into a [`Key`], the exact value vectors are
//! ranked by, and a key into the reported distance. Only squared L2 exists
//! ([`L2Query`]); another metric is one more [`Metric`] and [`Scorer`]
//! variant with its own key function.
//!
//! The build side (k-means, assignment, ground truth) keeps its `f32`
//! `sgemm` kernels ([`super::distance`]) on values bounded by
//! [`super::distance::check_build_range`].

mod kernel;
mod key;
mod l2;

pub use kernel::sq_dist;
pub use key::Key;
pub use l2::{AdcTable, L2Query};

use crate::ivf::pq::ProductQuantizer;

/// The metric an index ranks by (the manifest's `metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Squared Euclidean distance, `"l2"`.
    L2,
}

impl Metric {
    /// The metric named `name` in a manifest, if supported.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "l2" => Some(Self::L2),
            _ => None,
        }
    }
}

/// One query prepared for an index's metric.
#[derive(Debug, Clone)]
pub enum Scorer {
    /// Squared L2.
    L2(L2Query),
}

impl Scorer {
    /// Prepares `q` for `metric`; `reach[i]` is twice the largest centroid
    /// magnitude in coordinate `i` (see [`L2Query::new`]).
    ///
    /// # Complexity
    /// `O(d)`.
    pub fn new(metric: Metric, q: &[f32], reach: &[f64]) -> Self {
        match metric {
            Metric::L2 => Self::L2(L2Query::new(q, reach)),
        }
    }

    /// The ranking key of vector `x` (smaller is nearer). `O(d)`.
    #[inline]
    pub fn key(&self, x: &[f32]) -> Key {
        match self {
            Self::L2(s) => s.key(x),
        }
    }

    /// The reported distance of a key, non-decreasing in the key.
    pub fn distance(&self, key: Key) -> f64 {
        match self {
            Self::L2(s) => s.distance(key),
        }
    }

    /// Fills `table` with the ADC table of the list whose centroid is
    /// `centroid`. `O(256·d)`.
    pub fn adc_table(&self, pq: &ProductQuantizer, centroid: &[f32], table: &mut AdcTable) {
        match self {
            Self::L2(s) => s.adc_table(pq, centroid, table),
        }
    }

    /// The ADC key of `code` from [`Scorer::adc_table`]'s table. `O(m)`
    /// plus `O(1)` per far coordinate.
    #[inline]
    pub fn adc_key(&self, table: &AdcTable, code: &[u8]) -> Key {
        match self {
            Self::L2(_) => L2Query::adc_key(table, code),
        }
    }
}
