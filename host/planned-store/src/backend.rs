//! Where plans come from: `planner_core` in-process ([`NativeBackend`], the
//! default), or the planner component (`ComponentBackend`, feature
//! `component`).
//!
//! A [`PlannedStore`](crate::PlannedStore) holds a [`BackendPool`] (one
//! backend per concurrent read at most), so the allocation-bounded planners
//! are reused: after the first reads of a size, planning allocates nothing.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use planner_core::{PlanError, PlanLimits, PlanRequest, PlanSummary, Planner, Request};

/// Why a backend did not return a plan.
#[derive(Debug)]
#[non_exhaustive]
pub enum BackendError {
    /// The planner refused the request (a bad instance, or a
    /// [`PlanLimits`] bound: [`PlanError::MemoryLimit`],
    /// [`PlanError::Interrupted`] at the deadline) — the same error from
    /// every backend.
    Refused(PlanError),
    /// The backend itself failed (a component that could not be loaded or
    /// trapped for another reason than a limit).
    Failed {
        /// The backend (`native`, `component`).
        backend: &'static str,
        /// What went wrong, in the backend's words.
        reason: String,
    },
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Transparent: the planner's own one-line refusal, the same from
            // every backend (the golden vectors' `error`).
            Self::Refused(e) => e.fmt(f),
            Self::Failed { backend, reason } => write!(f, "the {backend} planner failed: {reason}"),
        }
    }
}

impl std::error::Error for BackendError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // `Refused` displays its PlanError itself (which has no cause).
            Self::Refused(_) | Self::Failed { .. } => None,
        }
    }
}

impl From<PlanError> for BackendError {
    fn from(e: PlanError) -> Self {
        Self::Refused(e)
    }
}

/// Something that plans requests under [`PlanLimits`].
///
/// Implementations must return the plan `planner_core` returns for the same
/// request (bit-identical requests and summary): the backend changes where
/// the planner runs, never what it answers.
pub trait PlanBackend: Send {
    /// Plans `req`, stopped at the earlier of the limits'
    /// [`PlanLimits::plan_deadline`] and `by` (the caller's own deadline,
    /// e.g. a query's: planning is part of the work it bounds).
    ///
    /// # Errors
    /// [`BackendError::Refused`] for a refused request — including the
    /// limits' [`PlanError::MemoryLimit`] and [`PlanError::Interrupted`] at
    /// either deadline (at once when `by` has passed), identical for every
    /// backend — and [`BackendError::Failed`] when the backend itself fails.
    fn plan_by(
        &mut self,
        req: &PlanRequest<'_>,
        by: Option<Instant>,
    ) -> Result<(Vec<Request>, PlanSummary), BackendError>;

    /// Plans `req` by the limits' deadline alone: [`PlanBackend::plan_by`]
    /// with no deadline of the caller's.
    ///
    /// # Errors
    /// As [`PlanBackend::plan_by`].
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary), BackendError> {
        self.plan_by(req, None)
    }

    /// A short name for reports (`native`, `component`).
    fn name(&self) -> &'static str;
}

/// `planner_core::Planner` in-process: grown with [`Planner::reserve`] to
/// what each request's method needs within
/// [`PlanLimits::plan_memory_bytes`] (re-allocating once, then planning
/// allocation-free again), and stopped at [`PlanLimits::plan_deadline`].
#[derive(Debug)]
pub struct NativeBackend {
    planner: Planner,
    limits: PlanLimits,
}

impl NativeBackend {
    /// An empty planner under `limits`.
    pub fn new(limits: PlanLimits) -> Self {
        Self {
            planner: Planner::with_memory_limit(limits.plan_memory_bytes),
            limits,
        }
    }
}

