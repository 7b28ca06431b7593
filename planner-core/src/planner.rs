//! The allocation-bounded planner: validate, dispatch to a method, report.

use crate::baseline::{OBJECT_STORE_COALESCE_GAP, coalesce, lance_rule, separate};
use crate::dp::thresholded;
use crate::frontier_search::{self, Mode};
use crate::interrupt::Stop;
use crate::interval::{Interval, validate_with};
use crate::method::Method;
use crate::min_b::{flat_cap, min_b_cap};
use crate::objective::Parallelism;
use crate::pareto::{self, FrontierPoint};
use crate::plan::{PlanSummary, Request, summarize};
use crate::search::{Inner, Search};
use crate::spans::Spans;
use crate::surrogate::Surrogate;
use crate::workspace::{Bounds, Capacity, Held, Parts, Workspace};
use crate::{Field, PlanError, Resource, exact};

/// One planning problem (ARCHITECTURE §5 instance, borrowed).
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    /// Sorted, non-overlapping, non-empty intervals.
    pub intervals: &'a [Interval],
    /// Request budget `K_max >= 1`.
    pub k_max: usize,
    /// Expected request parallelism `P >= 1`; `None` for unbounded.
    pub parallelism: Option<f64>,
    /// Request-time surrogate.
    pub surrogate: &'a Surrogate,
    /// Relative tolerance `ε >= 0` of the ε-methods.
    pub epsilon: f64,
    /// The method.
    pub method: Method,
}

/// A plan: its requests (borrowed from the planner's workspace) and figures.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    /// Requests in byte order.
    pub requests: &'a [Request],
    /// `W`, `B`, `T_P`, requests, bytes, overfetch, lower bound.
    pub summary: PlanSummary,
}

/// Plans requests within fixed capacities.
///
/// [`Planner::new`] allocates the whole workspace ([`Capacity::workspace_bytes`]);
/// [`Planner::reserve`] grows only what a method needs
/// ([`Capacity::workspace_bytes_for`]); both refuse a workspace above the
/// planner's memory limit with [`PlanError::MemoryLimit`] instead of
/// allocating it. [`Planner::plan`] then performs no heap allocation, so a
/// query path can keep one planner per worker; [`Planner::plan_until`] also
/// stops at the caller's deadline.
///
/// # Examples
/// ```
/// use planner_core::{Capacity, Interval, Method, PlanRequest, Planner, Surrogate};
///
/// let mut planner = Planner::new(Capacity::new(64, 16)).unwrap();
/// let intervals = [Interval::new(0, 4096), Interval::new(8192, 4096), Interval::new(64 << 20, 4096)];
/// let plan = planner
///     .plan(&PlanRequest {
///         intervals: &intervals,
///         k_max: 2,
///         parallelism: Some(4.0),
///         surrogate: &Surrogate::S3,
///         epsilon: 0.01,
///         method: Method::Warp,
///     })
///     .unwrap();
/// // The two close intervals share a request; the far one gets its own.
/// assert_eq!(plan.summary.requests, 2);
/// assert_eq!((plan.requests[0].first, plan.requests[0].last), (0, 1));
/// assert!(plan.summary.lower_bound_ms.unwrap() <= plan.summary.t_ms);
/// ```
pub struct Planner {
    limit: u64,
    bounds: Bounds,
    ws: Workspace,
}

impl core::fmt::Debug for Planner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Planner")
            .field("capacity", &self.capacity())
            .field("memory_limit", &self.limit)
            .finish_non_exhaustive()
    }
}

impl Planner {
    /// The memory limit of [`Planner::new`] and [`plan_once`]: 1 GiB of workspace.
    pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

    /// The largest workspace limit a planner in a 32-bit WebAssembly guest can
    /// honour: 2 016 MiB. The guest's linear memory is at most 4 GiB, and a
    /// workspace that grows briefly holds its old and its new buffers, so
    /// `2 · limit` plus the module's own memory (64 MiB is room for it and
    /// the call's input and output) must fit. Above it, a guest would trap on
    /// a failed allocation instead of refusing the instance with
    /// [`PlanError::MemoryLimit`]: the planner component clamps the limit it
    /// is given to this, and the `warp` host refuses a larger
    /// `plan_memory_bytes`, so that both backends refuse the same instances.
    pub const MAX_GUEST_MEMORY_LIMIT: u64 = ((4u64 << 30) - (64 << 20)) / 2;

