//! The one "run every policy, check identical answers" loop behind `warp
//! bench` and `warp demo`.
//!
//! A [`Suite`] is a list of [`RunSpec`]s (layout, policy, Q, cache size) over
//! one or more [`Target`] indexes. Each run gets a fresh [`Searcher`] (an
//! empty payload cache of its size, its own planner pool), runs its warm-up
//! queries, then its measured queries with at most `Q` in flight, and feeds
//! every answer to the [`AnswerBook`] of its search (`nprobe`, `k`,
//! `rerank`: what decides the answer; a sweep over `nprobe` has one book per
//! value): the first run to answer a query sets its reference, and any run
//! that answers it differently stops the suite with
//! [`Error::ResultMismatch`].
//!
//! # Failed queries
//! A query that fails (a store error, a checksum still wrong after its
//! re-fetch, a deadline) does not stop the run: it is counted in the row's
//! [`errors`](BenchRow::errors) and left out of its latency, QPS and answer
//! check, and measuring goes on. The run stops with
//! [`Error::TooManyFailures`] only once its failures exceed
//! `⌊max_error_rate · (warmup + queries)⌋` — the run's error rate is then
//! over the bound whatever its remaining queries do, so nothing more is
//! spent on it.
//!
//! # Memory
//! Bounded independently of the number of queries: at most `Q` queries are in
//! flight (a [`JoinSet`] that is topped up as answers arrive, so finished
//! tasks are freed at once); each answer is folded into a [`Recorder`]
//! (histogram + sums) and checked against the book (one answer per distinct
//! stored query) and then dropped.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

use planner_core::Pricing;
use tokio::task::JoinSet;

use super::answers::AnswerBook;
use super::cache::CacheSize;
use super::recorder::Recorder;
use super::row::{BenchRow, LoadRow};
use crate::error::{Error, Result};
use crate::query::{BackendFactory, Index, SearchParams, SearchResult, Searcher};

/// The queries every run draws from.
#[derive(Debug, Clone)]
pub struct Workload {
    /// Query vectors, `nq × dim`, row-major.
    pub queries: Arc<Vec<f32>>,
    /// Dimension of the queries.
    pub dim: usize,
    /// Ground-truth ids, `nq × k`, and `k`, when known (for recall@10).
    pub groundtruth: Option<(Arc<Vec<i32>>, usize)>,
    /// Warm-up queries per run (not measured): queries `0..warmup` of the
    /// cycle.
    pub warmup: usize,
    /// Measured queries per run: queries `warmup..warmup + queries`, query
    /// `i` being stored query `i mod nq`.
    pub queries_per_run: usize,
    /// Prices for the dollars column.
    pub pricing: Pricing,
    /// Times each run is repeated (each with a fresh searcher, warm-up
    /// included), `>= 1`, in interleaved rounds of all runs, every other
    /// round backwards ([`Suite::run`]). The row reported is the repeat of median QPS, with
    /// the spread of all repeats in [`BenchRow::qps_min`] and
    /// [`BenchRow::qps_max`]: on a store with a latency tail (the simulator's
    /// default) one short run of a high-QPS cell varies by ±5 %.
    pub repeats: usize,
}

impl Workload {
    /// Number of distinct stored queries.
    pub fn nq(&self) -> usize {
        self.queries.len() / self.dim.max(1)
    }

    fn truth(&self, qi: usize) -> Option<&[i32]> {
        self.groundtruth
            .as_ref()
            .and_then(|(g, k)| g.get(qi * k..(qi + 1) * k))
    }
}

/// One index to run on: its payload layout name and the opened index.
#[derive(Debug, Clone)]
pub struct Target {
    /// The layout (reorder method) name shown in rows.
    pub layout: String,
    /// The opened index (its store may be simulated).
    pub index: Arc<Index>,
}

/// One run: which target, which parameters (policy, P, nprobe…), Q and the
/// cache size.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Index into [`Suite::targets`].
    pub target: usize,
    /// Search parameters; `method` is the policy.
    pub params: SearchParams,
    /// Query concurrency `Q` (≥ 1).
    pub concurrency: usize,
    /// Payload cache size of this run (a fresh, empty cache).
    pub cache: CacheSize,
}

/// A benchmark: runs over targets, sharing one identity check.
pub struct Suite {
    /// The indexes.
    pub targets: Vec<Target>,
    /// The runs, in order.
    pub runs: Vec<RunSpec>,
    /// The queries.
    pub workload: Workload,
    /// Global limit on concurrent GETs of each run's searcher.
    pub io_slots: usize,
    /// Makes the planners of each run's pool.
    pub factory: BackendFactory,
    /// How every run's searcher reads (hedging, deadline, stall timeout,
    /// load-aware surrogate).
    pub read: crate::query::ReadConfig,
    /// The largest fraction of a run's queries (warm-up included) that may
    /// fail, in `[0, 1]` ([`DEFAULT_MAX_ERROR_RATE`] for `warp bench`).
    pub max_error_rate: f64,
}

