//! [`PlannedStore`]: the planned read behind `get_ranges`, every other
//! method passed through.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use futures::stream::BoxStream;
use futures::stream::FuturesUnordered;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
};
use planner_core::{
    Interval, Method, Parallelism, PlanError, PlanRequest, PlanSummary, Request, Surrogate,
};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::backend::{BackendError, BackendPool};
use crate::body::Body;
use crate::budget::FetchBudget;
use crate::builder::{PlanOptions, PlannedStoreBuilder};
use crate::cpu::thread_cpu_ns;
use crate::error::PlannedError;
use crate::get::{CallCounters, Getter, Got};
use crate::hedge::Hedger;
use crate::load::{ClosedLoop, LoadEstimator, LoadSnapshot, MEASURED_FIXED_MARGIN, PRICE_RANGE};
use crate::marginal::{MarginalCost, PlanFigures, PlanMix, SMOOTHNESS};
use crate::ranges::{Normalized, answer, normalize, slice_range};
use crate::stats::{CallStats, Stats, StatsSnapshot};

/// A point in time a call must finish by, and the budget it came from (for
/// the error message).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    /// When the call must be done.
    pub at: Instant,
    /// The budget it was given.
    pub budget: Duration,
}

impl Deadline {
    /// `budget` from now.
    pub fn after(budget: Duration) -> Self {
        Self {
            at: Instant::now() + budget,
            budget,
        }
    }
}

/// One planned read's answer.
#[derive(Debug, Clone)]
pub struct PlannedRead {
    /// The bytes of each requested range, in request order.
    pub parts: Vec<Bytes>,
    /// The planner's intervals (the normalized requested ranges).
    pub intervals: Vec<Interval>,
    /// The plan's requests, in byte order.
    pub requests: Vec<Request>,
    /// The plan's figures.
    pub summary: PlanSummary,
    /// The surrogate the plan was made with (the load-aware one when on).
    pub surrogate: Surrogate,
    /// What this call did.
    pub stats: CallStats,
    /// The planner backend (`native`, `component`), `""` when nothing was
    /// planned.
    pub planner: &'static str,
}

/// An [`ObjectStore`] whose `get_ranges` is planned by WaRP.
///
/// See the [module docs](super) for the read, the math and an example.
pub struct PlannedStore<S: ObjectStore + ?Sized = dyn ObjectStore> {
    pub(super) inner: Arc<S>,
    pub(super) planners: BackendPool,
    pub(super) options: PlanOptions,
    pub(super) io: Arc<Semaphore>,
    /// The I/O slots `S` (the semaphore's permits when built).
    pub(super) io_slots: usize,
    pub(super) hedger: Option<Hedger>,
    pub(super) deadline: Option<Duration>,
    pub(super) stall_timeout: Duration,
    /// The bytes the calls in progress may hold at once.
    pub(super) fetch: FetchBudget,
    pub(super) load: LoadEstimator,
    /// The mean of the plans kept, where the closed loop is analysed.
    pub(super) mix: PlanMix,
    pub(super) stats: Stats,
}

impl<S: ObjectStore + ?Sized> fmt::Debug for PlannedStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannedStore")
            .field("inner", &self.inner)
            .field("options", &self.options)
            .field("hedging", &self.hedger.is_some())
            .field("deadline", &self.deadline)
            .field("stall_timeout", &self.stall_timeout)
            .finish_non_exhaustive()
    }
}

impl<S: ObjectStore + ?Sized> fmt::Display for PlannedStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Planned({})", self.inner)
    }
}

impl<S: ObjectStore + ?Sized> PlannedStore<S> {
    /// A builder wrapping `inner` (see [`PlannedStoreBuilder::new`] for the
    /// defaults).
    pub fn builder(inner: Arc<S>) -> PlannedStoreBuilder<S> {
        PlannedStoreBuilder::new(inner)
    }

    /// The wrapped store.
    pub fn inner(&self) -> &Arc<S> {
        &self.inner
    }

    /// The options `get_ranges` plans with.
    pub fn plan_options(&self) -> &PlanOptions {
        &self.options
    }

    /// The per-call deadline `get_ranges` applies, if any.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// The store's counters.
    pub fn stats(&self) -> StatsSnapshot {
        self.stats.snapshot()
    }

    /// The load estimator's figures.
    pub fn load(&self) -> LoadSnapshot {
        self.load.snapshot()
    }

    /// Reads `ranges` of `location` with `opts`, by `deadline` if given.
    ///
    /// 1. validate and normalize the ranges into sorted disjoint intervals
    ///    (`ranges.rs`);
    /// 2. plan them with `opts.surrogate` (fixed, or the load-aware prior);
    ///    load-aware (`warp`), also at wider parallelism, at `P = 1` and,
    ///    once the link's capacity or the client CPU's price is known, at
    ///    `P = 1` for the per-MiB price of the linearised station cost
    ///    ([`ClosedLoop::byte_price`]), keeping the plan of least marginal
    ///    cost in the loop the calls' mix of plans makes
    ///    ([`marginal`](crate::marginal));
    /// 3. issue the planned GETs concurrently, each under an I/O slot, with
    ///    the stall timeout, one retry, and hedging ([`hedge`](crate::hedge));
    /// 4. slice each requested range back out, in request order.
    ///
    /// # Errors
    /// [`PlannedError`]: the inner store's error unchanged
    /// ([`PlannedError::Store`], e.g. `NotFound`), a bad range, a planner
    /// error, a deadline miss, a repeated stall or wrong range.
    pub async fn read(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
        opts: &PlanOptions,
        deadline: Option<Deadline>,
    ) -> Result<PlannedRead, PlannedError> {
        self.read_each(location, ranges, opts, deadline, |_, _| {})
            .await
    }