    /// The largest number of intervals per call (interval indices are `u32`).
    pub const MAX_INTERVALS: usize = u32::MAX as usize - 1;

    /// Allocates a planner for instances of up to `capacity.max_intervals`
    /// intervals and effective budgets up to `capacity.max_k`, for every
    /// method ([`Capacity::workspace_bytes`]).
    ///
    /// # Errors
    /// [`PlanError::MemoryLimit`] when the workspace exceeds
    /// [`Planner::DEFAULT_MEMORY_LIMIT`]; [`PlanError::CapacityExceeded`] when
    /// `max_intervals` exceeds [`Planner::MAX_INTERVALS`].
    pub fn new(capacity: Capacity) -> Result<Self, PlanError> {
        let mut planner = Self::with_memory_limit(Self::DEFAULT_MEMORY_LIMIT);
        planner.reserve(capacity.max_intervals, capacity.max_k, &Method::Exact)?;
        Ok(planner)
    }

    /// An empty planner (no workspace yet) whose [`Planner::reserve`] refuses
    /// workspaces above `limit` bytes.
    pub fn with_memory_limit(limit: u64) -> Self {
        Self {
            limit,
            bounds: Bounds::new(0),
            ws: Workspace::new(Held::default()),
        }
    }

    /// The workspace limit, bytes.
    pub fn memory_limit(&self) -> u64 {
        self.limit
    }

    /// Makes room for `n` intervals and budget `k_max` with `method`: grows the
    /// buffers that method uses ([`Capacity::workspace_bytes_for`]); keeps
    /// what is already held when the total stays within the memory limit,
    /// else frees it first. `warp` takes the DP table only when it fits (it
    /// then plans as `lagrangian`, see [`Method::Warp`]).
    ///
    /// # Errors
    /// [`PlanError::MemoryLimit`] when `method` needs more than the memory
    /// limit for this instance, saying what to change;
    /// [`PlanError::CapacityExceeded`] beyond [`Planner::MAX_INTERVALS`].
    /// Whether a call is refused depends only on `(n, k_max, method)` and the
    /// limit, never on what the planner held before.
    pub fn reserve(&mut self, n: usize, k_max: usize, method: &Method) -> Result<(), PlanError> {
        if n > Self::MAX_INTERVALS {
            return Err(PlanError::CapacityExceeded {
                what: Resource::Intervals,
                requested: n as u64,
                capacity: Self::MAX_INTERVALS as u64,
            });
        }
        let k = k_max.min(n);
        let parts = self.parts(n, k, method)?;
        if self.ws.held.covers(n, k, parts) {
            return Ok(());
        }
        let exact = Held::exactly(n, k, parts);
        let grown = self.ws.held.union(&exact);
        let target = if grown.bytes() <= self.limit {
            grown
        } else {
            exact
        };
        // Free the old workspace before allocating the new one.
        self.ws = Workspace::new(Held::default());
        self.bounds = Bounds::new(0);
        self.bounds = Bounds::new(target.base);
        self.ws = Workspace::new(target);
        Ok(())
    }

    /// The parts `method` uses for `n` intervals and budget `k ≤ n` under the
    /// limit, or the refusal.
    fn parts(&self, n: usize, k: usize, method: &Method) -> Result<Parts, PlanError> {
        let cap = Capacity::new(n, k);
        let mut parts = Parts::of(method);
        if *method == Method::Warp && cap.bytes(parts) > self.limit {
            parts.table = false;
        }
        let needed = cap.bytes(parts);
        if needed > self.limit {
            return Err(PlanError::MemoryLimit {
                needed,
                table: if parts.table { cap.table_bytes() } else { 0 },
                limit: self.limit,
                intervals: n as u64,
            });
        }
        Ok(parts)
    }

    /// What every method can plan without growing: `max_intervals` from the
    /// buffers all methods share, `max_k` the budget of the DP table (0
    /// before a table method was reserved).
    pub fn capacity(&self) -> Capacity {
        let held = self.ws.held;
        let all = held.base.min(held.search).min(held.table.0);
        Capacity::new(all, if all == 0 { 0 } else { held.table.1 })
    }