/// `warp bench --max-error-rate` by default: 1 % of a run's queries may
/// fail (a store answering wrongly or not at all on more than that is
/// broken, not slow).
pub const DEFAULT_MAX_ERROR_RATE: f64 = 0.01;

impl std::fmt::Debug for Suite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Suite")
            .field("targets", &self.targets)
            .field("runs", &self.runs)
            .field("workload", &self.workload)
            .field("io_slots", &self.io_slots)
            .field("factory", &"<planner factory>")
            .field("read", &self.read)
            .field("max_error_rate", &self.max_error_rate)
            .finish()
    }
}

impl Suite {
    /// Runs every run [`Workload::repeats`] times in interleaved rounds, the
    /// order reversed every other round (`round_order`), and returns one row
    /// per run in the runs' order: the repeat of median QPS. `progress` is
    /// called with each row as its last repeat finishes (in the last round's
    /// order). `O(runs · repeats)` repeats, each a full run.
    ///
    /// # Errors
    /// [`Error::Input`] for an empty workload, a Q of 0 or a target index out
    /// of range, [`Error::Config`] for a `max_error_rate` outside `[0, 1]`;
    /// [`Error::TooManyFailures`] when a run's failed queries exceed the
    /// bound; [`Error::ResultMismatch`] when a run answers a query
    /// differently from the first run that answered it with the same
    /// `nprobe`, `k` and `rerank`.
    pub async fn run(&self, mut progress: impl FnMut(&BenchRow)) -> Result<Vec<BenchRow>> {
        let w = &self.workload;
        let nq = w.nq();
        if nq == 0 || w.queries_per_run == 0 {
            return Err(Error::input(format!(
                "bench needs stored queries (have {nq}) and at least one query per run (got {})",
                w.queries_per_run
            )));
        }
        if w.repeats == 0 {
            return Err(Error::config("--repeat", 0, "must be >= 1"));
        }
        if !(0.0..=1.0).contains(&self.max_error_rate) {
            return Err(Error::config(
                "--max-error-rate",
                self.max_error_rate,
                "must be in [0, 1]",
            ));
        }
        // Every run is checked before any of them starts.
        for spec in &self.runs {
            if spec.target >= self.targets.len() {
                return Err(Error::input(format!(
                    "run names target {} of {}",
                    spec.target,
                    self.targets.len()
                )));
            }
            if spec.concurrency == 0 {
                return Err(Error::config("--concurrency", 0, "must be >= 1"));
            }
        }
        let mut books: BTreeMap<(usize, usize, usize), AnswerBook> = BTreeMap::new();
        let mut repeats: Vec<Vec<BenchRow>> = (0..self.runs.len())
            .map(|_| Vec::with_capacity(w.repeats))
            .collect();
        let mut rows: Vec<Option<BenchRow>> = vec![None; self.runs.len()];
        for round in 0..w.repeats {
            for i in round_order(self.runs.len(), round) {
                let spec = &self.runs[i];
                let target = &self.targets[spec.target];
                let p = &spec.params;
                let book = books
                    .entry((p.nprobe, p.k, p.rerank))
                    .or_insert_with(|| AnswerBook::new(nq));
                repeats[i].push(self.run_once(target, spec, book).await?);
                if round + 1 == w.repeats {
                    let row = median_row(std::mem::take(&mut repeats[i]));
                    progress(&row);
                    rows[i] = Some(row);
                }
            }
        }
        Ok(rows.into_iter().flatten().collect())
    }

