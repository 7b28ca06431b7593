//! `GET /metrics`: the Prometheus text exposition (`prometheus-client`).
//!
//! Per request: `warp_http_requests_total{route,status}` and
//! `warp_http_request_duration_seconds{route}`. Per query:
//! `warp_queries_total{outcome}`, `warp_query_duration_seconds`,
//! `warp_plan_duration_seconds`, `warp_cache_lookups_total`,
//! `warp_cache_hits_total` (their ratio is the hit ratio),
//! `warp_shared_lists_total` (lists received from another query's read in
//! flight). Admission:
//! `warp_queries_in_flight`, `warp_queries_waiting`, `warp_rejected_total`
//! (every `503 busy`: no query slot, or no room in the request-body bound),
//! and `warp_request_body_bytes_buffered` (bytes of request bodies held
//! now, out of `--max-buffered-body-bytes`).
//! The shared planned store, sampled at each scrape: `warp_store_gets_total`,
//! `_bytes_total`, `_overfetch_bytes_total`, `_hedges_total`,
//! `_hedges_won_total`, `_refetches_total`, `_stalls_total`,
//! `_deadline_misses_total`, and the load estimate's
//! `warp_link_capacity_mib_per_second` (0 while unknown),
//! `warp_link_pressure`, and the client CPU's `warp_cpu_cores_used`,
//! `warp_cpu_wait_share`, `warp_cpu_cores_available` (`κ`, 0 while the CPU
//! has not been seen busy), `warp_cpu_ms_per_mib` and `warp_cpu_ms_per_get`
//! (the marginal prices of the closed loop's CPU term), and
//! `warp_cpu_server_processes` (the processes of a store served from this
//! machine whose CPU the meter counts; 0 for a remote store or while that
//! server is lost).
//! `warp_index_generation_info{generation}` is 1 for
//! the generation served; `warp_index_swaps_total` counts hot swaps,
//! `warp_index_open_failures_total` the checks whose changed manifest did
//! not open and `warp_manifest_check_failures_total` the manifest `HEAD`s
//! that failed (each logged once, counted every time).

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use super::generation::Watched;
use crate::query::QueryStats;
use crate::store::{CallStats, LoadSnapshot, StatsSnapshot};

/// `route` and `status` of a request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// The route (`/v1/search`, …; `other` for unknown paths).
    pub route: String,
    /// The HTTP status.
    pub status: u16,
}

/// `route` of a request.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabel {
    /// The route.
    pub route: String,
}

/// How a query ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabel {
    /// `ok`, `deadline` or `error`.
    pub outcome: String,
}

/// The generation served.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct GenerationLabel {
    /// The manifest's build id.
    pub generation: String,
}

/// Store counters sampled from a [`StatsSnapshot`].
#[derive(Debug, Default)]
struct StoreCounters {
    gets: Counter,
    bytes: Counter,
    overfetch: Counter,
    hedges: Counter,
    hedges_won: Counter,
    refetches: Counter,
    stalls: Counter,
    deadline_misses: Counter,
}