impl PlanBackend for NativeBackend {
    fn plan_by(
        &mut self,
        req: &PlanRequest<'_>,
        by: Option<Instant>,
    ) -> Result<(Vec<Request>, PlanSummary), BackendError> {
        let own = Instant::now() + self.limits.plan_deadline(req);
        let deadline = by.map_or(own, |by| by.min(own));
        if Instant::now() >= deadline {
            return Err(BackendError::Refused(PlanError::Interrupted));
        }
        self.planner
            .reserve(req.intervals.len(), req.k_max, &req.method)?;
        let plan = self
            .planner
            .plan_until(req, &mut || Instant::now() >= deadline)?;
        Ok((plan.requests.to_vec(), plan.summary))
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The planner component (wasmtime, via `warp-component`), one instance
/// per pooled backend.
#[cfg(feature = "component")]
#[derive(Debug)]
pub struct ComponentBackend(warp_component::PlannerComponent);

#[cfg(feature = "component")]
impl ComponentBackend {
    /// Instantiates the embedded component under `limits`.
    ///
    /// # Errors
    /// [`BackendError::Failed`] when it cannot be compiled or instantiated.
    pub fn new(limits: PlanLimits) -> Result<Self, BackendError> {
        warp_component::PlannerComponent::with_limits(limits)
            .map(Self)
            .map_err(component_error)
    }
}

#[cfg(feature = "component")]
fn component_error(e: warp_component::ComponentError) -> BackendError {
    match e {
        warp_component::ComponentError::Plan(p) => BackendError::Refused(p),
        other => BackendError::Failed {
            backend: "component",
            reason: other.to_string(),
        },
    }
}

#[cfg(feature = "component")]
impl PlanBackend for ComponentBackend {
    fn plan_by(
        &mut self,
        req: &PlanRequest<'_>,
        by: Option<Instant>,
    ) -> Result<(Vec<Request>, PlanSummary), BackendError> {
        self.0.plan_by(req, by).map_err(component_error)
    }

    fn name(&self) -> &'static str {
        "component"
    }
}

/// The component factory under [`PlanLimits::default`] (see
/// [`component_factory_with`]).
///
/// # Errors
/// [`BackendError::Failed`] when the component cannot be loaded.
#[cfg(feature = "component")]
pub fn component_factory() -> Result<BackendFactory, BackendError> {
    component_factory_with(PlanLimits::default())
}

/// The component factory under `limits`; instantiates one component up front
/// so a load failure is reported before any read runs.
///
/// # Errors
/// [`BackendError::Failed`] when the component cannot be loaded.
#[cfg(feature = "component")]
pub fn component_factory_with(limits: PlanLimits) -> Result<BackendFactory, BackendError> {
    ComponentBackend::new(limits)?;
    Ok(Arc::new(move || {
        Ok(Box::new(ComponentBackend::new(limits)?) as Box<dyn PlanBackend>)
    }))
}

/// Makes backends for a [`BackendPool`].
pub type BackendFactory = Arc<dyn Fn() -> Result<Box<dyn PlanBackend>, BackendError> + Send + Sync>;

/// The native factory under [`PlanLimits::default`].
pub fn native_factory() -> BackendFactory {
    native_factory_with(PlanLimits::default())
}

/// The native factory under `limits`.
pub fn native_factory_with(limits: PlanLimits) -> BackendFactory {
    Arc::new(move || Ok(Box::new(NativeBackend::new(limits)) as Box<dyn PlanBackend>))
}

/// A pool of backends shared by concurrent reads: idle backends are reused,
/// one is made when none is idle (so the pool holds at most as many as the
/// most reads ever in flight at once).
pub struct BackendPool {
    factory: BackendFactory,
    idle: Mutex<Vec<Box<dyn PlanBackend>>>,
}

impl fmt::Debug for BackendPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let idle = self.idle.lock().map_or(0, |v| v.len());
        f.debug_struct("BackendPool")
            .field("idle", &idle)
            .finish_non_exhaustive()
    }
}

