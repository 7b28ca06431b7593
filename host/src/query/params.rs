//! What a search is asked to do: [`SearchParams`] per query and
//! [`ReadConfig`] per searcher (hedging, deadline, stall timeout, load
//! awareness).

use std::time::Duration;

use planner_core::{Method, Surrogate};

use crate::store::HedgePolicy;

/// Per-query search parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Neighbours returned. Default 10.
    pub k: usize,
    /// Lists probed (faiss `nprobe`). Default 16.
    pub nprobe: usize,
    /// The planning policy. Default [`Method::Warp`].
    pub method: Method,
    /// Request budget `K_max`; `None` for no budget beyond one request per
    /// interval. Default `None`.
    pub k_max: Option<usize>,
    /// Expected request parallelism `P` of one query; `None` for unbounded.
    /// Default `Some(8.0)` (the host sets io_slots / Q).
    pub parallelism: Option<f64>,
    /// Request-time surrogate: the prior of the load-aware surrogate, or the
    /// surrogate itself when [`ReadConfig::load_aware`] is off. Default
    /// affine 25 ms + 5 ms/MiB (S3).
    pub surrogate: Surrogate,
    /// Tolerance of the ε-methods. Default 0.01.
    pub epsilon: f64,
    /// IVF-PQ: rerank the best `k · rerank` ADC candidates with exact
    /// distances; `0` for no rerank. Ignored for IVF-Flat. Default 4.
    pub rerank: usize,
    /// Keep the planning instances and plans for `--explain`.
    pub explain: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        Self {
            k: 10,
            nprobe: 16,
            method: Method::Warp,
            k_max: None,
            parallelism: Some(8.0),
            surrogate: Surrogate::S3,
            epsilon: 0.01,
            rerank: 4,
            explain: false,
        }
    }
}

/// How a [`Searcher`](super::Searcher) reads: hedging, deadline, stall timeout, load
/// awareness. [`ReadConfig::default`]: hedging (a GET once 3× slower than the
/// median, 5–25 % extra GETs following the straggler rate), no deadline, 10 s
/// stall timeout, load-aware.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadConfig {
    /// Hedge straggling GETs; `None` turns hedging off.
    pub hedge: Option<HedgePolicy>,
    /// One deadline per query, covering the payload and rerank reads (and
    /// their re-fetches). Default none.
    pub deadline: Option<Duration>,
    /// Abandon (and retry once) a response with no progress for this long.
    /// Default 10 s.
    pub stall_timeout: Duration,
    /// Plan with the load-aware per-MiB term, [`SearchParams::surrogate`]
    /// being its prior; off: plan with [`SearchParams::surrogate`] as given.
    /// Default on.
    pub load_aware: bool,
}

impl Default for ReadConfig {
    fn default() -> Self {
        Self {
            hedge: Some(HedgePolicy::default()),
            deadline: None,
            stall_timeout: Duration::from_secs(10),
            load_aware: true,
        }
    }
}