    /// Bytes of workspace actually held (at most the formula's
    /// [`Capacity::workspace_bytes_for`] of what was reserved).
    pub fn workspace_bytes(&self) -> usize {
        self.bounds.bytes() + self.ws.bytes()
    }

    /// Validates `req` and plans it with `req.method`.
    ///
    /// # Complexity
    /// That of the method (see [`Method`]); no heap allocation.
    ///
    /// # Errors
    /// Any ARCHITECTURE §5 validation error, naming the field;
    /// [`PlanError::MemoryLimit`] when the method needs more workspace than
    /// the limit allows; [`PlanError::CapacityExceeded`] when the planner was
    /// not [reserved](Planner::reserve) for the instance.
    pub fn plan(&mut self, req: &PlanRequest<'_>) -> Result<Plan<'_>, PlanError> {
        self.run(req, Stop::never())
    }

    /// As [`Planner::plan`], polling `interrupt` between units of work (a DP
    /// layer, a penalized-DP solve, 256 rows of a quadratic row scan, a cap of
    /// the exact search); once it returns `true` the call stops.
    ///
    /// # Errors
    /// As [`Planner::plan`], and [`PlanError::Interrupted`] when `interrupt`
    /// fired before the plan was complete.
    ///
    /// # Examples
    /// ```
    /// use planner_core::{Capacity, Interval, Method, PlanError, PlanRequest, Planner, Surrogate};
    ///
    /// let mut planner = Planner::new(Capacity::new(64, 16)).unwrap();
    /// let intervals: Vec<Interval> = (0..64).map(|i| Interval::new(i << 20, 4096)).collect();
    /// let req = PlanRequest {
    ///     intervals: &intervals,
    ///     k_max: 16,
    ///     parallelism: Some(8.0),
    ///     surrogate: &Surrogate::S3,
    ///     epsilon: 0.0,
    ///     method: Method::Exact,
    /// };
    /// // A deadline that has already passed.
    /// assert_eq!(planner.plan_until(&req, &mut || true).unwrap_err(), PlanError::Interrupted);
    /// ```
    pub fn plan_until(
        &mut self,
        req: &PlanRequest<'_>,
        interrupt: &mut dyn FnMut() -> bool,
    ) -> Result<Plan<'_>, PlanError> {
        self.run(req, Stop::when(interrupt))
    }