    /// One repeat of `spec` on `target`: a fresh searcher, the warm-up, then
    /// the measured queries.
    async fn run_once(
        &self,
        target: &Target,
        spec: &RunSpec,
        book: &mut AnswerBook,
    ) -> Result<BenchRow> {
        let w = &self.workload;
        let cache_bytes = spec.cache.bytes(target.index.manifest.payload.size);
        let searcher = Arc::new(Searcher::with_read_config(
            Arc::clone(&target.index),
            self.io_slots,
            cache_bytes,
            Arc::clone(&self.factory),
            self.read.clone(),
        )?);
        let policy = spec.params.plan.method.to_string();
        let label = spec.cache.label();
        let run = book.run(format!(
            "{policy} on {}, Q={}, cache {label}, nprobe {}",
            target.layout, spec.concurrency, spec.params.nprobe
        ));
        let params = Arc::new(spec.params.clone());
        let issued = w.warmup + w.queries_per_run;
        let mut ctx = RunCtx {
            searcher: &searcher,
            workload: w,
            params: &params,
            concurrency: spec.concurrency,
            book,
            run,
            failures: Failures {
                count: 0,
                first: None,
                allowed: allowed_failures(self.max_error_rate, issued),
                issued,
                max_rate: self.max_error_rate,
            },
        };
        ctx.drive(0..w.warmup, None).await?;
        let mut rec = Recorder::new();
        let start = Instant::now();
        ctx.drive(w.warmup..w.warmup + w.queries_per_run, Some(&mut rec))
            .await?;
        let elapsed = start.elapsed().as_secs_f64();
        let failures = ctx.failures;
        let mut row = rec.finish(
            BenchRow {
                layout: target.layout.clone(),
                policy,
                concurrency: spec.concurrency,
                parallelism: spec.params.plan.parallelism,
                cache: label,
                cache_bytes,
                warmup: w.warmup,
                nprobe: spec.params.nprobe,
                shared_rate: self.read.share_reads.then_some(0.0),
                ..BenchRow::default()
            },
            elapsed,
            w.pricing,
        );
        row.errors = failures.count;
        row.error_rate = failures.count as f64 / issued.max(1) as f64;
        row.first_error = failures.first;
        row.load = spec
            .params
            .plan
            .plans_by_load()
            .then(|| LoadRow::of(&searcher.store().load()));
        Ok(row)
    }
}

/// `⌊max_rate · issued⌋`: the failures a run of `issued` queries may have.
fn allowed_failures(max_rate: f64, issued: usize) -> usize {
    (max_rate * issued as f64).floor() as usize
}

/// The order of the runs in repeat round `round` (0-based): forward in even
/// rounds, backward in odd ones (`ABC`, `CBA`, `ABC`, …). Interleaving the
/// repeats, and counterbalancing their order, spreads a load that changes
/// over the benchmark's time (a neighbour's phase, a warming cache) over
/// every run instead of landing on one run's repeats. `O(1)` per step.
fn round_order(runs: usize, round: usize) -> impl Iterator<Item = usize> {
    (0..runs).map(move |i| {
        if round.is_multiple_of(2) {
            i
        } else {
            runs - 1 - i
        }
    })
}

/// The repeat of median QPS (the upper median for an even count), carrying
/// the number of repeats, their QPS range and each one's QPS in the order
/// given (the rounds'), and the failures of all of them (the error rate over
/// all, each repeat issuing as many queries). `O(r log r)`.
fn median_row(mut repeats: Vec<BenchRow>) -> BenchRow {
    let in_order: Vec<f64> = repeats.iter().map(|r| r.qps).collect();
    repeats.sort_by(|a, b| a.qps.total_cmp(&b.qps));
    let n = repeats.len();
    let errors = repeats.iter().map(|r| r.errors).sum();
    let error_rate = repeats.iter().map(|r| r.error_rate).sum::<f64>() / n.max(1) as f64;
    let first_error = repeats.iter().find_map(|r| r.first_error.clone());
    let (lo, hi) = (
        repeats.first().map_or(0.0, |r| r.qps),
        repeats.last().map_or(0.0, |r| r.qps),
    );
    let mut row = repeats.swap_remove(n / 2);
    row.repeats = n;
    row.qps_min = lo;
    row.qps_max = hi;
    row.qps_repeats = in_order;
    row.errors = errors;
    row.error_rate = error_rate;
    row.first_error = first_error;
    row
}

/// One run in progress.
struct RunCtx<'a> {
    searcher: &'a Arc<Searcher>,
    workload: &'a Workload,
    params: &'a Arc<SearchParams>,
    concurrency: usize,
    book: &'a mut AnswerBook,
    run: usize,
    failures: Failures,
}

/// A run's failed queries and its bound.
struct Failures {
    count: usize,
    first: Option<String>,
    /// Failures allowed: `⌊max_rate · issued⌋`.
    allowed: usize,
    issued: usize,
    max_rate: f64,
}

