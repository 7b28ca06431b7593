//! Where plans come from: the planner component, or `planner_core` natively.
//!
//! The query path holds a pool of [`PlanBackend`]s (one per concurrent
//! query at most), so the allocation-bounded planners are reused.

use std::sync::{Arc, Mutex};

use planner_core::{Capacity, Method, PlanRequest, PlanSummary, Planner, Request};

use crate::error::{Error, Result};

/// Something that plans requests.
pub trait PlanBackend: Send {
    /// Plans `req`.
    ///
    /// # Errors
    /// [`Error::Plan`] for a refused request, [`Error::Planner`] when the
    /// backend itself fails.
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary)>;

    /// A short name for reports (`native`, `component`).
    fn name(&self) -> &'static str;
}

/// `planner_core::Planner` in-process; grows its capacity when a request
/// exceeds it (re-allocating once, then planning allocation-free again).
pub struct NativeBackend {
    planner: Planner,
}

impl NativeBackend {
    /// A planner for up to `max_intervals` intervals and budget `max_k`.
    ///
    /// # Errors
    /// [`Error::Plan`] when the capacity is unrepresentable.
    pub fn new(max_intervals: usize, max_k: usize) -> Result<Self> {
        Ok(Self {
            planner: Planner::new(Capacity::new(max_intervals, max_k))?,
        })
    }
}

impl PlanBackend for NativeBackend {
    fn plan(&mut self, req: &PlanRequest<'_>) -> Result<(Vec<Request>, PlanSummary)> {
        let cap = self.planner.capacity();
        let need = Capacity::new(
            req.intervals.len().max(cap.max_intervals),
            req.k_max.min(req.intervals.len()).max(cap.max_k),
        );
        if need != cap {
            self.planner = Planner::new(need)?;
        }
        let plan = self.planner.plan(req)?;
        Ok((plan.requests.to_vec(), plan.summary))
    }

    fn name(&self) -> &'static str {
        "native"
    }
}

/// The planner component (wasmtime), one instance per pooled backend.
pub struct ComponentBackend(crate::component::PlannerComponent);

impl ComponentBackend {
    /// Instantiates the embedded component.
    ///
    /// # Errors
    /// [`Error::Planner`] when it cannot be compiled or instantiated.
    pub fn new() -> Result<Self> {
        crate::component::PlannerComponent::new()
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

/// The component factory; instantiates one component up front so a load
/// failure is reported before any query runs.
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn component_factory() -> Result<BackendFactory> {
    ComponentBackend::new()?;
    Ok(Arc::new(|| {
        Ok(Box::new(ComponentBackend::new()?) as Box<dyn PlanBackend>)
    }))
}

/// Makes backends for the pool.
pub type BackendFactory = Arc<dyn Fn() -> Result<Box<dyn PlanBackend>> + Send + Sync>;

/// The native factory (planners start at 256 intervals, budget 64).
pub fn native_factory() -> BackendFactory {
    Arc::new(|| Ok(Box::new(NativeBackend::new(256, 64)?) as Box<dyn PlanBackend>))
}

/// A pool of backends shared by concurrent queries.
pub struct BackendPool {
    factory: BackendFactory,
    idle: Mutex<Vec<Box<dyn PlanBackend>>>,
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