/// Every metric of the server.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Family<RouteLabel, Histogram>,
    queries: Family<OutcomeLabel, Counter>,
    query_seconds: Histogram,
    plan_seconds: Histogram,
    cache_lookups: Counter,
    cache_hits: Counter,
    shared: Counter,
    in_flight: Gauge,
    waiting: Gauge,
    buffered: Gauge,
    rejected: Counter,
    swaps: Counter,
    open_failures: Counter,
    check_failures: Counter,
    generation: Family<GenerationLabel, Gauge>,
    store: StoreCounters,
    capacity: Gauge<f64, AtomicU64>,
    pressure: Gauge<f64, AtomicU64>,
    /// cores used, wait share, `κ`, ms per MiB, ms per GET, server processes.
    cpu: [Gauge<f64, AtomicU64>; 6],
    /// The store totals last added (generation, totals): the next scrape
    /// adds what grew since.
    seen: Mutex<(Option<u64>, CallStats)>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Registers every metric.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "warp_http_requests",
            "HTTP requests by route and status",
            requests.clone(),
        );
        let request_seconds = Family::<RouteLabel, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.0005, 2.0, 18))
        });
        registry.register(
            "warp_http_request_duration_seconds",
            "HTTP request latency by route, from the request line to the response",
            request_seconds.clone(),
        );
        let queries = Family::<OutcomeLabel, Counter>::default();
        registry.register(
            "warp_queries",
            "Queries answered, by outcome",
            queries.clone(),
        );
        let query_seconds = Histogram::new(exponential_buckets(0.0005, 2.0, 18));
        registry.register(
            "warp_query_duration_seconds",
            "Latency of one query (route, plan, fetch, scan)",
            query_seconds.clone(),
        );
        let plan_seconds = Histogram::new(exponential_buckets(0.000_001, 2.0, 22));
        registry.register(
            "warp_plan_duration_seconds",
            "Planning time of one query's reads",
            plan_seconds.clone(),
        );
        let cache_lookups = Counter::default();
        registry.register(
            "warp_cache_lookups",
            "Probed lists looked up in the payload cache",
            cache_lookups.clone(),
        );
        let cache_hits = Counter::default();
        registry.register(
            "warp_cache_hits",
            "Probed lists served from the payload cache",
            cache_hits.clone(),
        );
        let shared = Counter::default();
        registry.register(
            "warp_shared_lists",
            "Probed lists received from another query's read in flight (fetched once for both)",
            shared.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "warp_queries_in_flight",
            "Queries running now (P = io_slots / max(1, in flight))",
            in_flight.clone(),
        );
        let waiting = Gauge::default();
        registry.register(
            "warp_queries_waiting",
            "Requests waiting for a query slot",
            waiting.clone(),
        );
        let buffered = Gauge::default();
        registry.register(
            "warp_request_body_bytes_buffered",
            "Bytes of request bodies held now (bounded by --max-buffered-body-bytes)",
            buffered.clone(),
        );
        let rejected = Counter::default();
        registry.register(
            "warp_rejected",
            "Requests refused with 503 busy (query queue full, wait bound passed, or no room in the request-body bound)",
            rejected.clone(),
        );
        let swaps = Counter::default();
        registry.register(
            "warp_index_swaps",
            "Hot swaps to a rebuilt index generation",
            swaps.clone(),
        );
        let open_failures = Counter::default();
        registry.register(
            "warp_index_open_failures",
            "Manifest checks whose changed manifest did not open (the current generation kept serving)",
            open_failures.clone(),
        );
        let check_failures = Counter::default();
        registry.register(
            "warp_manifest_check_failures",
            "Manifest checks whose HEAD failed",
            check_failures.clone(),
        );
        let generation = Family::<GenerationLabel, Gauge>::default();
        registry.register(
            "warp_index_generation_info",
            "1 for the index generation served",
            generation.clone(),
        );
        let store = StoreCounters::default();
        for (name, help, c) in [
            ("warp_store_gets", "Planned range GETs", &store.gets),
            (
                "warp_store_bytes",
                "Bytes of the planned GETs",
                &store.bytes,
            ),
            (
                "warp_store_overfetch_bytes",
                "Gap bytes fetched beyond the requested ranges",
                &store.overfetch,
            ),
            ("warp_store_hedges", "Hedge GETs issued", &store.hedges),
            (
                "warp_store_hedges_won",
                "Hedge GETs that answered first",
                &store.hedges_won,
            ),
            (
                "warp_store_refetches",
                "Ranges fetched again (stall, wrong range, checksum)",
                &store.refetches,
            ),
            (
                "warp_store_stalls",
                "GETs abandoned for making no progress",
                &store.stalls,
            ),
            (
                "warp_store_deadline_misses",
                "Planned reads stopped at their deadline",
                &store.deadline_misses,
            ),
        ] {
            registry.register(name, help, c.clone());
        }
        let capacity = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "warp_link_capacity_mib_per_second",
            "The load estimate's link capacity C (0 while the link has not been seen full)",
            capacity.clone(),
        );
        let pressure = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "warp_link_pressure",
            "The load estimate's last measured pressure",
            pressure.clone(),
        );
        let cpu: [Gauge<f64, AtomicU64>; 6] = Default::default();
        for (g, (name, help)) in cpu.iter().zip([
            ("warp_cpu_cores_used", "Cores the process used over the CPU meter's window"),
            ("warp_cpu_wait_share", "Share of their runnable time the completing threads waited for a core"),
            ("warp_cpu_cores_available", "The cores the closed loop's CPU term divides by (0 while the CPU has not been seen busy)"),
            ("warp_cpu_ms_per_mib", "CPU ms a received MiB costs (0 while unpriced)"),
            ("warp_cpu_ms_per_get", "CPU ms a GET costs (0 while unpriced)"),
            ("warp_cpu_server_processes", "Processes of the store's server on this machine whose CPU the meter counts (0: a remote store, or the server lost)"),
        ]) {
            registry.register(name, help, g.clone());
        }
        Self {
            registry,
            requests,
            request_seconds,
            queries,
            query_seconds,
            plan_seconds,
            cache_lookups,
            cache_hits,
            shared,
            in_flight,
            waiting,
            buffered,
            rejected,
            swaps,
            open_failures,
            check_failures,
            generation,
            store,
            capacity,
            pressure,
            cpu,
            seen: Mutex::new((None, CallStats::default())),
        }
    }

    /// One request answered.
    pub fn request(&self, route: &str, status: u16, seconds: f64) {
        self.requests
            .get_or_create(&RequestLabels {
                route: route.to_string(),
                status,
            })
            .inc();
        self.request_seconds
            .get_or_create(&RouteLabel {
                route: route.to_string(),
            })
            .observe(seconds);
    }

    /// One query finished with `outcome` after `seconds`.
    pub fn query(&self, outcome: &str, seconds: f64, stats: Option<&QueryStats>) {
        self.queries
            .get_or_create(&OutcomeLabel {
                outcome: outcome.to_string(),
            })
            .inc();
        self.query_seconds.observe(seconds);
        if let Some(s) = stats {
            self.plan_seconds.observe(s.io.plan_us as f64 * 1e-6);
            self.cache_lookups.inc_by(s.probes as u64);
            self.cache_hits.inc_by(s.cache_hits as u64);
            self.shared.inc_by(s.shared as u64);
        }
    }

    /// A request refused with `503 busy`: by admission, or by the
    /// request-body bound.
    pub fn rejected(&self) {
        self.rejected.inc();
    }

    /// What the manifest watch saw: a swap or a failure.
    pub fn watched(&self, event: &Watched<'_>) {
        match event {
            Watched::Swapped(_) => self.swaps.inc(),
            Watched::OpenFailed => self.open_failures.inc(),
            Watched::CheckFailed => self.check_failures.inc(),
        };
    }

    /// The text exposition, after sampling the admission gauges, the
    /// request-body bytes held, and the store's totals and load estimate of
    /// `generation`, the `opened`th this process opened
    /// (`Generation::opened`): the store counters grow by what the store
    /// counted since the last sample of the same store, or by all it
    /// counted when another was sampled last (a new generation's store
    /// counts from zero, whatever its build id).
    #[allow(clippy::too_many_arguments)]
    pub fn render(
        &self,
        generation: &str,
        opened: u64,
        in_flight: usize,
        waiting: usize,
        buffered_body_bytes: usize,
        store: &StatsSnapshot,
        load: &LoadSnapshot,
    ) -> String {
        self.in_flight.set(in_flight as i64);
        self.waiting.set(waiting as i64);
        self.buffered
            .set(i64::try_from(buffered_body_bytes).unwrap_or(i64::MAX));
        self.generation.clear();
        self.generation
            .get_or_create(&GenerationLabel {
                generation: generation.to_string(),
            })
            .set(1);
        {
            let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            if seen.0 != Some(opened) {
                // Another generation's store, which counts from zero: a
                // manifest rewritten with the same build id is one too.
                *seen = (Some(opened), CallStats::default());
            }
            let (now, was) = (&store.totals, &seen.1);
            let grow = |c: &Counter, n: u64, w: u64| {
                c.inc_by(n.saturating_sub(w));
            };
            let s = &self.store;
            grow(&s.gets, now.gets, was.gets);
            grow(&s.bytes, now.bytes, was.bytes);
            grow(&s.overfetch, now.overfetch_bytes, was.overfetch_bytes);
            grow(&s.hedges, now.hedges, was.hedges);
            grow(&s.hedges_won, now.hedges_won, was.hedges_won);
            grow(&s.refetches, now.refetches, was.refetches);
            grow(&s.stalls, now.stalls, was.stalls);
            grow(&s.deadline_misses, now.deadline_misses, was.deadline_misses);
            seen.1 = *now;
        }
        self.capacity.set(load.capacity_mib_s.unwrap_or(0.0));
        self.pressure.set(load.pressure);
        let price = load.cpu.price;
        for (g, v) in self.cpu.iter().zip([
            load.cpu.cores_used,
            load.cpu.wait_share,
            price.map_or(0.0, |p| p.cores),
            price.map_or(0.0, |p| p.per_mib_ms),
            price.map_or(0.0, |p| p.per_get_ms),
            load.cpu.server_processes as f64,
        ]) {
            g.set(v);
        }
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gets_total(text: &str) -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix("warp_store_gets_total "))
            .and_then(|v| v.trim().parse().ok())
            .expect("warp_store_gets_total")
    }

    fn with_gets(gets: u64) -> StatsSnapshot {
        StatsSnapshot {
            totals: CallStats {
                gets,
                ..CallStats::default()
            },
            ..StatsSnapshot::default()
        }
    }

    #[test]
    fn a_reopened_generation_with_the_same_build_id_is_counted_from_zero() {
        let m = Metrics::new();
        let load = LoadSnapshot::default();
        let render =
            |opened, gets| gets_total(&m.render("b1", opened, 0, 0, 0, &with_gets(gets), &load));
        assert_eq!(render(0, 100), 100.0);
        assert_eq!(render(0, 150), 150.0);
        // The manifest rewritten with the same build: a new store, from 0.
        assert_eq!(render(1, 40), 190.0);
        assert_eq!(render(1, 60), 210.0);
        // Another build, its store from 0 too.
        assert_eq!(
            gets_total(&m.render("b2", 2, 0, 0, 0, &with_gets(5), &load)),
            215.0
        );
    }
}