impl RunCtx<'_> {
    /// Runs queries `range` (query `i` is stored query `i mod nq`) with at
    /// most `concurrency` in flight, checking every answer and recording it
    /// in `rec` when given; a failed query is counted, and one failure more
    /// than the bound allows stops the run (the queries in flight are
    /// cancelled).
    async fn drive(&mut self, range: Range<usize>, mut rec: Option<&mut Recorder>) -> Result<()> {
        let w = self.workload;
        let (nq, dim) = (w.nq(), w.dim);
        let mut set: JoinSet<Result<(usize, u64, SearchResult)>> = JoinSet::new();
        let mut next = range.start;
        loop {
            while set.len() < self.concurrency && next < range.end {
                let qi = next % nq;
                next += 1;
                let (s, qs, p) = (
                    Arc::clone(self.searcher),
                    Arc::clone(&w.queries),
                    Arc::clone(self.params),
                );
                // From the issue, not from the task's first poll: a query
                // waiting for a worker thread is part of its latency, as a
                // client's request waiting for a server thread is (until
                // 2026-12-05 the clock started inside the task, so a warm
                // query that never yields read its CPU time alone).
                let t = Instant::now();
                set.spawn(async move {
                    let r = s.search(&qs[qi * dim..(qi + 1) * dim], &p).await?;
                    Ok((qi, t.elapsed().as_micros() as u64, r))
                });
            }
            let Some(joined) = set.join_next().await else {
                return Ok(());
            };
            let answered = joined.map_err(|e| Error::input(format!("query task failed: {e}")))?;
            let (qi, us, r) = match answered {
                Ok(a) => a,
                Err(e) => {
                    self.failed(&e)?;
                    continue;
                }
            };
            self.book
                .check(self.run, qi, r.neighbors.iter().map(|n| n.id))?;
            if let Some(rec) = rec.as_deref_mut() {
                rec.record(us, &r, w.truth(qi));
            }
        }
    }

    /// Counts the failed query `e`.
    ///
    /// # Errors
    /// [`Error::TooManyFailures`] once the failures exceed the bound.
    fn failed(&mut self, e: &Error) -> Result<()> {
        let f = &mut self.failures;
        f.count += 1;
        let first = f.first.get_or_insert_with(|| e.to_string());
        if f.count > f.allowed {
            return Err(Error::TooManyFailures {
                run: self.book.name(self.run).to_string(),
                failed: f.count,
                queries: f.issued,
                max_rate: f.max_rate,
                first: first.clone(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(qps: f64, gets: f64) -> BenchRow {
        BenchRow {
            qps,
            gets_per_query: gets,
            ..BenchRow::default()
        }
    }

    #[test]
    fn the_median_repeat_is_reported_whole_with_the_spread() {
        let r = median_row(vec![row(130.0, 1.0), row(110.0, 2.0), row(120.0, 3.0)]);
        // The median run's own figures, not a mix of runs.
        assert_eq!((r.qps, r.gets_per_query), (120.0, 3.0));
        assert_eq!((r.repeats, r.qps_min, r.qps_max), (3, 110.0, 130.0));
        // Each repeat's QPS in the rounds' order, for paired comparisons.
        assert_eq!(r.qps_repeats, [130.0, 110.0, 120.0]);
        let one = median_row(vec![row(5.0, 1.0)]);
        assert_eq!(
            (one.repeats, one.qps_min, one.qps, one.qps_max),
            (1, 5.0, 5.0, 5.0)
        );
        // Even counts take the upper median.
        let two = median_row(vec![row(2.0, 0.0), row(1.0, 0.0)]);
        assert_eq!(two.qps, 2.0);
    }

    #[test]
    fn repeats_run_in_counterbalanced_rounds() {
        let order = |round| round_order(3, round).collect::<Vec<_>>();
        assert_eq!(order(0), [0, 1, 2]);
        assert_eq!(order(1), [2, 1, 0]);
        assert_eq!(order(2), [0, 1, 2]);
        assert_eq!(round_order(0, 1).count(), 0);
        // Over any two consecutive rounds every run sits at every position's
        // mirror once: the mean position is the same for all runs.
        let mut sum = [0usize; 3];
        for round in 0..2 {
            for (pos, i) in round_order(3, round).enumerate() {
                sum[i] += pos;
            }
        }
        assert_eq!(sum, [2, 2, 2]);
    }

    #[test]
    fn the_failures_of_every_repeat_are_reported() {
        let failing = |qps: f64, errors: usize, first: Option<&str>| BenchRow {
            qps,
            errors,
            error_rate: errors as f64 / 100.0,
            first_error: first.map(str::to_string),
            ..BenchRow::default()
        };
        let r = median_row(vec![
            failing(1.0, 0, None),
            failing(3.0, 2, Some("checksum mismatch")),
            failing(2.0, 1, Some("stalled")),
        ]);
        assert_eq!(r.qps, 2.0, "the median repeat's figures");
        assert_eq!(r.errors, 3, "but every repeat's failures");
        assert!((r.error_rate - 0.01).abs() < 1e-12, "{}", r.error_rate);
        assert!(r.first_error.is_some());
        assert_eq!(allowed_failures(0.01, 250), 2);
        assert_eq!(allowed_failures(0.0, 250), 0);
        assert_eq!(allowed_failures(1.0, 250), 250);
    }
}
