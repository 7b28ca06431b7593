//! One row of a benchmark report and the text table of rows.

use serde::Serialize;

/// One row of the report: one (layout, policy, Q, cache size) run.
///
/// [`Default`] is a run with nothing measured yet: the suite fills in the
/// run's identity and [`super::recorder::Recorder::finish`] the figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BenchRow {
    /// Payload layout (reorder method).
    pub layout: String,
    /// Planning policy, as `planner_core::Method`'s `Display` names it.
    pub policy: String,
    /// Query concurrency `Q`.
    pub concurrency: usize,
    /// Expected request parallelism `P` given to the planner (`None`: unbounded).
    pub parallelism: Option<f64>,
    /// Payload cache as asked for (`0`, `10%`, `50%`, `all` or MiB).
    pub cache: String,
    /// Payload cache capacity, bytes (0: no cache).
    pub cache_bytes: u64,
    /// Warm-up queries run before measuring (not counted below).
    pub warmup: usize,
    /// Queries measured: answered ones (failed queries are in
    /// [`errors`](Self::errors), not in QPS, latency or the per-query
    /// figures).
    pub queries: usize,
    /// Queries of the run that failed (warm-up included), summed over the
    /// repeats.
    pub errors: usize,
    /// `errors` over the queries the runs issued (warm-up included), in
    /// `[0, 1]`; at most the suite's `max_error_rate` in a finished report.
    pub error_rate: f64,
    /// A failed query's message (the first failure of a repeat), if any
    /// query failed.
    pub first_error: Option<String>,
    /// Lists probed per query.
    pub nprobe: usize,
    /// Queries per second over the measured queries.
    pub qps: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 95th percentile latency, ms.
    pub p95_ms: f64,
    /// 99th percentile latency, ms.
    pub p99_ms: f64,
    /// Remote range GETs per query.
    pub gets_per_query: f64,
    /// Bytes fetched per query.
    pub bytes_per_query: f64,
    /// Gap bytes fetched per query.
    pub overfetch_per_query: f64,
    /// Dollars per million queries: GET charges, hedges included, plus the
    /// transfer of the planned bytes.
    pub dollars_per_million: f64,
    /// Mean planning time, µs.
    pub plan_us: f64,
    /// Hedged GETs per query: second requests for stragglers, each one more
    /// GET charge at the store.
    pub hedges_per_query: f64,
    /// Mean per-MiB term (ms) of the surrogate the planner used, over the
    /// queries that planned a read: the load-aware estimate, or the fixed
    /// surrogate's slope; `None` when no query planned.
    pub surrogate_per_mib_ms: Option<f64>,
    /// Probed lists served by the payload cache, as a fraction of lists
    /// probed (`None` without a cache).
    pub cache_hit_rate: Option<f64>,
    /// Probed lists received from another query's read in flight, as a
    /// fraction of lists probed (`None` when reads were not shared).
    pub shared_rate: Option<f64>,
    /// Recall@10 against the ground truth, when known.
    pub recall_at_10: Option<f64>,
    /// Repeats of the run this row is the median of (by QPS).
    pub repeats: usize,
    /// Lowest QPS over the repeats.
    pub qps_min: f64,
    /// Highest QPS over the repeats.
    pub qps_max: f64,
    /// QPS of each repeat in the order of the rounds (round 0 first). The
    /// rounds interleave every run of one benchmark (`Suite::run`), so
    /// repeat `i` of two rows ran in the same round, seconds apart: the
    /// ratio of their `i`-th entries is a paired comparison, which a slow
    /// change of the machine's load moves far less than it moves either
    /// row's median (`scripts/bench-table --grid` reads it so).
    pub qps_repeats: Vec<f64>,
    /// What the store's load estimator believed at the end of the run
    /// (`None` for a run that planned with a fixed surrogate).
    pub load: Option<LoadRow>,
}