impl BackendPool {
    /// An empty pool making backends with `factory`.
    pub fn new(factory: BackendFactory) -> Self {
        Self {
            factory,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Plans with an idle backend (or a new one), returning it afterwards.
    /// A backend that failed is dropped, not returned (a trapped component
    /// instance cannot be re-entered).
    ///
    /// # Errors
    /// The backend's error, or the factory's.
    pub fn plan(
        &self,
        req: &PlanRequest<'_>,
    ) -> Result<(Vec<Request>, PlanSummary, &'static str), BackendError> {
        self.plan_by(req, None)
    }

    /// [`BackendPool::plan`], stopped at `by` too
    /// ([`PlanBackend::plan_by`]).
    ///
    /// # Errors
    /// The backend's error, or the factory's.
    pub fn plan_by(
        &self,
        req: &PlanRequest<'_>,
        by: Option<Instant>,
    ) -> Result<(Vec<Request>, PlanSummary, &'static str), BackendError> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut backend = match idle {
            Some(b) => b,
            None => (self.factory)()?,
        };
        let (requests, summary) = backend.plan_by(req, by)?;
        let name = backend.name();
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(backend);
        Ok((requests, summary, name))
    }
}

#[cfg(test)]
mod tests {
    use planner_core::{Interval, Method, Surrogate};

    use super::*;

    fn request(intervals: &[Interval]) -> PlanRequest<'_> {
        PlanRequest {
            intervals,
            k_max: 64,
            parallelism: Some(8.0),
            surrogate: &Surrogate::S3,
            epsilon: 0.01,
            method: Method::Warp,
        }
    }

    #[test]
    fn the_native_backend_obeys_its_memory_limit_and_plans_as_planner_core() {
        let intervals: Vec<Interval> = (0..64).map(|i| Interval::new(i * 100, 10)).collect();
        let req = request(&intervals);
        let tight = PlanLimits {
            plan_memory_bytes: 1,
            ..PlanLimits::default()
        };
        let e = NativeBackend::new(tight).plan(&req).unwrap_err();
        assert!(
            matches!(
                e,
                BackendError::Refused(PlanError::MemoryLimit { limit: 1, .. })
            ),
            "{e}"
        );
        let (requests, summary) = NativeBackend::new(PlanLimits::default())
            .plan(&req)
            .unwrap();
        let mut direct = Planner::with_memory_limit(Planner::DEFAULT_MEMORY_LIMIT);
        direct
            .reserve(req.intervals.len(), req.k_max, &req.method)
            .unwrap();
        let want = direct.plan(&req).unwrap();
        assert_eq!(requests, want.requests.to_vec());
        assert_eq!(summary, want.summary);
    }

    #[test]
    fn the_pool_reuses_an_idle_backend_and_drops_a_failed_one() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool_of = |limits: PlanLimits| {
            let made = Arc::new(AtomicUsize::new(0));
            let counter = Arc::clone(&made);
            let pool = BackendPool::new(Arc::new(move || {
                counter.fetch_add(1, Ordering::Relaxed);
                Ok(Box::new(NativeBackend::new(limits)) as Box<dyn PlanBackend>)
            }));
            (pool, made)
        };
        let intervals: Vec<Interval> = (0..64).map(|i| Interval::new(i * 100, 10)).collect();
        let req = request(&intervals);
        let (pool, made) = pool_of(PlanLimits::default());
        for _ in 0..3 {
            let (_, _, name) = pool.plan(&req).unwrap();
            assert_eq!(name, "native");
        }
        assert_eq!(
            made.load(Ordering::Relaxed),
            1,
            "sequential reads share one backend"
        );
        let tight = PlanLimits {
            plan_memory_bytes: 1,
            ..PlanLimits::default()
        };
        let (pool, made) = pool_of(tight);
        for _ in 0..2 {
            assert!(matches!(pool.plan(&req), Err(BackendError::Refused(_))));
        }
        assert_eq!(
            made.load(Ordering::Relaxed),
            2,
            "a failed backend is dropped"
        );
    }
}