    /// [`PlannedStore::read`], handing each requested range's bytes to
    /// `ready(i, bytes)` as soon as every GET covering it is in, while the
    /// plan's other GETs are still outstanding; the returned
    /// [`PlannedRead`] holds every part as [`read`](PlannedStore::read)'s
    /// does.
    ///
    /// A read of `K` GETs completes at the slowest of them, `max_g T_g`; a
    /// range inside GET `g` is ready at `T_g`. A caller that passes a range
    /// on to someone else (the host's shared reads: another query waiting
    /// for a list this one is fetching) makes that one wait
    /// `E[T_g]` instead of `E[max_g T_g]`, which under a lognormal spread
    /// and a tail grows with `K` (measured over the simulator at `Q = 8`,
    /// the whole-read wait cost the waiters 9–13 % of QPS).
    ///
    /// `ready` is called at most once per non-empty range `i` (index into
    /// `ranges`), in completion order, from the task polling this call; a
    /// range the object's end cuts short is passed as what exists, one
    /// starting past the end is not passed (the call then fails with
    /// [`PlannedError::PastEnd`]). Bytes passed to `ready` are the same
    /// bytes the answer holds; a call that fails after some ranges were
    /// passed has passed correct bytes for those.
    ///
    /// # Complexity
    /// The plan's as in [`read`](PlannedStore::read); then `O(n + K)` to
    /// count each interval's covering GETs, and per completed interval
    /// `O(log K + c)` to cut it out of its `c` covering bodies, plus `O(r)`
    /// for the requested ranges held in it.
    ///
    /// # Errors
    /// As [`read`](PlannedStore::read).
    pub async fn read_each<F>(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
        opts: &PlanOptions,
        deadline: Option<Deadline>,
        mut ready: F,
    ) -> Result<PlannedRead, PlannedError>
    where
        F: FnMut(usize, &Bytes) + Send,
    {
        let counters = CallCounters::default();
        let mut stats = CallStats::default();
        let (calls, _call) = self.load.enter_call();
        let work = self.read_inner(
            location,
            ranges,
            opts,
            (calls, deadline),
            &counters,
            &mut stats,
            &mut ready,
        );
        let out = match deadline {
            None => work.await,
            Some(d) => match tokio::time::timeout_at(d.at, work).await {
                Ok(r) => r,
                Err(_) => Err(PlannedError::DeadlineExceeded {
                    deadline: d.budget,
                    path: location.to_string(),
                }),
            },
        };
        counters.add_to(&mut stats);
        if matches!(out, Err(PlannedError::DeadlineExceeded { .. })) {
            stats.deadline_misses = 1;
        }
        self.stats.record(&stats);
        out.map(|mut r| {
            r.stats = stats;
            r
        })
    }

    #[allow(clippy::too_many_arguments)] // one call's inputs and its two sinks
    async fn read_inner(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
        opts: &PlanOptions,
        (calls, deadline): (u64, Option<Deadline>),
        counters: &CallCounters,
        stats: &mut CallStats,
        ready: &mut (dyn FnMut(usize, &Bytes) + Send),
    ) -> Result<PlannedRead, PlannedError> {
        let norm = normalize(ranges)?;
        let surrogate = opts.surrogate.clone();
        if norm.intervals.is_empty() {
            return Ok(PlannedRead {
                parts: vec![Bytes::new(); ranges.len()],
                intervals: Vec::new(),
                requests: Vec::new(),
                summary: PlanSummary::default(),
                surrogate,
                stats: CallStats::default(),
                planner: "",
            });
        }
        let n = norm.intervals.len();
        let req = PlanRequest {
            intervals: &norm.intervals,
            k_max: opts.k_max.unwrap_or(n).clamp(1, n),
            parallelism: opts.parallelism,
            surrogate: &surrogate,
            epsilon: opts.epsilon,
            method: opts.method,
        };
        let t = std::time::Instant::now();
        // Planning runs on this thread, where the deadline's timer cannot
        // preempt it: the planner stops at the deadline itself. A large plan
        // runs off the runtime's workers.
        let by = deadline.map(|d| d.at.into_std());
        let planned = off_the_workers(heavy(&req), || self.plan(&req, opts, calls, by));
        let (requests, summary, planner, surrogate) = match (planned, deadline) {
            (Err(PlannedError::Plan(BackendError::Refused(PlanError::Interrupted))), Some(d))
                if Instant::now() >= d.at =>
            {
                return Err(PlannedError::DeadlineExceeded {
                    deadline: d.budget,
                    path: location.to_string(),
                });
            }
            (planned, _) => planned?,
        };
        stats.plan_us += t.elapsed().as_micros() as u64;
        self.stats.set_surrogate(affine(&surrogate));
        stats.gets += requests.len() as u64;
        stats.bytes += summary.bytes;
        stats.overfetch_bytes += summary.overfetch_bytes;
        // The plan's bytes are held from the first GET until the parts are
        // cut (the fetch budget; its wait counts against the deadline).
        let _held = self.fetch.hold(summary.bytes).await;
        let getter = Getter {
            store: &*self.inner,
            location,
            stall: self.stall_timeout,
            load: &self.load,
            hedger: self.hedger.as_ref(),
            io: &self.io,
            counters,
        };
        // Each GET is timed for hedging by the store's latency model (the
        // options' surrogate, the load-aware prior), not by the price the
        // plan was made at: a load-aware plan prices a byte at up to
        // `PRICE_RANGE.1` times the model's, call by call, and ratios to
        // those prices put the hedger's median far below a GET at the
        // model's own pace (measured beside six busy loops: `warp` hedged up
        // to 12 % of its GETs in a cell where the fixed rules hedged under
        // 1 %).
        let bodies = fetch_all(&getter, &norm, ranges, &requests, &opts.surrogate, ready).await?;
        let object_size = bodies.iter().map(|b| b.1).max().unwrap_or(0);
        let parts = interval_parts(&norm.intervals, &requests, &bodies);
        let parts_out = answer(ranges, &norm, &parts, || object_size)?;
        Ok(PlannedRead {
            parts: parts_out,
            intervals: norm.intervals,
            requests,
            summary,
            surrogate,
            stats: CallStats::default(),
            planner,
        })
    }
}

