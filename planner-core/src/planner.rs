//! The allocation-bounded planner: validate, dispatch to a method, report.

use crate::baseline::{OBJECT_STORE_COALESCE_GAP, coalesce, lance_rule, separate};
use crate::dp::thresholded;
use crate::frontier_search::{self, Mode};
use crate::interval::{Interval, validate_with};
use crate::method::Method;
use crate::min_b::{flat_cap, min_b_cap};
use crate::objective::Parallelism;
use crate::pareto::{self, FrontierPoint};
use crate::plan::{PlanSummary, Request, summarize};
use crate::search::Search;
use crate::spans::Spans;
use crate::surrogate::Surrogate;
use crate::workspace::{Bounds, Capacity, Workspace};
use crate::{PlanError, exact};

/// One planning problem (DESIGN §5 instance, borrowed).
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
/// [`Planner::plan`] then performs no heap allocation, so a query path can keep
/// one planner per worker.
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
    capacity: Capacity,
    bounds: Bounds,
    ws: Workspace,
}

impl Planner {
    /// Allocates a planner for instances of up to `capacity.max_intervals`
    /// intervals and effective budgets up to `capacity.max_k`.
    ///
    /// # Errors
    /// [`PlanError::CapacityExceeded`] when the workspace size overflows or
    /// `max_intervals` exceeds `u32::MAX`.
    pub fn new(capacity: Capacity) -> Result<Self, PlanError> {
        capacity.workspace_bytes()?;
        if capacity.max_intervals > u32::MAX as usize - 1 {
            return Err(PlanError::CapacityExceeded {
                what: "intervals",
                requested: capacity.max_intervals,
                capacity: u32::MAX as usize - 1,
            });
        }
        let n = capacity.max_intervals;
        Ok(Self {
            capacity,
            bounds: Bounds {
                start: vec![0; n],
                end: vec![0; n],
            },
            ws: Workspace::new(capacity),
        })
    }

    /// The capacities this planner was built with.
    pub fn capacity(&self) -> Capacity {
        self.capacity
    }

    /// Bytes of workspace actually held (at most [`Capacity::workspace_bytes`]).
    pub fn workspace_bytes(&self) -> usize {
        self.ws.bytes()
            + (self.bounds.start.capacity() + self.bounds.end.capacity()) * size_of::<u64>()
    }

    /// Validates `req` and plans it with `req.method`.
    ///
    /// # Complexity
    /// That of the method (see [`Method`]); no heap allocation.
    ///
    /// # Errors
    /// Any DESIGN §5 validation error, naming the field, or
    /// [`PlanError::CapacityExceeded`].
    pub fn plan(&mut self, req: &PlanRequest<'_>) -> Result<Plan<'_>, PlanError> {
        let (n, k_max, p) = self.prepare(req)?;
        let sp = Spans::new(
            &self.bounds.start[..n],
            &self.bounds.end[..n],
            req.surrogate,
        );
        let required = sp.required_bytes();
        let ws = &mut self.ws;
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
                let mut s = Search::new(&sp, p, k_max, ws);
                let lb = if n == 0 {
                    0.0
                } else {
                    match req.method {
                        Method::Exact => exact::search(&mut s),
                        Method::Frontier => {
                            frontier_search::search(&mut s, req.epsilon, Mode::Exact)
                        }
                        Method::Lagrangian => {
                            frontier_search::search(&mut s, req.epsilon, Mode::Lagrangian)
                        }
                        _ => frontier_search::search(&mut s, req.epsilon, Mode::Auto),
                    }
                };
                (s.best_len, Some(lb))
            }
        };
        let requests = &self.ws.best[..len];
        let mut summary = summarize(requests, required, req.surrogate, p);
        summary.lower_bound_ms = lower_bound.map(|lb| lb.min(summary.t_ms));
        Ok(Plan { requests, summary })
    }

    /// Validates `req` into the interval bounds; returns `n`, the effective
    /// budget `min(K_max, n)` and `P`.
    fn prepare(&mut self, req: &PlanRequest<'_>) -> Result<(usize, usize, Parallelism), PlanError> {
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
                field: "method.coalesce.max_span",
                reason: "must be >= 1 or null",
            });
        }
        let n = req.intervals.len();
        if n > self.capacity.max_intervals {
            return Err(PlanError::CapacityExceeded {
                what: "intervals",
                requested: n,
                capacity: self.capacity.max_intervals,
            });
        }
        let k_max = req.k_max.min(n.max(1));
        if k_max > self.capacity.max_k.max(1) {
            return Err(PlanError::CapacityExceeded {
                what: "k_max",
                requested: k_max,
                capacity: self.capacity.max_k,
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
        Ok((n, k_max, p))
    }

    /// The `(B, W)` Pareto frontier of plans with `|π| ≤ K_max`, `B` ascending:
    /// for each vertex, the least-`W` plan whose longest span is at most its cap.
    ///
    /// This is the paper's Pareto walk: from the uncapped plan, each vertex is
    /// the capped optimum just below the previous vertex's longest span,
    /// down to the min-B cap.
    /// With `exact`, every cap uses the exact thresholded DP; otherwise the
    /// Lagrangian evaluation (points then flagged by [`FrontierPoint::exact`]).
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
        let (n, k_max, p) = self.prepare(req)?;
        if n == 0 || max_points == 0 {
            return Ok(());
        }
        let sp = Spans::new(
            &self.bounds.start[..n],
            &self.bounds.end[..n],
            req.surrogate,
        );
        pareto::walk(&sp, k_max, p, exact, max_points, &mut self.ws, out);
        Ok(())
    }
}

/// Workspace limit of [`plan_once`]: 1 GiB.
pub const PLAN_ONCE_WORKSPACE_LIMIT: usize = 1 << 30;

/// Plans one request with a planner sized exactly for it (allocates; for
/// one-off use — keep a [`Planner`] on a query path).
///
/// # Errors
/// As [`Planner::plan`], and [`PlanError::CapacityExceeded`] (`what =
/// "workspace bytes"`) when the instance would need more than
/// [`PLAN_ONCE_WORKSPACE_LIMIT`] of workspace.
pub fn plan_once(req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary), PlanError> {
    let n = req.intervals.len();
    let capacity = Capacity::new(n, req.k_max.min(n));
    let bytes = capacity.workspace_bytes()?;
    if bytes > PLAN_ONCE_WORKSPACE_LIMIT {
        return Err(PlanError::CapacityExceeded {
            what: "workspace bytes",
            requested: bytes,
            capacity: PLAN_ONCE_WORKSPACE_LIMIT,
        });
    }
    let mut planner = Planner::new(capacity)?;
    let plan = planner.plan(req)?;
    Ok((plan.requests.to_vec(), plan.summary))
}
