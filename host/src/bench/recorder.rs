//! Streaming accumulation of one run's figures: memory independent of the
//! number of queries.
//!
//! Latencies go into an HDR histogram ([`hdrhistogram`]) of microseconds
//! with 3 significant digits, so a percentile is exact to within 0.1 % and
//! the histogram's size depends only on its range (1 µs – 1 h: about 40 KiB),
//! not on how many latencies were recorded. Everything else is a running sum;
//! recall is counted as each answer arrives.

use hdrhistogram::Histogram;
use planner_core::Pricing;

use super::row::BenchRow;
use crate::query::SearchResult;
use crate::store::CallStats;

/// The largest latency the histogram resolves, µs (one hour); longer
/// latencies are recorded as one hour.
const MAX_LATENCY_US: u64 = 3_600_000_000;

/// Running figures of one run.
#[derive(Debug)]
pub struct Recorder {
    latency_us: Histogram<u64>,
    queries: u64,
    /// The I/O of every recorded query, summed ([`CallStats::add`]).
    io: CallStats,
    per_mib_sum: f64,
    per_mib_n: u64,
    probes: u64,
    cache_hits: u64,
    shared: u64,
    recall_hits: u64,
    recall_total: u64,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    /// An empty recorder.
    pub fn new() -> Self {
        Self {
            latency_us: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .expect("constant histogram bounds are valid"),
            queries: 0,
            io: CallStats::default(),
            per_mib_sum: 0.0,
            per_mib_n: 0,
            probes: 0,
            cache_hits: 0,
            shared: 0,
            recall_hits: 0,
            recall_total: 0,
        }
    }

    /// Records one answered query that took `latency_us`; `truth` is its
    /// ground truth (the first ten ids are used for recall@10). `O(k)` time,
    /// no allocation.
    pub fn record(&mut self, latency_us: u64, r: &SearchResult, truth: Option<&[i32]>) {
        self.latency_us
            .saturating_record(latency_us.clamp(1, MAX_LATENCY_US));
        self.queries += 1;
        self.io.add(&r.stats.io);
        if let Some((_, per_mib)) = r.stats.surrogate {
            self.per_mib_sum += per_mib;
            self.per_mib_n += 1;
        }
        self.probes += r.stats.probes as u64;
        self.cache_hits += r.stats.cache_hits as u64;
        self.shared += r.stats.shared as u64;
        if let Some(truth) = truth {
            let (hits, total) = recall_at_10(r.neighbors.iter().map(|n| u64::from(n.id)), truth);
            self.recall_hits += hits;
            self.recall_total += total;
        }
    }

    /// Queries recorded.
    pub fn len(&self) -> u64 {
        self.queries
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.queries == 0
    }

    /// The latency at percentile `p` (0–100), ms; 0 when empty.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        if self.is_empty() {
            return 0.0;
        }
        self.latency_us.value_at_quantile(p / 100.0) as f64 / 1000.0
    }

    /// The row for these figures. `row` carries the run's identity (layout,
    /// policy, Q, P, cache, nprobe, and `shared_rate` `Some` when reads were
    /// shared); the measured fields are filled in from the recorded queries
    /// over `elapsed_s` seconds.
    pub fn finish(&self, mut row: BenchRow, elapsed_s: f64, pricing: Pricing) -> BenchRow {
        let n = self.queries.max(1) as f64;
        row.queries = self.queries as usize;
        row.qps = self.queries as f64 / elapsed_s.max(1e-9);
        row.p50_ms = self.percentile_ms(50.0);
        row.p95_ms = self.percentile_ms(95.0);
        row.p99_ms = self.percentile_ms(99.0);
        let io = &self.io;
        row.gets_per_query = io.gets as f64 / n;
        row.bytes_per_query = io.bytes as f64 / n;
        row.overfetch_per_query = io.overfetch_bytes as f64 / n;
        // A hedge is one more GET charge; its bytes repeat a planned range's
        // (no transfer charge in-region, the default pricing).
        row.dollars_per_million =
            pricing.dollars((io.gets + io.hedges) as usize, io.bytes) / n * 1e6;
        row.plan_us = io.plan_us as f64 / n;
        row.hedges_per_query = io.hedges as f64 / n;
        row.surrogate_per_mib_ms =
            (self.per_mib_n > 0).then(|| self.per_mib_sum / self.per_mib_n as f64);
        row.cache_hit_rate =
            (row.cache_bytes > 0).then(|| self.cache_hits as f64 / self.probes.max(1) as f64);
        row.shared_rate = row
            .shared_rate
            .map(|_| self.shared as f64 / self.probes.max(1) as f64);
        row.recall_at_10 =
            (self.recall_total > 0).then(|| self.recall_hits as f64 / self.recall_total as f64);
        row
    }
}