impl<S: ObjectStore + ?Sized> PlannedStore<S> {
    /// Plans `req`: once with its surrogate, or, load-aware with the `warp`
    /// method, once as asked and at the candidates of the closed loop,
    /// keeping the plan of least [`MarginalCost::cost_ms`] for `calls`
    /// concurrent calls (ties to the earlier candidate): its first-order
    /// effect on the loop's cycle time, priced at the mean of the plans the
    /// calls have been keeping ([`PlanMix`], module
    /// [`marginal`](crate::marginal)), which this call's kept plan then
    /// joins:
    ///
    /// - at `2P` and `4P` (at most the I/O slots): `P = slots / Q` is each
    ///   call's share of the slots when all of them are busy, and `T_P`'s
    ///   `W/P` term charges parallel requests for slot time the calls may not
    ///   need; the closed-loop cost charges them only as far as the mix
    ///   uses the slots (the link term is 0 while its capacity is unknown, the CPU
    ///   term while the CPU was not seen busy);
    /// - at `P = 1` (the least slot time `W`), unless that is what was
    ///   asked: the slots' term `Q · H / S` is known from the first call
    ///   (`S` and `Q` are), so the plan for when it binds is always a
    ///   candidate — over warp-s3, 64 slots and `Q` = 32 bound a cold
    ///   IVF_FLAT query while the link's capacity was still unknown;
    /// - while the CPU price is unknown and the measured mean first byte `f̂`
    ///   is more than [`MEASURED_FIXED_MARGIN`] above the prior's, at first
    ///   byte `f̂`, as asked and at `P = 1` (a GET dearer than the prior says);
    /// - once the link's capacity `C` or the CPU's price is known, at `P = 1`
    ///   for the per-MiB price `m* · base` whose plan minimises the
    ///   linearised cost of the stations ([`ClosedLoop::byte_price`]: fewer
    ///   bytes where the link or the client's CPU per byte binds; never a
    ///   cheaper byte than the prior's), unless `m*` is the base price.
    ///
    /// # Pruning
    /// Once a plan was kept (the mix has a mean) and `C` or the CPU's price
    /// is known, the plan at `m*` is made first. The marginal cost of any
    /// plan `y` is `k + w_Z · B_y + a · G_y + b · M_y` (the stations'
    /// demands are affine in GETs and MiB, `H = G · fixed + base · M`; the
    /// CPU's is clamped at 0, which only raises it), and the `m*` plan
    /// minimises `a · G + b · M` over every plan of at most `K_max` GETs
    /// when `m*` is inside [`PRICE_RANGE`] (not clamped). Every GET holds
    /// one whole interval at least, so `B_y ≥ B_floor = max_i t₀(L_i)`, and
    ///
    /// ```text
    /// cost(y) ≥ cost(m*) − w_Z · (B_m* − B_floor)
    /// ```
    ///
    /// When that gap is at most `ε · cost(m*)` (the request's `epsilon`, the
    /// planner's own tolerance) and the `m*` plan's CPU demand is not
    /// clamped, no other candidate is made: the call keeps the `m*` plan,
    /// within `ε` of the best candidate. That is where the loop is bound by
    /// its stations, not by a call's critical path (`w_Z = (Z̄ / R̃)^{p−1}`
    /// is small): at `Q` = 32 or 128, one plan where there were four or
    /// five. Otherwise the `m*` plan is the last candidate, as below.
    ///
    /// Every candidate is a `trace` event of target `warp::plan` (`Q`, `C`,
    /// `e`, its first byte, price multiplier and `P`, its GETs, bytes, `B`,
    /// `W`, the fluid bound [`ClosedLoop::cost_ms`] of a loop of copies of
    /// it, the mix's smoothed cycle time and the marginal cost;
    /// `WARP_LOG=trace`), in the order evaluated: the kept one is the first
    /// of least cost.
    ///
    /// Returns the plan, its summary under the surrogate it was made with,
    /// the backend, and that surrogate.
    ///
    /// # Complexity
    /// One plan, or at most 7 plans and as many `O(K)` evaluations; `O(1)`
    /// to price each, and `O(n)` over the `n` intervals for `B_floor`.
    fn plan(
        &self,
        req: &PlanRequest<'_>,
        opts: &PlanOptions,
        calls: u64,
        by: Option<std::time::Instant>,
    ) -> Result<(Vec<Request>, PlanSummary, &'static str, Surrogate), PlannedError> {
        let prior = affine(req.surrogate).filter(|_| opts.load_aware);
        let prices = prior.map(|p| self.load.note_prior(p)).unwrap_or_default();
        let (Some((fixed_ms, base)), true) = (prior, opts.plans_by_load()) else {
            let (r, s, b) = self.planners.plan_by(req, by).map_err(PlannedError::Plan)?;
            return Ok((r, s, b, req.surrogate.clone()));
        };
        let slots = self.io_slots as f64;
        // The measured first byte prices a GET only while the process is not
        // CPU-bound: a first byte late because this process keeps its cores
        // busy is the CPU term's to price, and charging it to GETs as well
        // would merge more, fetch more bytes, load the CPU more and read a
        // later first byte still: a loop. Nor while the process waits for
        // cores that others hold: the wait is for a core, not for the
        // store, and a call waits it however few GETs it makes (measured
        // over warp-s3 beside six busy loops: first bytes of 100–250 ms
        // priced per GET planned 10–50 MB a query where the lists were
        // 0.5 MB, at a fifth of the fixed rules' QPS).
        let first_byte_ms = prices
            .first_byte_ms
            .filter(|_| prices.cpu.is_none() && !prices.cpu_starved);
        let mut closed_loop = ClosedLoop {
            calls: calls as f64,
            slots,
            // An unknown capacity charges nothing for bytes.
            capacity_mib_s: prices.capacity_mib_s.unwrap_or(f64::INFINITY),
            cpu: prices.cpu,
            first_byte_excess_ms: first_byte_ms.map_or(0.0, |f| (f - fixed_ms).max(0.0)),
        };
        // Among CPU-bound neighbours a GET's wake-ups hold its slot while
        // they wait for a core: as far as the calls queue, that, not its
        // CPU time, is what a GET costs (`CpuPrice::queued`). The share
        // queued is the mix's, `1 − Z̄ / R̃`, at the CPU-time price.
        if let (Some(cpu), Some(mean)) = (prices.cpu.filter(|c| c.crowded), self.mix.mean()) {
            let queued = MarginalCost::at_mix(calls as f64, closed_loop.demands(&mean), SMOOTHNESS)
                .queued_share();
            let priced = cpu.queued(queued);
            tracing::trace!(
                target: "warp::plan",
                queued,
                per_get_ms = priced.per_get_ms,
                per_mib_ms = priced.per_mib_ms,
                "a crowded GET's price"
            );
            closed_loop.cpu = Some(priced);
        }
        let closed_loop = closed_loop;
        // The measured first byte, when it is well above the prior's: the
        // fixed cost a GET really has here (wake-ups, a slow store).
        let measured_fixed =
            first_byte_ms.filter(|&f| f > fixed_ms * (1.0 + MEASURED_FIXED_MARGIN));
        let required: u64 = req.intervals.iter().map(|i| i.len).sum();
        let marginal = std::cell::OnceCell::new();
        // One candidate: the plan at first byte `fixed`, per-MiB price
        // `m · base` and parallelism `p`, with its closed-loop cost under
        // the prior and the measured first byte.
        let candidate_at = |fixed_ms: f64, m: f64, parallelism: Option<f64>| {
            let surrogate = Surrogate::Affine {
                fixed_ms,
                per_mib_ms: base * m,
            };
            // At `P = 1`, `T_1 = W`: the `min_w` method's one thresholded
            // DP is exact there, where the search would look for the same
            // plan along the `(B, W)` frontier.
            let method = if parallelism == Some(1.0) {
                Method::MinW
            } else {
                req.method
            };
            let (requests, summary, backend) = self
                .planners
                .plan_by(
                    &PlanRequest {
                        surrogate: &surrogate,
                        parallelism,
                        method,
                        ..*req
                    },
                    by,
                )
                .map_err(PlannedError::Plan)?;
            let unloaded =
                planner_core::summarize(&requests, required, req.surrogate, Parallelism::Unbounded);
            let figures = PlanFigures {
                b_ms: unloaded.b_ms,
                hold_ms: unloaded.w_ms,
                gets: requests.len() as f64,
                mib: unloaded.bytes as f64 / 1_048_576.0,
            };
            // Priced at the mix of plans the calls are making (module
            // `marginal`); the mean is this plan itself until one was kept.
            let marginal = marginal.get_or_init(|| {
                MarginalCost::at_mix(
                    calls as f64,
                    closed_loop.demands(&self.mix.mean().unwrap_or(figures)),
                    SMOOTHNESS,
                )
            });
            let cost = marginal.cost_ms(&closed_loop.demands(&figures));
            tracing::trace!(
                target: "warp::plan",
                calls,
                capacity_mib_s = closed_loop.capacity_mib_s,
                first_byte_excess_ms = closed_loop.first_byte_excess_ms,
                fixed_ms,
                price = m,
                parallelism = parallelism.unwrap_or(f64::INFINITY),
                gets = requests.len(),
                bytes = unloaded.bytes,
                b_ms = unloaded.b_ms,
                w_ms = unloaded.w_ms,
                bound_ms =
                    closed_loop.cost_ms(unloaded.b_ms, unloaded.bytes, unloaded.w_ms, requests.len()),
                cycle_ms = marginal.cycle_ms,
                mix_delay_ms = marginal.at.delay_ms,
                mix_station_ms = ?marginal.at.station_ms,
                per_station = ?marginal.per_station,
                cost,
                "candidate"
            );
            Ok::<_, PlannedError>((cost, (figures, (requests, summary, backend, surrogate))))
        };
        let candidate = |m: f64, parallelism: Option<f64>| candidate_at(fixed_ms, m, parallelism);
        // Priced at the mix of plans kept, from the start when there is one.
        if let Some(mean) = self.mix.mean() {
            marginal.get_or_init(|| {
                MarginalCost::at_mix(calls as f64, closed_loop.demands(&mean), SMOOTHNESS)
            });
        }
        let priced = prices.capacity_mib_s.is_some() || prices.cpu.is_some();
        // The byte price `m*` (`ClosedLoop::byte_price`), once `C` or the
        // CPU's price is known and the call is priced at a mix; `None` at
        // the base price, whose plan at `P = 1` is a candidate already.
        let byte_price = || {
            marginal
                .get()
                .filter(|_| priced)
                .and_then(|mc| closed_loop.byte_price(mc, fixed_ms, base))
                .filter(|m| (m - 1.0).abs() > 1e-3)
        };
        // The plan at `m*` first, when `m*` is inside `PRICE_RANGE`
        // (unclamped): no plan's stations cost less than its, so no
        // candidate beats it by more than the critical path it could still
        // save (see "Pruning" above).
        let mut at_price = None;
        let (lo, hi) = PRICE_RANGE;
        if let (Some(m), Some(mc)) = (byte_price().filter(|&m| m > lo && m < hi), marginal.get()) {
            let c = candidate(m, Some(1.0))?;
            let gap = pruning_gap(mc, &closed_loop, &(c.1).0, req.intervals, (fixed_ms, base));
            if let Some(gap) = gap
                && gap <= req.epsilon.max(0.0) * c.0.abs()
            {
                tracing::trace!(target: "warp::plan", gap, "the byte price's plan is within epsilon of every plan");
                let (figures, kept) = c.1;
                self.mix.note(figures);
                return Ok(kept);
            }
            at_price = Some(c);
        }
        // The planner's own plan, then the resource-priced ones: `P = 1`
        // (`min W`, no critical-path term) at each price, so that a dearer
        // byte never keeps adjacent intervals apart.
        let mut best = candidate(1.0, req.parallelism)?;
        if let Some(p) = req.parallelism {
            let mut last = p;
            for wider in [2.0 * p, 4.0 * p] {
                let wider = wider.min(slots);
                if wider > last {
                    last = wider;
                    best = cheaper(best, candidate(1.0, Some(wider))?);
                }
            }
        }
        let asked_p1 = req.parallelism == Some(1.0);
        if !asked_p1 {
            // The fewest slot time `H` at the prior: the plan for when the
            // I/O slots bind, which `S` and `Q` say from the first call on.
            best = cheaper(best, candidate(1.0, Some(1.0))?);
        }
        if let Some(f) = measured_fixed {
            // A dearer GET: the planner's plan, and the fewest-slot-time
            // one, at the first byte measured.
            for p in [req.parallelism, Some(1.0)] {
                best = cheaper(best, candidate_at(f, 1.0, p)?);
            }
        }
        // Last, the plan at `m*`: the one price at which the planner's sum
        // is the stations' linearised cost (made above when unclamped).
        if let Some(c) = at_price {
            best = cheaper(best, c);
        } else if let Some(m) = byte_price() {
            best = cheaper(best, candidate(m, Some(1.0))?);
        }
        let (figures, kept) = best.1;
        self.mix.note(figures);
        Ok(kept)
    }
}