    fn run(&mut self, req: &PlanRequest<'_>, mut stop: Stop<'_>) -> Result<Plan<'_>, PlanError> {
        let (n, k_max, p, parts) = self.prepare(req, &req.method)?;
        let ws = &mut self.ws;
        let sp = Spans::new(
            &self.bounds.start[..n],
            &self.bounds.end[..n],
            req.surrogate,
        );
        let required = sp.required_bytes();
        let stop = &mut stop;
        let (len, lower_bound) = match req.method {
            Method::Separate => (separate::plan(&sp, &mut ws.best), None),
            Method::Coalesce { max_gap, max_span } => {
                (coalesce::plan(&sp, max_gap, max_span, &mut ws.best), None)
            }
            Method::ObjectStoreRule => (
                coalesce::plan(&sp, OBJECT_STORE_COALESCE_GAP, None, &mut ws.best),
                None,
            ),
            Method::LanceRule => (lance_rule::plan(&sp, &mut ws.best)?, None),
            Method::MinW | Method::MinB => {
                let cap = if req.method == Method::MinW {
                    sp.total_span()
                } else {
                    flat_cap(&sp, min_b_cap(&sp, k_max))
                };
                let convex = req.surrogate.is_convex();
                let len = thresholded::capped_min_w(
                    &sp,
                    cap,
                    k_max,
                    convex,
                    &mut ws.layered,
                    &mut ws.best,
                    stop,
                )
                .unwrap_or(0);
                let optimal_for_p = match p {
                    Parallelism::Finite(v) => req.method == Method::MinW && v == 1.0,
                    Parallelism::Unbounded => req.method == Method::MinB,
                };
                let lb = optimal_for_p
                    .then(|| summarize(&ws.best[..len], required, req.surrogate, p).t_ms);
                (len, lb)
            }
            Method::Exact | Method::Frontier | Method::Lagrangian | Method::Warp => {
                let mut s = Search::new(&sp, p, k_max, ws, stop);
                let lb = if n == 0 {
                    0.0
                } else {
                    match req.method {
                        Method::Exact => exact::search(&mut s),
                        Method::Frontier => {
                            frontier_search::search(&mut s, req.epsilon, Mode::ThresholdedDp)
                        }
                        // Without the table (it did not fit), warp is lagrangian.
                        Method::Lagrangian => {
                            frontier_search::search(&mut s, req.epsilon, Mode::Lagrangian)
                        }
                        _ if !parts.table => {
                            frontier_search::search(&mut s, req.epsilon, Mode::Lagrangian)
                        }
                        _ => frontier_search::search(&mut s, req.epsilon, Mode::LagrangianThenDp),
                    }
                };
                (s.best_len, Some(lb))
            }
        };
        if stop.stopped() {
            return Err(PlanError::Interrupted);
        }
        let requests = &self.ws.best[..len];
        let mut summary = summarize(requests, required, req.surrogate, p);
        summary.lower_bound_ms = lower_bound.map(|lb| lb.min(summary.t_ms));
        Ok(Plan { requests, summary })
    }

    /// Validates `req` into the interval bounds, for the buffers of `method`;
    /// returns `n`, the effective budget `min(K_max, n)`, `P` and the parts.
    fn prepare(
        &mut self,
        req: &PlanRequest<'_>,
        method: &Method,
    ) -> Result<(usize, usize, Parallelism, Parts), PlanError> {
        if req.k_max == 0 {
            return Err(PlanError::ZeroKMax);
        }
        let p = Parallelism::new(req.parallelism)?;
        if !(req.epsilon.is_finite() && req.epsilon >= 0.0) {
            return Err(PlanError::InvalidEpsilon { value: req.epsilon });
        }
        req.surrogate.validate()?;
        if let Method::Coalesce {
            max_span: Some(0), ..
        } = req.method
        {
            return Err(PlanError::InvalidMethodParameter {
                field: Field::CoalesceMaxSpan,
                reason: "must be >= 1 or null".into(),
            });
        }
        let n = req.intervals.len();
        let k_max = req.k_max.min(n.max(1));
        let parts = self.parts(n, k_max.min(n), method)?;
        let held = self.ws.held;
        if n > held.base || (parts.search && n > held.search) || (parts.table && n > held.table.0) {
            let capacity = if parts.table {
                held.base.min(held.table.0)
            } else if parts.search {
                held.base.min(held.search)
            } else {
                held.base
            };
            return Err(PlanError::CapacityExceeded {
                what: Resource::Intervals,
                requested: n as u64,
                capacity: capacity as u64,
            });
        }
        if parts.table && k_max > held.table.1.max(1) {
            return Err(PlanError::CapacityExceeded {
                what: Resource::KMax,
                requested: k_max as u64,
                capacity: held.table.1 as u64,
            });
        }
        let (start, end) = (&mut self.bounds.start, &mut self.bounds.end);
        validate_with(req.intervals, |i, s, e| {
            start[i] = s;
            end[i] = e;
        })?;
        if n > 0 {
            let span = self.bounds.end[n - 1] - self.bounds.start[0];
            if !(req.surrogate.eval(span) * (n as f64 + 1.0)).is_finite() {
                return Err(PlanError::SurrogateOverflow { span });
            }
        }
        Ok((n, k_max, p, parts))
    }

    /// The `(B, W)` Pareto frontier of plans with `|π| ≤ K_max`, `B` ascending:
    /// for each vertex, the least-`W` plan whose longest span is at most its cap.
    ///
    /// This is the paper's Pareto walk: from the uncapped plan, each vertex is
    /// the capped optimum just below the previous vertex's longest span,
    /// down to the min-B cap.
    /// With `exact` (the WIT's `exact` argument), every cap uses the complete
    /// thresholded DP, so every point is `W`-optimal for its cap (the buffers
    /// of [`Method::Frontier`]); otherwise the Lagrangian evaluation (those of
    /// [`Method::Lagrangian`]; [`FrontierPoint::exact`] then says which points
    /// are proven optimal). Not to be confused with the adaptive search of
    /// [`Method::Frontier`], which plans one request without listing this
    /// set (ARCHITECTURE §3, *Names*).
    ///
    /// # Complexity
    /// One DP per vertex (at most `max_points`); allocates only by growing
    /// `out` (reserve `max_points` to avoid it).
    ///
    /// # Errors
    /// As [`Planner::plan`].
    pub fn frontier(
        &mut self,
        req: &PlanRequest<'_>,
        exact: bool,
        max_points: usize,
        out: &mut Vec<FrontierPoint>,
    ) -> Result<(), PlanError> {
        out.clear();
        let (n, k_max, p, _) = self.prepare(req, &Self::frontier_method(exact))?;
        if n == 0 || max_points == 0 {
            return Ok(());
        }
        let ws = &mut self.ws;
        let sp = Spans::new(
            &self.bounds.start[..n],
            &self.bounds.end[..n],
            req.surrogate,
        );
        let inner = if exact {
            Inner::ThresholdedDp
        } else {
            Inner::Lagrangian
        };
        pareto::walk(&sp, k_max, p, inner, max_points, ws, out);
        Ok(())
    }

    /// The figures of a caller's plan: `groups` (inclusive `(first, last)`
    /// interval indices) must partition the intervals into contiguous runs in
    /// order. The instance is validated as [`Planner::plan`] validates it
    /// (its method is ignored; the planner needs the buffers of
    /// [`Method::Separate`], see [`Planner::reserve`]).
    ///
    /// # Complexity
    /// `O(n + |groups|)`; allocates the returned requests.
    ///
    /// # Errors
    /// The instance's validation errors, then [`PlanError::InvalidGroups`]
    /// naming the first bad group.
    pub fn evaluate(
        &mut self,
        req: &PlanRequest<'_>,
        groups: &[(u32, u32)],
    ) -> Result<(Vec<Request>, PlanSummary), PlanError> {
        self.prepare(req, &Method::Separate)?;
        let n = req.intervals.len();
        let bad = |field: String, message: String| PlanError::InvalidGroups { field, message };
        let mut next = 0usize;
        let mut out = Vec::with_capacity(groups.len().min(n));
        for (i, &(first, last)) in groups.iter().enumerate() {
            let (first, last) = (first as usize, last as usize);
            if first != next {
                return Err(bad(
                    format!("groups[{i}].first"),
                    format!(
                        "expected {next} (groups must cover the intervals in order without gaps), got {first}"
                    ),
                ));
            }
            if last < first || last >= n {
                return Err(bad(
                    format!("groups[{i}].last"),
                    format!("must be in {first}..={}, got {last}", n.saturating_sub(1)),
                ));
            }
            let offset = req.intervals[first].offset;
            out.push(Request {
                first: first as u32,
                last: last as u32,
                offset,
                len: req.intervals[last].offset + req.intervals[last].len - offset,
            });
            next = last + 1;
        }
        if next != n {
            return Err(bad(
                "groups".into(),
                format!("cover intervals 0..{next} of 0..{n}"),
            ));
        }
        let required = req.intervals.iter().map(|iv| iv.len).sum();
        let summary = summarize(
            &out,
            required,
            req.surrogate,
            Parallelism::new(req.parallelism)?,
        );
        Ok((out, summary))
    }

    /// The method whose buffers [`Planner::frontier`] uses.
    pub fn frontier_method(exact: bool) -> Method {
        if exact {
            Method::Frontier
        } else {
            Method::Lagrangian
        }
    }
}

/// Plans one request with a planner sized exactly for it (allocates; for
/// one-off use — keep a [`Planner`] on a query path), within
/// [`Planner::DEFAULT_MEMORY_LIMIT`].
///
/// # Errors
/// As [`Planner::plan`] and [`Planner::reserve`].
pub fn plan_once(req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary), PlanError> {
    let mut planner = Planner::with_memory_limit(Planner::DEFAULT_MEMORY_LIMIT);
    planner.reserve(req.intervals.len(), req.k_max, &req.method)?;
    let plan = planner.plan(req)?;
    Ok((plan.requests.to_vec(), plan.summary))
}
