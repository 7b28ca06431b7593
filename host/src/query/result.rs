//! What a search answers: the neighbours, the query's I/O figures and the
//! `--explain` planning documents.

use serde_json::{Value, json};

use crate::store::CallStats;

/// One neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbor {
    /// Row of the base vector.
    pub id: u32,
    /// Squared L2 distance, computed in `f64` (finite for every finite
    /// query; see [`crate::ivf::score`]).
    pub distance: f64,
}

/// I/O figures of one query: the planned store's counters summed over the
/// query's reads ([`io`](Self::io)) plus what only the query knows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct QueryStats {
    /// Lists probed.
    pub probes: usize,
    /// Lists served from the cache.
    pub cache_hits: usize,
    /// Lists received from another query's read in flight (fetched once
    /// for both; [`ReadConfig::share_reads`](super::ReadConfig::share_reads)).
    pub shared: usize,
    /// The planned store's [`CallStats`] of every read of the query (payload
    /// and rerank, re-fetches included), summed; `io.refetches` also counts
    /// the ranges the query fetched again after a checksum mismatch or a
    /// short answer.
    pub io: CallStats,
    /// The payload plan's surrogate `(fixed_ms, per_mib_ms)` (the load-aware
    /// one when on); `None` when nothing was planned or it is piecewise.
    pub surrogate: Option<(f64, f64)>,
}

/// What `--explain` shows for one planned fetch.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    /// `payload` or `rerank`.
    pub stage: &'static str,
    /// The list numbers (payload) or rows (rerank) of the intervals.
    pub items: Vec<u64>,
    /// `{"instance": <ARCHITECTURE §5 instance, with the surrogate used>, "plan":
    /// <plan>}`.
    pub doc: Value,
}

/// A query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    /// Nearest first (by the exact ranking key, so distances are
    /// non-decreasing), ties by id.
    pub neighbors: Vec<Neighbor>,
    /// I/O figures.
    pub stats: QueryStats,
    /// Planning documents when [`SearchParams::explain`](super::SearchParams::explain) is set.
    pub explain: Vec<Explain>,
}

impl SearchResult {
    /// The JSON object of query number `i` planned by `planner` — the one
    /// form `warp query` prints and `warp serve` answers:
    /// `{"query", "neighbors": [{"id", "distance"}], "stats": {"probes",
    /// "cache_hits", "shared", "gets", "bytes", "overfetch_bytes", "plan_us",
    /// "planner", "hedges", "refetches", "surrogate"}}`, plus `"explain"` when
    /// planning documents were kept. `surrogate` is `{"fixed_ms",
    /// "per_mib_ms"}` of the payload plan, or `null`.
    pub fn to_json(&self, i: usize, planner: &str) -> Value {
        let s = &self.stats;
        let mut v = json!({
            "query": i,
            "neighbors": self.neighbors.iter().map(|n| json!({"id": n.id, "distance": n.distance})).collect::<Vec<_>>(),
            "stats": {
                "probes": s.probes, "cache_hits": s.cache_hits, "shared": s.shared, "gets": s.io.gets,
                "bytes": s.io.bytes, "overfetch_bytes": s.io.overfetch_bytes,
                "plan_us": s.io.plan_us, "planner": planner,
                "hedges": s.io.hedges, "refetches": s.io.refetches,
                "surrogate": s.surrogate.map(|(f, p)| json!({"fixed_ms": f, "per_mib_ms": p})),
            },
        });
        if !self.explain.is_empty() {
            v["explain"] = self
                .explain
                .iter()
                .map(|e| {
                    let key = if e.stage == "payload" { "lists" } else { "rows" };
                    json!({"stage": e.stage, key: e.items, "instance": e.doc["instance"], "plan": e.doc["plan"]})
                })
                .collect();
        }
        v
    }
}
