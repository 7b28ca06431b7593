//! `warp bench`: run a workload at query concurrency `Q` under each policy
//! and report QPS, latency percentiles, GETs, bytes, dollars and recall.
//!
//! Every policy must return the same neighbours for every query; a
//! difference is an [`Error::ResultMismatch`].

use std::sync::Arc;
use std::time::Instant;

use planner_core::Pricing;
use serde::Serialize;
use tokio::sync::Semaphore;

use crate::error::{Error, Result};
use crate::query::{SearchParams, Searcher, policy_name};

/// One row of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// Payload layout (reorder method).
    pub layout: String,
    /// Planning policy.
    pub policy: String,
    /// Query concurrency `Q`.
    pub concurrency: usize,
    /// Expected request parallelism `P` given to the planner.
    pub parallelism: Option<f64>,
    /// Queries run.
    pub queries: usize,
    /// Lists probed per query.
    pub nprobe: usize,
    /// Queries per second.
    pub qps: f64,
    /// Latency percentiles, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Range GETs per query.
    pub gets_per_query: f64,
    /// Bytes fetched per query.
    pub bytes_per_query: f64,
    /// Gap bytes fetched per query.
    pub overfetch_per_query: f64,
    /// Dollars per million queries (GET charges plus transfer).
    pub dollars_per_million: f64,
    /// Mean planning time, µs.
    pub plan_us: f64,
    /// Recall@10 against the ground truth, when known.
    pub recall_at_10: Option<f64>,
}

/// The neighbour ids of every query of a run, for cross-policy checks.
pub type Answers = Vec<Vec<u32>>;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Runs `n` queries (cycling through `queries`) with at most `concurrency`
/// in flight, all with `params`.
///
/// # Errors
/// The first failing query's error.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    searcher: Arc<Searcher>,
    layout: &str,
    queries: Arc<Vec<f32>>,
    groundtruth: Option<(&[i32], usize)>,
    params: &SearchParams,
    concurrency: usize,
    n: usize,
    pricing: Pricing,
) -> Result<(BenchRow, Answers)> {
    let dim = searcher.index().manifest.dim;
    let nq = queries.len() / dim.max(1);
    if nq == 0 || n == 0 || concurrency == 0 {
        return Err(Error::input(format!(
            "bench needs queries (have {nq}), N >= 1 (got {n}) and Q >= 1 (got {concurrency})"
        )));
    }
    let gate = Arc::new(Semaphore::new(concurrency));
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    for i in 0..n {
        let permit = Arc::clone(&gate)
            .acquire_owned()
            .await
            .expect("semaphore never closed");
        let (s, qs, p) = (Arc::clone(&searcher), Arc::clone(&queries), params.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = permit;
            let qi = i % nq;
            let t = Instant::now();
            let r = s.search(&qs[qi * dim..(qi + 1) * dim], &p).await;
            r.map(|r| (t.elapsed().as_secs_f64() * 1000.0, r))
        }));
    }
    let mut latencies = Vec::with_capacity(n);
    let mut answers = Vec::with_capacity(n);
    let (mut gets, mut bytes, mut over, mut plan_us) = (0u64, 0u64, 0u64, 0u64);
    let (mut hits, mut recall_n) = (0usize, 0usize);
    for (i, t) in tasks.into_iter().enumerate() {
        let (ms, r) = t
            .await
            .map_err(|e| Error::input(format!("query task failed: {e}")))??;
        latencies.push(ms);
        gets += r.stats.gets as u64;
        bytes += r.stats.bytes;
        over += r.stats.overfetch_bytes;
        plan_us += r.stats.plan_us;
        let ids: Vec<u32> = r.neighbors.iter().map(|x| x.id).collect();
        if let Some((gt, k)) = groundtruth {
            let qi = i % nq;
            let truth = &gt[qi * k..qi * k + k.min(10)];
            hits += ids
                .iter()
                .take(10)
                .filter(|id| truth.contains(&(**id as i32)))
                .count();
            recall_n += truth.len();
        }
        answers.push(ids);
    }
    let elapsed = start.elapsed().as_secs_f64();
    latencies.sort_by(f64::total_cmp);
    let nf = n as f64;
    let row = BenchRow {
        layout: layout.to_string(),
        policy: policy_name(&params.method),
        concurrency,
        parallelism: params.parallelism,
        queries: n,
        nprobe: params.nprobe,
        qps: nf / elapsed,
        p50_ms: percentile(&latencies, 50.0),
        p95_ms: percentile(&latencies, 95.0),
        p99_ms: percentile(&latencies, 99.0),
        gets_per_query: gets as f64 / nf,
        bytes_per_query: bytes as f64 / nf,
        overfetch_per_query: over as f64 / nf,
        dollars_per_million: pricing.dollars(gets as usize, bytes) / nf * 1e6,
        plan_us: plan_us as f64 / nf,
        recall_at_10: (recall_n > 0).then(|| hits as f64 / recall_n as f64),
    };
    Ok((row, answers))
}

/// Fails unless `answers` equals `reference` query by query.
///
/// # Errors
/// [`Error::ResultMismatch`] naming both policies and the first query.
pub fn check_identical(reference: (&str, &Answers), other: (&str, &Answers)) -> Result<()> {
    if let Some(q) = reference
        .1
        .iter()
        .zip(other.1)
        .position(|(a, b)| a != b)
        .or_else(|| (reference.1.len() != other.1.len()).then_some(0))
    {
        return Err(Error::ResultMismatch {
            reference: reference.0.to_string(),
            policy: other.0.to_string(),
            query: q,
        });
    }
    Ok(())
}

/// The report as an aligned text table.
pub fn table(rows: &[BenchRow]) -> String {
    let mut out = format!(
        "{:<14} {:<16} {:>4} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10} {:>8} {:>7} {:>7}\n",
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
        "R@10"
    );
    for r in rows {
        out.push_str(&format!(
            "{:<14} {:<16} {:>4} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.2} {:>10.1} {:>8.3} {:>7.1} {:>7}\n",
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
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_identity_checks() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 50.0);
        assert_eq!(percentile(&v, 99.0), 99.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        let a: Answers = vec![vec![1, 2], vec![3, 4]];
        let b: Answers = vec![vec![1, 2], vec![4, 3]];
        assert!(check_identical(("lance", &a), ("warp", &a)).is_ok());
        let e = check_identical(("lance", &a), ("warp", &b)).unwrap_err();
        assert!(matches!(e, Error::ResultMismatch { query: 1, .. }), "{e}");
        assert!(e.to_string().contains("planning must never change answers"));
    }
}