/// DP cells ([`PlanLimits::cells`](planner_core::PlanLimits::cells)) from
/// which a plan counts as large ([`heavy`]): about 4·10⁶, milliseconds of
/// planning. An IVF query's plan (tens of intervals, some 10⁵ cells and
/// tens of µs) is far below it.
const HEAVY_PLAN_CELLS: u64 = 1 << 22;

/// Whether planning `req` is large work: at least [`HEAVY_PLAN_CELLS`]
/// cells. `O(1)`.
fn heavy(req: &PlanRequest<'_>) -> bool {
    let exact = req.method == Method::Exact;
    planner_core::PlanLimits::cells(req.intervals.len(), req.k_max, exact) >= HEAVY_PLAN_CELLS
}

/// Runs `f`, CPU work that may be long when `heavy`, without holding up the
/// runtime's other tasks: on a multi-thread Tokio runtime, a heavy `f` runs
/// in [`tokio::task::block_in_place`] (the worker's queue moves to another
/// thread while `f` runs here; measured in `warp serve`: one `exact` plan
/// over 4 096 lists held its one worker, `/healthz` included, for 12 s).
/// Inline otherwise: a light `f` (the hand-over costs more than it), a
/// current-thread runtime (which cannot hand its queue over), no runtime.
fn off_the_workers<T>(heavy: bool, f: impl FnOnce() -> T) -> T {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let multi =
        Handle::try_current().is_ok_and(|h| h.runtime_flavor() == RuntimeFlavor::MultiThread);
    if heavy && multi {
        tokio::task::block_in_place(f)
    } else {
        f()
    }
}

