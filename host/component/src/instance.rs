//! [`PlannerComponent`]: one instance of the component and its calls.

use std::fmt;
use std::time::Instant;

use planner_core::reorder::{Layout, ReorderInput};
use planner_core::{FrontierPoint, Method, PlanError, PlanRequest, PlanSummary, Request};
use wasmtime::{Store, Trap};

use super::bindings::PlannerComponent as Bindings;
use super::bindings::exports::warp::planner::planner as wit;
use super::bindings::exports::warp::planner::reorder as wit_reorder;
use super::budget::{Budget, CallSize, Guard, guest_memory_max};
use super::convert;
use super::engine::{load_err, shared};
use super::error::{ComponentError, TrapCause, Work};
use planner_core::PlanLimits;

/// One instance of the planner component, for one worker (it is `Send`, not
/// shared: give each thread its own).
pub struct PlannerComponent {
    limits: PlanLimits,
    store: Store<Guard>,
    instance: Bindings,
}

impl fmt::Debug for PlannerComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannerComponent")
            .field("limits", &self.limits)
            .field("memory_bytes", &self.store.data().memory)
            .finish_non_exhaustive()
    }
}

impl PlannerComponent {
    /// Instantiates the embedded component with [`PlanLimits::default`]. The first
    /// call in a process compiles it (or loads the cached artifact).
    ///
    /// # Errors
    /// [`ComponentError::Load`] when wasmtime cannot compile or instantiate it.
    pub fn new() -> Result<Self, ComponentError> {
        Self::with_limits(PlanLimits::default())
    }

    /// As [`PlannerComponent::new`], with explicit limits.
    ///
    /// # Errors
    /// As [`PlannerComponent::new`].
    pub fn with_limits(limits: PlanLimits) -> Result<Self, ComponentError> {
        let (store, instance) = Self::instantiate(&limits)?;
        Ok(Self {
            limits,
            store,
            instance,
        })
    }

    fn instantiate(limits: &PlanLimits) -> Result<(Store<Guard>, Bindings), ComponentError> {
        let shared = shared()?;
        let mut store = Store::new(
            &shared.engine,
            Guard {
                memory: 0,
                limit: guest_memory_max(limits),
                refused: None,
            },
        );
        store.limiter(|g| g);
        // Instantiation and `set-memory-limit` are tiny; give them a fixed
        // second rather than the (possibly 1 ms) per-call deadline, which
        // every planning call sets for itself.
        store.set_epoch_deadline(1_000);
        let _ticking = shared.ticking();
        let instance = shared
            .pre
            .instantiate(&mut store)
            .map_err(|e| load_err("instantiating", e))?;
        instance
            .warp_planner_planner()
            .call_set_memory_limit(&mut store, limits.plan_memory_bytes)
            .map_err(|e| load_err("setting the memory limit", e))?;
        Ok((store, instance))
    }

    /// The limits of this instance.
    pub fn limits(&self) -> PlanLimits {
        self.limits
    }

    /// Changes the limits of the calls that follow.
    ///
    /// # Errors
    /// [`ComponentError::Load`] when the instance cannot take the new memory
    /// limit (it is then replaced).
    pub fn set_limits(&mut self, limits: PlanLimits) -> Result<(), ComponentError> {
        self.limits = limits;
        let (store, instance) = Self::instantiate(&self.limits)?;
        self.store = store;
        self.instance = instance;
        Ok(())
    }

    /// Current size of the guest's linear memory, bytes.
    pub fn memory_bytes(&self) -> usize {
        self.store.data().memory
    }

    /// Runs one guest call under `budget`; a trap replaces the instance.
    fn call<T, E>(
        &mut self,
        budget: Budget,
        f: impl FnOnce(&Bindings, &mut Store<Guard>) -> wasmtime::Result<Result<T, E>>,
        refused: impl FnOnce(E) -> ComponentError,
    ) -> Result<T, ComponentError> {
        let guard = self.store.data_mut();
        guard.limit = guard
            .memory
            .saturating_add(budget.memory_need.saturating_mul(2))
            .saturating_add(1 << 20)
            .min(guest_memory_max(&self.limits));
        guard.refused = None;
        // One tick is EPOCH_TICK (1 ms).
        self.store.set_epoch_deadline(budget.deadline_ms.max(1));
        let ticking = shared()?.ticking();
        let result = f(&self.instance, &mut self.store);
        drop(ticking);
        match result {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(refused(e)),
            Err(e) => {
                let guard = self.store.data();
                let cause = match (guard.refused, e.downcast_ref::<Trap>()) {
                    (Some(requested), _) => TrapCause::MemoryLimit {
                        requested,
                        limit: guard.limit,
                    },
                    (None, Some(Trap::Interrupt)) => TrapCause::Deadline {
                        ms: budget.deadline_ms,
                    },
                    _ => TrapCause::Other,
                };
                // A trapped instance cannot be entered again: start afresh.
                let (store, instance) = Self::instantiate(&self.limits)?;
                self.store = store;
                self.instance = instance;
                Err(ComponentError::Trap {
                    cause,
                    work: budget.work,
                    detail: format!("{e:#}"),
                })
            }
        }
    }

