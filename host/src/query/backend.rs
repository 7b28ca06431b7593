//! Where plans come from: the planner component, or `planner_core` natively.
//!
//! The query path holds a pool of [`PlanBackend`]s (one per concurrent
//! query at most), so the allocation-bounded planners are reused.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use planner_core::{Method, PlanRequest, PlanSummary, Planner, Request};

use crate::error::{Error, Result};
use crate::limits::PlanLimits;

/// Something that plans requests: the native planner or the planner
/// component, under the same [`PlanLimits`] and with the same errors.
pub trait PlanBackend: Send {
    /// Plans `req`.
    ///
    /// # Errors
    /// [`Error::Plan`] for a refused request — including
    /// [`PlanError::MemoryLimit`](planner_core::PlanError::MemoryLimit) and
    /// [`PlanError::Interrupted`](planner_core::PlanError::Interrupted) at the
    /// deadline, identical for both backends — and [`Error::Planner`] when the
    /// backend itself fails.
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary)>;

    /// A short name for reports (`native`, `component`).
    fn name(&self) -> &'static str;
}

/// `planner_core::Planner` in-process: grown with
/// [`Planner::reserve`] to what each request's method needs within
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
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary)> {
        self.planner
            .reserve(req.intervals.len(), req.k_max, &req.method)?;
        let deadline = Instant::now() + self.limits.plan_deadline(req);
        let plan = self
            .planner
            .plan_until(req, &mut || Instant::now() >= deadline)?;
        Ok((plan.requests.to_vec(), plan.summary))
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The planner component (wasmtime), one instance per pooled backend.
#[derive(Debug)]
pub struct ComponentBackend(crate::component::PlannerComponent);

impl ComponentBackend {
    /// Instantiates the embedded component under `limits`.
    ///
    /// # Errors
    /// [`Error::Planner`] when it cannot be compiled or instantiated.
    pub fn new(limits: PlanLimits) -> Result<Self> {
        crate::component::PlannerComponent::with_limits(limits)
            .map(Self)
            .map_err(component_error)
    }
}

fn component_error(e: crate::component::ComponentError) -> Error {
    match e {
        crate::component::ComponentError::Plan(p) => Error::Plan(p),
        other => Error::Planner {
            reason: other.to_string(),
        },
    }
}

impl PlanBackend for ComponentBackend {
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary)> {
        self.0.plan(req).map_err(component_error)
    }

    fn name(&self) -> &'static str {
        "component"
    }
}

/// The component factory under [`PlanLimits::default`] (see
/// [`component_factory_with`]).
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn component_factory() -> Result<BackendFactory> {
    component_factory_with(PlanLimits::default())
}

/// The component factory under `limits`; instantiates one component up front
/// so a load failure is reported before any query runs.
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn component_factory_with(limits: PlanLimits) -> Result<BackendFactory> {
    ComponentBackend::new(limits)?;
    Ok(Arc::new(move || {
        Ok(Box::new(ComponentBackend::new(limits)?) as Box<dyn PlanBackend>)
    }))
}

/// Makes backends for the pool.
pub type BackendFactory = Arc<dyn Fn() -> Result<Box<dyn PlanBackend>> + Send + Sync>;

/// The native factory under [`PlanLimits::default`].
pub fn native_factory() -> BackendFactory {
    native_factory_with(PlanLimits::default())
}

/// The native factory under `limits`.
pub fn native_factory_with(limits: PlanLimits) -> BackendFactory {
    Arc::new(move || Ok(Box::new(NativeBackend::new(limits)) as Box<dyn PlanBackend>))
}

/// A pool of backends shared by concurrent queries.
pub struct BackendPool {
    factory: BackendFactory,
    idle: Mutex<Vec<Box<dyn PlanBackend>>>,
}

impl std::fmt::Debug for BackendPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
    /// The backend's error.
    pub fn plan(&self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary, &'static str)> {
        let idle = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut backend = match idle {
            Some(b) => b,
            None => (self.factory)()?,
        };
        let out = backend.plan(req)?;
        let name = backend.name();
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(backend);
        Ok((out.0, out.1, name))
    }
}

/// Parses a policy (a [`Method`] spelling: `warp`, `separate`,
/// `coalesce:1MiB`, `lance_rule`, … — see [`Method::SPELLINGS`]).
///
/// # Errors
/// [`Error::Config`] naming the policy and listing the accepted spellings.
pub fn parse_policy(s: &str) -> Result<Method> {
    s.parse()
        .map_err(|e: planner_core::ParseError| Error::config("policy", s, e.to_string()))
}

/// The canonical spelling of a policy (its `Display`, e.g. `coalesce:64KiB`).
pub fn policy_name(m: &Method) -> String {
    m.to_string()
}