/// How much less than the plan `kept` at the byte price `m*` any plan of
/// `intervals` can cost at `mc` (the plan method's "Pruning"):
/// `w_Z · (B_kept − B_floor)` with `B_floor = max_i t₀(L_i)` under the
/// prior `(fixed_ms, base)`; `None` when the bound does not hold because
/// `kept`'s CPU demand is clamped at 0. `kept` must be the plan of least
/// `Σ_g (fixed + m* · base · L_g)`, `m*` unclamped. `O(n)`.
fn pruning_gap(
    mc: &MarginalCost,
    closed_loop: &ClosedLoop,
    kept: &PlanFigures,
    intervals: &[Interval],
    (fixed_ms, base): (f64, f64),
) -> Option<f64> {
    let clamped = closed_loop
        .cpu
        .is_some_and(|cpu| cpu.call_ms(kept.gets, kept.mib) <= 0.0);
    let b_floor = intervals
        .iter()
        .map(|i| fixed_ms + base * i.len as f64 / 1_048_576.0)
        .fold(0.0, f64::max);
    (!clamped).then(|| mc.per_delay * (kept.b_ms - b_floor).max(0.0))
}

/// The cheaper of two costed candidates, ties to the earlier `a`. `O(1)`.
fn cheaper<T>(a: (f64, T), b: (f64, T)) -> (f64, T) {
    if b.0 < a.0 { b } else { a }
}

/// `(fixed_ms, per_mib_ms)` of an affine surrogate.
pub fn affine(s: &Surrogate) -> Option<(f64, f64)> {
    match s {
        Surrogate::Affine {
            fixed_ms,
            per_mib_ms,
        } => Some((*fixed_ms, *per_mib_ms)),
        Surrogate::Piecewise(_) => None,
    }
}

/// Issues the plan's GETs concurrently, each predicted to take
/// `model.eval(len)` (the store's latency model, which times its hedge), and
/// returns their bodies in request order; as each one lands, every interval
/// whose covering GETs are now all in is cut out ([`interval_part`]) and
/// each requested range it holds is handed to `ready` (see
/// [`PlannedStore::read_each`]). The first failed GET fails the call and
/// drops the others (their requests cancelled).
///
/// # Complexity
/// `O(n + K)` to count the covering GETs of the `n` intervals; per interval
/// completed `O(log K + c)` for its `c` covering chunks plus `O(1)` per
/// range it holds ([`Normalized::held_by`], grouped by [`normalize`]).
async fn fetch_all<S: ObjectStore + ?Sized>(
    getter: &Getter<'_, S>,
    norm: &Normalized,
    ranges: &[Range<u64>],
    requests: &[Request],
    model: &Surrogate,
    ready: &mut (dyn FnMut(usize, &Bytes) + Send),
) -> Result<Vec<Got>, PlannedError> {
    let n = norm.intervals.len();
    // Outstanding GETs covering each interval.
    let mut waiting = vec![0u32; n];
    for r in requests {
        for w in &mut waiting[r.first as usize..=r.last as usize] {
            *w += 1;
        }
    }
    let mut bodies: Vec<Option<Got>> = (0..requests.len()).map(|_| None).collect();
    let mut pending: FuturesUnordered<_> = requests
        .iter()
        .enumerate()
        .map(|(g, r)| async move {
            let t_ms = model.eval(r.len);
            (g, getter.fetch(r.offset..r.offset + r.len, t_ms).await)
        })
        .collect();
    while let Some((g, got)) = pending.next().await {
        bodies[g] = Some(got?);
        let covered = requests[g].first as usize..=requests[g].last as usize;
        // The thread's CPU from the first part this GET completes to the
        // last: the consumer's (and the cutting of its parts), kept out of
        // the CPU meter's `α` and `β` (`LoadEstimator::consumed`).
        let mut handed_from = None;
        for (j, w) in covered.clone().zip(&mut waiting[covered]) {
            *w -= 1;
            let held = norm.held_by(j);
            if *w > 0 || held.is_empty() {
                continue;
            }
            if handed_from.is_none() {
                handed_from = Some(thread_cpu_ns());
            }
            let iv = &norm.intervals[j];
            let part = interval_part(j, iv, requests, |h| bodies[h].as_ref().map(|b| &b.0));
            for &i in held {
                if let Some(bytes) = slice_range(&ranges[i], iv.offset, &part) {
                    ready(i, &bytes);
                }
            }
        }
        if let Some((Some(t0), Some(t1))) = handed_from.map(|t0| (t0, thread_cpu_ns())) {
            getter.load.consumed(t1.saturating_sub(t0));
        }
    }
    drop(pending);
    Ok(bodies.into_iter().flatten().collect())
}

/// Each interval's bytes, cut out of the request bodies covering it
/// ([`interval_part`]). `O(n log K + Σ_j c_j)`.
fn interval_parts(intervals: &[Interval], requests: &[Request], bodies: &[Got]) -> Vec<Bytes> {
    intervals
        .iter()
        .enumerate()
        .map(|(j, iv)| interval_part(j, iv, requests, |g| Some(&bodies[g].0)))
        .collect()
}

/// Interval `j`'s bytes, cut out of the request bodies covering it (one
/// interval may span several requests, e.g. under the `lance` rule, and
/// several chunks of one body; `body(g)` is request `g`'s, `None` when not
/// in, which leaves its share out). A body cut short by the object's end
/// leaves the intervals past it short or empty. Only the interval's own bytes
/// are ever copied, and only where it straddles chunks; the gaps a merged
/// request fetched are dropped with their chunks.
///
/// The requests are in byte order and disjoint, so those covering `j`
/// (`first ≤ j ≤ last`) are a contiguous run starting at the first with
/// `last ≥ j`.
///
/// # Complexity
/// `O(log K + Σ log c_g + p)` for the `c_g` chunks of the covering bodies
/// and `p` pieces; zero-copy where one chunk holds the interval.
fn interval_part<'b>(
    j: usize,
    iv: &Interval,
    requests: &[Request],
    body: impl Fn(usize) -> Option<&'b Body>,
) -> Bytes {
    let mut pieces: Vec<Bytes> = Vec::new();
    let from = requests.partition_point(|r| (r.last as usize) < j);
    for (g, r) in requests
        .iter()
        .enumerate()
        .skip(from)
        .take_while(|(_, r)| r.first as usize <= j)
    {
        let Some(body) = body(g) else { continue };
        let body_end = r.offset + body.len();
        let lo = iv.offset.max(r.offset);
        let hi = (iv.offset + iv.len).min(body_end);
        if hi > lo {
            pieces.extend(body.pieces(lo - r.offset, hi - r.offset));
        }
    }
    match pieces.len() {
        0 => Bytes::new(),
        1 => pieces.pop().unwrap_or_default(),
        _ => {
            let mut buf = BytesMut::with_capacity(pieces.iter().map(Bytes::len).sum());
            for b in pieces {
                buf.extend_from_slice(&b);
            }
            buf.freeze()
        }
    }
}

