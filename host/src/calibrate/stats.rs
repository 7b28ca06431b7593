//! Per-size summaries of measured latencies.

use serde::Serialize;

use super::{Batch, Sample};

/// The `q`-quantile (`0 ≤ q ≤ 1`) of sorted values by linear interpolation
/// between closest ranks (`q = 0.5` is the usual median); `NaN` when empty.
///
/// # Complexity
/// `O(1)`; the input must be sorted.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let pos = q.clamp(0.0, 1.0) * (n - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
        }
    }
}

/// Latency summary of the GETs of one size at one concurrency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeStats {
    /// Request length, bytes.
    pub bytes: u64,
    /// GETs in flight at once.
    pub concurrency: usize,
    /// GETs measured.
    pub gets: usize,
    /// Median latency, ms.
    pub median_ms: f64,
    /// 90th percentile, ms.
    pub p90_ms: f64,
    /// Fastest, ms.
    pub min_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// Bytes of the batch over its wall time, MiB/s (what all concurrent GETs
    /// of this size got together); `None` without a batch record.
    pub aggregate_mib_s: Option<f64>,
}

/// Groups samples by `(concurrency, bytes)` (sorted that way) and summarizes
/// each group; `batches` supply the aggregate throughput.
///
/// # Complexity
/// `O(s log s)` for `s` samples.
pub fn summarize(samples: &[Sample], batches: &[Batch]) -> Vec<SizeStats> {
    let mut sorted: Vec<&Sample> = samples.iter().collect();
    sorted.sort_by(|a, b| {
        (a.concurrency, a.bytes)
            .cmp(&(b.concurrency, b.bytes))
            .then(a.ms.total_cmp(&b.ms))
    });
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let key = (sorted[i].concurrency, sorted[i].bytes);
        let mut j = i;
        while j < sorted.len() && (sorted[j].concurrency, sorted[j].bytes) == key {
            j += 1;
        }
        let ms: Vec<f64> = sorted[i..j].iter().map(|s| s.ms).collect();
        let aggregate_mib_s = batches
            .iter()
            .find(|b| (b.concurrency, b.bytes) == key && b.wall_ms > 0.0)
            .map(|b| b.gets as f64 * b.bytes as f64 / 1_048_576.0 / (b.wall_ms / 1000.0));
        out.push(SizeStats {
            bytes: key.1,
            concurrency: key.0,
            gets: ms.len(),
            median_ms: percentile(&ms, 0.5),
            p90_ms: percentile(&ms, 0.9),
            min_ms: ms[0],
            max_ms: ms[ms.len() - 1],
            aggregate_mib_s,
        });
        i = j;
    }
    out
}
