//! What a search is asked to do: [`SearchParams`] per query (with its
//! [`PlanOptions`]) and [`ReadConfig`] per searcher (hedging, deadline,
//! stall timeout).

use std::time::Duration;

use crate::store::{DEFAULT_FETCH_BUDGET, HedgePolicy, PlanOptions};

/// Per-query search parameters: how the query's reads are planned
/// ([`PlanOptions`], the planned store's own per-call options) and what
/// the search itself does (`k`, `nprobe`, `rerank`, `explain`).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchParams {
    /// Neighbours returned. Default 10.
    pub k: usize,
    /// Lists probed (faiss `nprobe`). Default 16.
    pub nprobe: usize,
    /// How every read of the query is planned: method, request budget
    /// `K_max`, parallelism `P`, surrogate, load awareness, `ε`. Default
    /// [`PlanOptions::default`]: warp, no budget, `P = 8` (the host sets
    /// `io_slots / Q`), the S3 surrogate (25 ms + 5 ms/MiB) as the prior of
    /// the load-aware estimate, `ε = 0.01`.
    pub plan: PlanOptions,
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
            plan: PlanOptions::default(),
            rerank: 4,
            explain: false,
        }
    }
}

/// How a [`Searcher`](super::Searcher) reads: hedging, deadline, stall
/// timeout, shared reads (load awareness is per query:
/// [`PlanOptions::load_aware`] in [`SearchParams::plan`]).
/// [`ReadConfig::default`]: hedging (a GET once 3× slower than the median,
/// 5–25 % extra GETs following the straggler rate), no deadline, 10 s stall
/// timeout, reads shared.
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
    /// Bytes the queries in progress hold fetched or in flight at once
    /// (`PlannedStoreBuilder::with_fetch_budget`). Default 4 GiB or a
    /// quarter of the machine's memory, whichever is less (at least 1 MiB).
    pub fetch_budget: u64,
    /// A list another query is already fetching is awaited instead of
    /// fetched again (one GET and one transfer for both; nothing is kept
    /// after the read, and a failed or cancelled fetch sends the waiters to
    /// read the list themselves). Default on.
    pub share_reads: bool,
}

impl Default for ReadConfig {
    fn default() -> Self {
        Self {
            hedge: Some(HedgePolicy::default()),
            deadline: None,
            stall_timeout: Duration::from_secs(10),
            fetch_budget: crate::config::mem_total_bytes()
                .map_or(DEFAULT_FETCH_BUDGET, |b| (b / 4).min(DEFAULT_FETCH_BUDGET))
                .max(1 << 20),
            share_reads: true,
        }
    }
}