#[async_trait]
#[deny(clippy::missing_trait_methods)]
impl<S: ObjectStore + ?Sized> ObjectStore for PlannedStore<S> {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.inner.get_opts(location, options).await
    }

    /// The planned read ([`PlannedStore::read`]) with the store's default
    /// options and deadline.
    async fn get_ranges(
        &self,
        location: &Path,
        ranges: &[Range<u64>],
    ) -> object_store::Result<Vec<Bytes>> {
        let deadline = self.deadline.map(Deadline::after);
        Ok(self
            .read(location, ranges, &self.options, deadline)
            .await?
            .parts)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(
        &self,
        from: &Path,
        to: &Path,
        options: RenameOptions,
    ) -> object_store::Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pruning bound against every plan: on random instances of up to
    /// 9 intervals, random loops (link, CPU, slots, first-byte excess) and
    /// mixes, no grouping of the intervals into GETs costs less than the
    /// byte price's plan minus [`pruning_gap`].
    #[test]
    fn no_plan_costs_less_than_the_byte_prices_plan_minus_the_gap() {
        use crate::cpu::CpuPrice;
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let (fixed, base) = (25.0, 5.0);
        let mut checked = 0;
        for _ in 0..400 {
            let n = rng.random_range(1..=9usize);
            let mut at = 0u64;
            let intervals: Vec<Interval> = (0..n)
                .map(|_| {
                    at += rng.random_range(0..3u64 << 20);
                    let i = Interval {
                        offset: at,
                        len: rng.random_range(1..2u64 << 20),
                    };
                    at += i.len;
                    i
                })
                .collect();
            let required: u64 = intervals.iter().map(|i| i.len).sum();
            let prior = Surrogate::Affine {
                fixed_ms: fixed,
                per_mib_ms: base,
            };
            let figures_of = |requests: &[Request]| {
                let s = planner_core::summarize(requests, required, &prior, Parallelism::Unbounded);
                PlanFigures {
                    b_ms: s.b_ms,
                    hold_ms: s.w_ms,
                    gets: requests.len() as f64,
                    mib: s.bytes as f64 / 1_048_576.0,
                }
            };
            let closed_loop = ClosedLoop {
                calls: rng.random_range(1.0..256.0),
                slots: rng.random_range(1.0..128.0),
                capacity_mib_s: rng.random_range(100.0..5000.0),
                cpu: rng.random_bool(0.7).then(|| CpuPrice {
                    per_call_ms: rng.random_range(0.05..1.0),
                    gets_per_call: rng.random_range(1.0..6.0),
                    mib_per_call: rng.random_range(0.1..8.0),
                    per_get_ms: rng.random_range(0.0..0.5),
                    per_mib_ms: rng.random_range(0.0..0.5),
                    cores: rng.random_range(0.2..2.0),
                    crowded: false,
                }),
                first_byte_excess_ms: rng.random_range(0.0..10.0),
            };
            let mean = PlanFigures {
                b_ms: rng.random_range(25.0..60.0),
                hold_ms: rng.random_range(25.0..200.0),
                gets: rng.random_range(1.0..6.0),
                mib: rng.random_range(0.1..8.0),
            };
            let mc =
                MarginalCost::at_mix(closed_loop.calls, closed_loop.demands(&mean), SMOOTHNESS);
            let (lo, hi) = PRICE_RANGE;
            let Some(m) = closed_loop
                .byte_price(&mc, fixed, base)
                .filter(|&m| m > lo && m < hi)
            else {
                continue;
            };
            let (kept, _) = planner_core::plan_once(&PlanRequest {
                intervals: &intervals,
                k_max: n,
                parallelism: Some(1.0),
                surrogate: &Surrogate::Affine {
                    fixed_ms: fixed,
                    per_mib_ms: base * m,
                },
                epsilon: 0.0,
                method: Method::MinW,
            })
            .unwrap();
            let kept = figures_of(&kept);
            let Some(gap) = pruning_gap(&mc, &closed_loop, &kept, &intervals, (fixed, base)) else {
                continue;
            };
            let floor = mc.cost_ms(&closed_loop.demands(&kept)) - gap;
            // Every grouping of the intervals into contiguous GETs: bit `i`
            // set cuts between intervals `i` and `i + 1`.
            for cuts in 0..1u32 << (n - 1) {
                let mut requests = Vec::new();
                let mut first = 0usize;
                for last in 0..n {
                    if last == n - 1 || cuts & (1 << last) != 0 {
                        let (a, b) = (intervals[first], intervals[last]);
                        requests.push(Request {
                            first: first as u32,
                            last: last as u32,
                            offset: a.offset,
                            len: b.offset + b.len - a.offset,
                        });
                        first = last + 1;
                    }
                }
                let cost = mc.cost_ms(&closed_loop.demands(&figures_of(&requests)));
                assert!(
                    cost >= floor - 1e-9 * floor.abs().max(1.0),
                    "{cost} < {floor} (gap {gap}) for cuts {cuts:b} of {intervals:?} in {closed_loop:?}"
                );
            }
            checked += 1;
        }
        assert!(
            checked > 100,
            "only {checked} instances had an unclamped m*"
        );
    }

    /// With the link's capacity and the CPU's price unknown, the closed
    /// loop still knows the I/O slots: many concurrent calls sharing few
    /// slots get the plan of least slot time, one call alone the planner's.
    #[test]
    fn the_least_slot_time_plan_is_a_candidate_before_the_link_is_known() {
        let store = PlannedStore::builder(Arc::new(object_store::memory::InMemory::new()))
            .build()
            .unwrap();
        // Eight 64 KiB intervals 1 MiB apart; S3 prior 25 ms + 5 ms/MiB.
        let intervals: Vec<Interval> = (0..8u64)
            .map(|i| Interval::new(i * (1 << 20), 64 << 10))
            .collect();
        let opts = store.plan_options().clone();
        let surrogate = opts.surrogate.clone();
        let req = PlanRequest {
            intervals: &intervals,
            k_max: intervals.len(),
            parallelism: opts.parallelism,
            surrogate: &surrogate,
            epsilon: opts.epsilon,
            method: opts.method,
        };
        assert!(store.load().capacity_mib_s.is_none());
        // Alone (Q = 1 of 64 slots): each interval its own GET, B ≈ 25.3 ms.
        let (alone, ..) = store.plan(&req, &opts, 1, None).unwrap();
        assert_eq!(alone.len(), 8);
        // 32 calls on 64 slots: separate GETs cost Q·H/S = 32 · 202.5 / 64
        // ≈ 101 ms a call, one GET over the gaps max(62.2, 31.1) ms.
        let (shared, summary, ..) = store.plan(&req, &opts, 32, None).unwrap();
        assert_eq!(shared.len(), 1, "{shared:?}");
        assert_eq!(summary.bytes, 7 * (1 << 20) + (64 << 10));
    }

    /// `data` as object `payload` of a simulated S3 store without spread,
    /// tail or link limit (25 ms + 5 ms/MiB a GET), each connection capped
    /// at `per_conn_mib_per_s` (0 for none).
    async fn simulated_payload(
        data: Vec<u8>,
        per_conn_mib_per_s: f64,
    ) -> (crate::simulated::SimulatedStore, Path) {
        use crate::simulated::{SimulateConfig, SimulatedStore};
        let inner: Arc<dyn ObjectStore> = Arc::new(object_store::memory::InMemory::new());
        let path = Path::from("payload");
        object_store::ObjectStoreExt::put(&*inner, &path, data.into())
            .await
            .unwrap();
        let config = SimulateConfig {
            link_mib_per_s: 0.0,
            per_conn_mib_per_s,
            tail_probability: 0.0,
            first_byte_sigma: 0.0,
            ..SimulateConfig::s3()
        };
        (SimulatedStore::new(inner, config), path)
    }

    /// `read_each` hands a range over when the GETs covering it are in, not
    /// when the call's slowest GET is: under a paused clock, a small range's
    /// GET lands at ~25 ms and is handed over then, while an 8 MiB range at
    /// 1 MiB/s a connection keeps the call going for 8 s. A range split
    /// over two GETs (the lance rule halves one past 16 MiB) is handed over
    /// once, when both are in; overlapping requested ranges each once; every
    /// handed range equals the answer's.
    #[tokio::test(start_paused = true)]
    async fn each_range_is_handed_over_when_its_own_gets_land() {
        let size = 40usize << 20;
        let data: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let (sim, path) = simulated_payload(data.clone(), 1.0).await;
        let store = PlannedStore::builder(Arc::new(sim))
            .without_hedging()
            .build()
            .unwrap();
        let mib = 1u64 << 20;
        let ranges = [
            30 * mib..38 * mib,            // 0: 8 MiB, slow
            0..1024,                       // 1: small, fast
            2 * mib..(2 * mib + 17 * mib), // 2: two GETs of 8.5 MiB
            2 * mib + 5..2 * mib + 10,     // 3: inside 2
            39 * mib..39 * mib,            // 4: empty, never handed over
        ];
        let mut opts = store.plan_options().clone();
        opts.method = planner_core::Method::LanceRule;
        opts.load_aware = false;
        let start = Instant::now();
        let mut handed: Vec<(usize, Bytes, Duration)> = Vec::new();
        let read = store
            .read_each(&path, &ranges, &opts, None, |i, b| {
                handed.push((i, b.clone(), start.elapsed()));
            })
            .await
            .unwrap();
        let done = start.elapsed();
        assert_eq!(read.requests.len(), 4, "{:?}", read.requests);
        let mut order: Vec<usize> = handed.iter().map(|h| h.0).collect();
        order.sort_unstable();
        assert_eq!(order, [0, 1, 2, 3], "each non-empty range once");
        for (i, b, _) in &handed {
            assert_eq!(b, &read.parts[*i], "range {i}");
            let r = &ranges[*i];
            assert_eq!(&b[..], &data[r.start as usize..r.end as usize], "range {i}");
        }
        let at = |i: usize| handed.iter().find(|h| h.0 == i).unwrap().2;
        // The 1 KiB GET: its first byte and a millisecond of body.
        assert!(at(1) < Duration::from_millis(100), "{:?}", at(1));
        // The split range waits for both of its 8.5 MiB GETs (8.5 s), the
        // 8 MiB range for its one (8 s).
        assert!(at(2) >= Duration::from_millis(8500), "{:?}", at(2));
        assert_eq!(at(2), at(3));
        assert!(
            at(0) < at(2) && at(2) <= done,
            "{:?} {:?} {done:?}",
            at(0),
            at(2)
        );
    }

    /// A GET is hedged when it is slow for the store, not for the price
    /// its plan was made at. With the link known at 20 MiB/s, a load-aware
    /// read prices a byte far above the S3 prior's 5 ms/MiB (and leaves
    /// the gaps out); its GETs, each taking exactly the prior's time on a
    /// store without spread, must read at the prior's pace (`ρ` = 1), not
    /// at a small fraction of it, which would put the median the next
    /// unpriced call's GETs are judged by far below their normal time.
    #[tokio::test(start_paused = true)]
    async fn hedges_time_gets_by_the_stores_model_not_by_the_plans_price() {
        use crate::load::{GetSample, WINDOW};
        let (sim, path) = simulated_payload(vec![3u8; 4 << 20], 0.0).await;
        let store = PlannedStore::builder(Arc::new(sim)).build().unwrap();
        // The link seen full at 20 MiB/s: 1 MiB GETs at twice their
        // unloaded time, one completing every 50 ms.
        store.load.note_prior((25.0, 5.0));
        let mut t = Instant::now();
        for _ in 0..4 * WINDOW {
            t += Duration::from_millis(50);
            store.load.observe(GetSample {
                len: 1 << 20,
                first_byte_ms: 60.0,
                latency_ms: 60.0,
                waited_ms: 0.0,
                late_ms: 0.0,
                in_flight: 8,
                done: t,
            });
        }
        let c = store.load().capacity_mib_s.expect("the link is known");
        assert!((c - 20.0).abs() < 1.0, "{c}");
        // Sixteen 64 KiB ranges 256 KiB apart.
        let ranges: Vec<Range<u64>> = (0..16u64)
            .map(|i| i * (256 << 10)..i * (256 << 10) + (64 << 10))
            .collect();
        let opts = store.plan_options().clone();
        let read = store.read(&path, &ranges, &opts, None).await.unwrap();
        let (_, per_mib) = affine(&read.surrogate).unwrap();
        assert!(per_mib > 20.0, "a priced plan: {:?}", read.surrogate);
        let ratios = store.hedger.as_ref().unwrap().ratios();
        assert_eq!(ratios.len(), read.requests.len());
        for rho in ratios {
            assert!((rho - 1.0).abs() < 0.05, "{rho}: {:?}", read.requests);
        }
        assert_eq!(read.stats.hedges, 0);
    }

    #[test]
    fn intervals_are_cut_from_every_covering_request() {
        let data = Bytes::from_static(b"abcdefghijklmnopqrstuvwxyz");
        // Intervals [2, 6) and [10, 20); the second split over two requests.
        let intervals = [Interval::new(2, 4), Interval::new(10, 10)];
        let requests = [
            Request {
                first: 0,
                last: 1,
                offset: 2,
                len: 12,
            },
            Request {
                first: 1,
                last: 1,
                offset: 14,
                len: 6,
            },
        ];
        let bodies = [
            (Body::new(vec![data.slice(2..14)]), 26),
            (Body::new(vec![data.slice(14..20)]), 26),
        ];
        let parts = interval_parts(&intervals, &requests, &bodies);
        assert_eq!(parts, vec![&b"cdef"[..], b"klmnopqrst"]);
        // The same bodies in chunks that cut both intervals: the same parts,
        // and the first interval, inside one chunk, is a slice of it.
        let bodies = [
            (
                Body::new(vec![
                    data.slice(2..5),
                    data.slice(5..12),
                    data.slice(12..14),
                ]),
                26,
            ),
            (Body::new(vec![data.slice(14..15), data.slice(15..20)]), 26),
        ];
        let parts = interval_parts(&intervals, &requests, &bodies);
        assert_eq!(parts, vec![&b"cdef"[..], b"klmnopqrst"]);
        let bodies = [(Body::new(vec![data.slice(0..26)]), 26)];
        let one = [Request {
            first: 0,
            last: 1,
            offset: 0,
            len: 26,
        }];
        let parts = interval_parts(&intervals, &one, &bodies);
        assert_eq!(parts[0].as_ptr(), data[2..].as_ptr(), "zero-copy");
    }

    /// A call's deadline covers its planning: `exact` over 2 000 intervals
    /// of uneven lengths and gaps with `K_max = n` (it runs into its own
    /// 60 s deadline; evenly spaced intervals of one length let the DP
    /// prune, and it finished in 0.26 s on a 2-vCPU EPYC VM, before the call's
    /// deadline) stops at the call's 300 ms deadline with the deadline's
    /// error, and a deadline already passed plans nothing.
    #[tokio::test]
    async fn the_calls_deadline_stops_its_planning() {
        let store = PlannedStore::builder(Arc::new(object_store::memory::InMemory::new()))
            .without_hedging()
            .build()
            .unwrap();
        let path = Path::from("p");
        let mut start = 0u64;
        let ranges: Vec<Range<u64>> = (0..2_000u64)
            .map(|i| {
                let len = 10 + (i * 37) % 90;
                let r = start..start + len;
                start += len + (i * i * 7919) % 1000;
                r
            })
            .collect();
        let mut opts = store.plan_options().clone();
        opts.method = Method::Exact;
        opts.load_aware = false;
        opts.k_max = None;
        let budget = Duration::from_millis(300);
        let start = std::time::Instant::now();
        let e = store
            .read(&path, &ranges, &opts, Some(Deadline::after(budget)))
            .await
            .unwrap_err();
        let took = start.elapsed();
        assert!(
            matches!(e, PlannedError::DeadlineExceeded { deadline, .. } if deadline == budget),
            "{e}"
        );
        // A bound, not a timing: without the deadline the plan runs ~60 s.
        assert!(took < Duration::from_secs(20), "{took:?}");
        let passed = Deadline {
            at: Instant::now() - Duration::from_millis(1),
            budget,
        };
        let e = store
            .read(&path, &ranges, &opts, Some(passed))
            .await
            .unwrap_err();
        assert!(matches!(e, PlannedError::DeadlineExceeded { .. }), "{e}");
        assert_eq!(store.stats().totals.deadline_misses, 2);
    }

    /// An IVF query's plan is light; `exact` over thousands of intervals
    /// is heavy, and runs off the workers without stopping the others.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn a_heavy_plan_leaves_the_workers_to_the_other_tasks() {
        let intervals: Vec<Interval> = (0..4096u64).map(|i| Interval::new(i * 100, 10)).collect();
        let req = |n: usize, method| PlanRequest {
            intervals: &intervals[..n],
            k_max: n,
            parallelism: None,
            surrogate: &Surrogate::S3,
            epsilon: 0.01,
            method,
        };
        assert!(!heavy(&req(16, Method::Warp)));
        assert!(!heavy(&req(16, Method::Exact)));
        assert!(heavy(&req(4096, Method::Warp)));
        assert!(heavy(&req(4096, Method::Exact)));
        // One worker, two tasks: a ticker, and a task planning `exact` at
        // `P = 8` over 4 096 scattered intervals with `K_max = n` until its
        // 1 s deadline.
        let ticks = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let ticker = {
            let ticks = Arc::clone(&ticks);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
        };
        let planner = {
            let ticks = Arc::clone(&ticks);
            tokio::spawn(async move {
                let scattered: Vec<Interval> = (0..4096u64)
                    .map(|i| Interval::new(i * 65_536 + (i * i % 4096) * 8, 4096 + i % 9000))
                    .collect();
                let exact = PlanRequest {
                    intervals: &scattered,
                    k_max: 4096,
                    parallelism: Some(8.0),
                    surrogate: &Surrogate::S3,
                    epsilon: 0.01,
                    method: Method::Exact,
                };
                let before = ticks.load(std::sync::atomic::Ordering::Relaxed);
                let by = std::time::Instant::now() + Duration::from_secs(1);
                let out = off_the_workers(heavy(&exact), || {
                    use crate::backend::{NativeBackend, PlanBackend};
                    NativeBackend::new(planner_core::PlanLimits::default())
                        .plan_by(&exact, Some(by))
                });
                (
                    out.is_err(),
                    ticks.load(std::sync::atomic::Ordering::Relaxed) - before,
                )
            })
        };
        let (stopped, seen) = planner.await.unwrap();
        ticker.abort();
        assert!(stopped, "the plan ran to its deadline");
        // Inline, the ticker could not have run once in that second.
        assert!(seen >= 30, "{seen} ticks");
    }
}