    /// A planning call, stopped at `by` too when it comes before the limits'
    /// deadline (at once, without entering the guest, when it has passed).
    fn call_planner<T>(
        &mut self,
        size: CallSize,
        by: Option<Instant>,
        f: impl FnOnce(&wit::Guest, &mut Store<Guard>) -> wasmtime::Result<Result<T, wit::PlanError>>,
    ) -> Result<T, ComponentError> {
        let mut budget = size.budget(&self.limits);
        if let Some(by) = by {
            let left = by.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(ComponentError::Plan(PlanError::Interrupted));
            }
            // Whole epoch ticks (1 ms), rounded up.
            let ms = u64::try_from(left.as_micros().div_ceil(1_000)).unwrap_or(u64::MAX);
            budget.deadline_ms = budget.deadline_ms.min(ms);
        }
        match self.call(
            budget,
            |b, s| f(b.warp_planner_planner(), s),
            convert::plan_error,
        ) {
            // The native planner's error for the same deadline.
            Err(ComponentError::Trap {
                cause: TrapCause::Deadline { .. },
                ..
            }) => Err(ComponentError::Plan(PlanError::Interrupted)),
            other => other,
        }
    }

    /// A reordering call over `clusters` clusters and `elements` input numbers.
    fn call_reorder<T>(
        &mut self,
        clusters: usize,
        elements: usize,
        f: impl FnOnce(
            &wit_reorder::Guest,
            &mut Store<Guard>,
        ) -> wasmtime::Result<Result<T, wit_reorder::ReorderError>>,
    ) -> Result<T, ComponentError> {
        // See `planner_core::reorder::reorder`'s memory formula: a few hundred
        // bytes per cluster (Lanczos keeps ~51 vectors) plus copies of the input.
        let budget = Budget {
            work: Work::Reorder { clusters },
            memory_need: clusters
                .saturating_mul(512)
                .saturating_add(elements.saturating_mul(32)),
            deadline_ms: self.limits.max_deadline_ms,
        };
        self.call(
            budget,
            |b, s| f(b.warp_planner_reorder(), s),
            |e| ComponentError::Reorder {
                field: e.field,
                message: e.message,
            },
        )
    }

    /// Plans `req` in the component: the same requests and summary, bit for
    /// bit, as [`planner_core::Planner::plan`].
    ///
    /// # Errors
    /// [`ComponentError::Plan`] for an invalid request or the deadline (the
    /// native planner's error), [`ComponentError::Trap`] for any other trap.
    pub fn plan(
        &mut self,
        req: &PlanRequest<'_>,
    ) -> Result<(Vec<Request>, PlanSummary), ComponentError> {
        self.plan_by(req, None)
    }

    /// [`PlannerComponent::plan`], stopped at `by` too when it comes before
    /// the limits' deadline: the caller's own deadline (a query's), with the
    /// native planner's [`PlanError::Interrupted`] past it.
    ///
    /// # Errors
    /// As [`PlannerComponent::plan`].
    pub fn plan_by(
        &mut self,
        req: &PlanRequest<'_>,
        by: Option<Instant>,
    ) -> Result<(Vec<Request>, PlanSummary), ComponentError> {
        let instance = convert::wit_instance(req);
        let plan = self.call_planner(CallSize::of(req), by, |g, s| g.call_plan(s, &instance))?;
        Ok((convert::requests(&plan), convert::summary(&plan.summary)))
    }

    /// The `(B, W)` Pareto frontier (see [`planner_core::Planner::frontier`]),
    /// `B` ascending, at most `max_points` vertices.
    ///
    /// # Errors
    /// As [`PlannerComponent::plan`].
    pub fn frontier(
        &mut self,
        req: &PlanRequest<'_>,
        exact: bool,
        max_points: u32,
    ) -> Result<Vec<FrontierPoint>, ComponentError> {
        let instance = convert::wit_instance(req);
        let mut size = CallSize::of(req);
        size.method = planner_core::Planner::frontier_method(exact);
        size.exact = true; // one DP per vertex
        let points = self.call_planner(size, None, |g, s| {
            g.call_frontier(s, &instance, exact, max_points)
        })?;
        Ok(convert::frontier(&points))
    }

    /// The summary of a caller's plan: `groups` are inclusive `(first, last)`
    /// interval ranges that must partition the intervals in order.
    /// `lower_bound_ms` is `None`; `req.method` is ignored.
    ///
    /// # Errors
    /// As [`PlannerComponent::plan`]; [`PlanError::InvalidGroups`] naming the
    /// first bad group.
    pub fn evaluate(
        &mut self,
        req: &PlanRequest<'_>,
        groups: &[(u32, u32)],
    ) -> Result<PlanSummary, ComponentError> {
        let instance = convert::wit_instance(req);
        let groups = convert::wit_groups(groups);
        let mut size = CallSize::of(req);
        size.method = Method::Separate;
        size.exact = false;
        let s = self.call_planner(size, None, |g, s| g.call_evaluate(s, &instance, &groups))?;
        Ok(convert::summary(&s))
    }

    /// A payload layout (`order[position] = cluster id`) computed in the
    /// component, as `planner_core::reorder::reorder`.
    ///
    /// # Errors
    /// [`ComponentError::Reorder`] naming the offending field, or
    /// [`ComponentError::Trap`].
    pub fn reorder(
        &mut self,
        input: &ReorderInput<'_>,
        layout: &Layout,
    ) -> Result<Vec<u32>, ComponentError> {
        let wit_input = convert::wit_reorder_input(input);
        let layout = convert::wit_layout(layout);
        let elements = input.centroids.len() + input.probes.len();
        self.call_reorder(input.sizes.len(), elements, |g, s| {
            g.call_reorder(s, &wit_input, layout)
        })
    }

    /// The weighted co-access gap of a layout, as
    /// `planner_core::reorder::coaccess_gap`.
    ///
    /// # Errors
    /// As [`PlannerComponent::reorder`].
    pub fn coaccess_gap(
        &mut self,
        order: &[u32],
        sizes: &[u64],
        probes: &[u32],
        probe_offsets: &[u32],
    ) -> Result<f64, ComponentError> {
        self.call_reorder(sizes.len(), probes.len() + order.len(), |g, s| {
            g.call_coaccess_gap(s, order, sizes, probes, probe_offsets)
        })
    }
}