/// Recall@10 of one answer as counts: of the first ten ground-truth ids
/// (fewer when the row is shorter), how many are among the answer's first
/// ten ids, and how many were looked for. `warp bench` and `warp load`
/// count alike. `O(10 · 10)`, no allocation.
pub(super) fn recall_at_10(answer: impl IntoIterator<Item = u64>, truth: &[i32]) -> (u64, u64) {
    let truth = &truth[..truth.len().min(10)];
    let hits = answer
        .into_iter()
        .take(10)
        .filter(|&id| i32::try_from(id).is_ok_and(|id| truth.contains(&id)))
        .count() as u64;
    (hits, truth.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::{Neighbor, QueryStats};

    fn result(ids: &[u32], gets: u64, hits: usize) -> SearchResult {
        let shared = 4 - hits.min(4);
        SearchResult {
            neighbors: ids
                .iter()
                .map(|&id| Neighbor { id, distance: 0.0 })
                .collect(),
            stats: QueryStats {
                probes: 4,
                cache_hits: hits,
                shared,
                io: CallStats {
                    gets,
                    bytes: 1000,
                    overfetch_bytes: 10,
                    plan_us: 5,
                    ..CallStats::default()
                },
                ..QueryStats::default()
            },
            explain: Vec::new(),
        }
    }

    #[test]
    fn percentiles_sums_and_recall_stream() {
        let mut r = Recorder::new();
        for ms in 1..=100u64 {
            r.record(ms * 1000, &result(&[1, 2, 3], 2, 1), Some(&[1, 9, 3, 8]));
        }
        assert_eq!(r.len(), 100);
        // 3 significant digits: within 0.1 %.
        assert!(
            (r.percentile_ms(50.0) - 50.0).abs() <= 0.05,
            "{}",
            r.percentile_ms(50.0)
        );
        assert!((r.percentile_ms(99.0) - 99.0).abs() <= 0.1);
        let row = BenchRow {
            layout: "identity".into(),
            policy: "warp".into(),
            concurrency: 1,
            cache: "10%".into(),
            cache_bytes: 1,
            nprobe: 4,
            shared_rate: Some(0.0),
            ..BenchRow::default()
        };
        let row = r.finish(row, 2.0, Pricing::default());
        // Three of four probed lists came from other queries' reads.
        assert_eq!(row.shared_rate, Some(0.75));
        assert_eq!(row.queries, 100);
        assert_eq!(row.qps, 50.0);
        assert_eq!(row.gets_per_query, 2.0);
        assert_eq!(row.cache_hit_rate, Some(0.25));
        // Two of the four true ids found.
        assert_eq!(row.recall_at_10, Some(0.5));
        assert_eq!(Recorder::new().percentile_ms(50.0), 0.0);
    }

    #[test]
    fn hedges_are_charged_as_gets() {
        let mut r = Recorder::new();
        let mut hedged = result(&[1], 4, 0);
        hedged.stats.io.hedges = 1;
        r.record(1000, &hedged, None);
        r.record(1000, &result(&[1], 4, 0), None);
        let row = r.finish(BenchRow::default(), 1.0, Pricing::default());
        assert_eq!(row.hedges_per_query, 0.5);
        // 9 charged requests over 2 queries at $0.0004 per 1000.
        let want = 9.0 * 0.0004 / 1000.0 / 2.0 * 1e6;
        assert!((row.dollars_per_million - want).abs() < 1e-9, "{row:?}");
    }

    #[test]
    fn histogram_size_does_not_grow_with_queries() {
        let mut r = Recorder::new();
        let before = r.latency_us.distinct_values();
        for i in 0..200_000u64 {
            r.record(1 + i % 5_000_000, &result(&[1], 1, 0), None);
        }
        assert_eq!(r.latency_us.distinct_values(), before);
    }
}