/// The load estimator's state at the end of a run (ARCHITECTURE §8): the
/// prices the load-aware plans were chosen by, so that a row says why
/// `warp` planned as it did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LoadRow {
    /// GETs the estimator observed (warm-up included).
    pub samples: u64,
    /// The last link pressure `π`.
    pub pressure: f64,
    /// The link capacity `C`, MiB/s, once the link was seen full.
    pub capacity_mib_s: Option<f64>,
    /// `f̂`, the mean first byte of the last GETs, ms: how long a GET held
    /// its I/O slot before its body.
    pub first_byte_ms: Option<f64>,
    /// Cores the process used over the CPU meter's window.
    pub cpu_cores_used: f64,
    /// Run-queue share of the sampled threads over that window.
    pub cpu_wait_share: f64,
    /// `κ`, cores available, once the CPU was seen busy.
    pub cpu_cores_available: Option<f64>,
    /// `β`, client CPU per MiB received, ms.
    pub cpu_ms_per_mib: Option<f64>,
    /// `α`, client CPU per GET, ms: `β` times the split measured between
    /// runs (`GET_CPU_IN_MIB` in the planned store's `cpu` module). The
    /// meter's CPU price: among CPU-bound neighbours the plans price a GET
    /// higher, by the share of the loop's cycle the calls queue
    /// (`CpuPrice::queued`; its `warp::plan` trace event "a crowded GET's
    /// price" shows that figure).
    pub cpu_ms_per_get: Option<f64>,
    /// Processes serving the store from this machine whose CPU the CPU
    /// figures include (a loopback endpoint's server); 0 for a remote store.
    pub cpu_server_processes: usize,
    /// GETs in flight averaged over time over the estimator's last window
    /// (Little's law; `LoadSnapshot::held_in_flight`): the I/O slots the
    /// loop held on average, where GETs counted at issue see each call's burst.
    pub held_in_flight: f64,
}

impl LoadRow {
    /// The row of a [`LoadSnapshot`](warp_planned_store::LoadSnapshot).
    /// `O(1)`.
    pub fn of(s: &warp_planned_store::LoadSnapshot) -> Self {
        let price = s.cpu.price;
        Self {
            samples: s.samples,
            pressure: s.pressure,
            capacity_mib_s: s.capacity_mib_s,
            first_byte_ms: s.slot_first_byte_ms,
            cpu_cores_used: s.cpu.cores_used,
            cpu_wait_share: s.cpu.wait_share,
            cpu_cores_available: price.map(|p| p.cores),
            cpu_ms_per_mib: price.map(|p| p.per_mib_ms),
            cpu_ms_per_get: price.map(|p| p.per_get_ms),
            cpu_server_processes: s.cpu.server_processes,
            held_in_flight: s.held_in_flight,
        }
    }
}

impl BenchRow {
    /// The row's series name in tables and plots: the policy, prefixed by the
    /// layout when `layouts > 1`.
    pub fn series(&self, layouts: usize) -> String {
        if layouts > 1 {
            format!("{} / {}", self.policy, self.layout)
        } else {
            self.policy.clone()
        }
    }
}

/// The report as an aligned text table. The cache columns appear only when
/// some row ran with a cache.
pub fn table(rows: &[BenchRow]) -> String {
    let cached = rows.iter().any(|r| r.cache_bytes > 0);
    let shared = rows.iter().any(|r| r.shared_rate.is_some());
    let mut out = format!(
        "{:<14} {:<18} {:>4} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>8} {:>7} {:>7} {:>6}",
        "layout",
        "policy",
        "Q",
        "P",
        "QPS",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "GETs/q",
        "KiB/q",
        "$/1M q",
        "plan µs",
        "R@10",
        "err %"
    );
    out.push_str(&format!(" {:>7} {:>7}", "hedge/q", "ms/MiB"));
    if cached {
        out.push_str(&format!(" {:>10} {:>6}", "cache", "hit %"));
    }
    if shared {
        out.push_str(&format!(" {:>8}", "shared %"));
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!(
            "{:<14} {:<18} {:>4} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.2} {:>10.1} {:>8.3} {:>7.1} {:>7} {:>6.1}",
            r.layout,
            r.policy,
            r.concurrency,
            r.parallelism.map_or("inf".to_string(), |p| format!("{p:.1}")),
            r.qps,
            r.p50_ms,
            r.p95_ms,
            r.p99_ms,
            r.gets_per_query,
            r.bytes_per_query / 1024.0,
            r.dollars_per_million,
            r.plan_us,
            r.recall_at_10.map_or("-".to_string(), |x| format!("{x:.3}")),
            r.error_rate * 100.0,
        ));
        out.push_str(&format!(
            " {:>7.3} {:>7}",
            r.hedges_per_query,
            r.surrogate_per_mib_ms
                .map_or("-".to_string(), |m| format!("{m:.2}"))
        ));
        if cached {
            out.push_str(&format!(
                " {:>10} {:>6}",
                r.cache,
                r.cache_hit_rate
                    .map_or("-".to_string(), |h| format!("{:.1}", h * 100.0))
            ));
        }
        if shared {
            out.push_str(&format!(
                " {:>8}",
                r.shared_rate
                    .map_or("-".to_string(), |h| format!("{:.1}", h * 100.0))
            ));
        }
        out.push('\n');
    }
    out
}
