//! The planner component, run by wasmtime.
//!
//! The host plans through the same WebAssembly component that Node (jco) and
//! Python (wasmtime-py) embed, so every runtime computes the identical plan.
//!
//! # Brief overview
//!
//! - [`COMPONENT_WASM`] is the component itself (`wit/planner.wit`, world
//!   `planner-component`), built from `planner-wasm` by `host/build.rs` and
//!   embedded in the binary. It imports nothing.
//! - [`PlannerComponent`] is one instance of it, for one worker: [`plan`],
//!   [`frontier`], [`evaluate`], and the offline [`reorder`]
//!   and [`coaccess_gap`]. The component is compiled once
//!   per process (and the compiled artifact cached on disk, see
//!   [`cache_dir`]); creating a `PlannerComponent` only instantiates it.
//! - [`PlanLimits`] caps every call, as for the native planner: the guest's
//!   planner refuses a workspace above [`PlanLimits::plan_memory_bytes`] (set
//!   through the WIT `set-memory-limit`), guest memory growth is capped a
//!   little above it, and an epoch deadline ([`EPOCH_TICK`] resolution) stops
//!   a call at [`PlanLimits::plan_deadline`]. A planning call stopped by the
//!   deadline fails with [`PlanError::Interrupted`], the native backend's
//!   error; any other trap is [`ComponentError::Trap`]. After a trap the
//!   instance is replaced, so the next call on the same `PlannerComponent`
//!   works.
//! - [`ComponentError`] keeps the planner's refusal ([`PlanError`], the very
//!   value and one-line display the native planner gives), traps, and load
//!   failures apart.
//!
//! [`plan`]: PlannerComponent::plan
//! [`frontier`]: PlannerComponent::frontier
//! [`evaluate`]: PlannerComponent::evaluate
//! [`reorder`]: PlannerComponent::reorder
//! [`coaccess_gap`]: PlannerComponent::coaccess_gap
//!
//! # Example
//!
//! ```
//! use planner_core::{Interval, Method, PlanRequest, Surrogate};
//! use warp_host::component::PlannerComponent;
//!
//! let mut planner = PlannerComponent::new().unwrap();
//! let intervals = [Interval::new(0, 4096), Interval::new(8192, 4096), Interval::new(64 << 20, 4096)];
//! let req = PlanRequest {
//!     intervals: &intervals,
//!     k_max: 2,
//!     parallelism: Some(4.0),
//!     surrogate: &Surrogate::S3,
//!     epsilon: 0.01,
//!     method: Method::Warp,
//! };
//! let (requests, summary) = planner.plan(&req).unwrap();
//! assert_eq!(summary, planner_core::plan_once(&req).unwrap().1);
//! assert_eq!((requests[0].first, requests[0].last), (0, 1));
//! ```

use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use planner_core::reorder::{Layout, ReorderInput};
use planner_core::{
    Capacity, Field, FrontierPoint, Method, PlanError, PlanRequest, PlanSummary, Request, Resource,
    Surrogate,
};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, ResourceLimiter, Store, Trap};

use crate::limits::PlanLimits;

mod bindings {
    wasmtime::component::bindgen!({
        world: "planner-component",
        path: "../wit",
    });
}

use bindings::exports::warp::planner::planner as wit;
use bindings::exports::warp::planner::reorder as wit_reorder;
use bindings::{PlannerComponent as Bindings, PlannerComponentPre as BindingsPre};

/// The planner component (`warp:planner@0.1.0`, world `planner-component`), as
/// built by `host/build.rs`. `scripts/build-component` writes it to a file.
pub const COMPONENT_WASM: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/planner.component.wasm"));

/// Resolution of the execution deadline: a process-wide thread advances
/// wasmtime's epoch every tick.
pub const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Largest guest linear memory for `limits`: twice the planner workspace
/// limit (workspace plus copies of the call's input and output) and 64 MiB,
/// within wasm32's 4 GiB.
fn guest_memory_max(limits: &PlanLimits) -> usize {
    let bytes = limits
        .plan_memory_bytes
        .saturating_mul(2)
        .saturating_add(64 << 20)
        .min((4 << 30) - (64 << 10));
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// What a call into the component was doing, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Planning (or evaluating a plan for) this many intervals.
    Plan {
        /// Intervals of the instance.
        intervals: usize,
    },
    /// Reordering (or measuring a layout of) this many clusters.
    Reorder {
        /// Clusters of the input.
        clusters: usize,
    },
}

impl fmt::Display for Work {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plan { intervals } => write!(f, "planning {intervals} intervals"),
            Self::Reorder { clusters } => write!(f, "reordering {clusters} clusters"),
        }
    }
}

/// What stopped a trapped call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapCause {
    /// The guest asked to grow its memory to `requested` bytes, beyond the
    /// call's limit of `limit` bytes.
    MemoryLimit {
        /// Memory size the guest asked for, bytes.
        requested: usize,
        /// The call's limit, bytes.
        limit: usize,
    },
    /// The call ran past its deadline.
    Deadline {
        /// The call's deadline, milliseconds.
        ms: u64,
    },
    /// Any other trap (a guest bug).
    Other,
}

/// Why a call into the component failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ComponentError {
    /// The planner refused the instance (or the deadline stopped it:
    /// [`PlanError::Interrupted`]): the same error, with the same one-line
    /// display, as the native planner.
    Plan(PlanError),
    /// [`PlannerComponent::reorder`] or [`PlannerComponent::coaccess_gap`]
    /// refused its input.
    Reorder {
        /// The offending input field.
        field: String,
        /// The one-line display of `planner_core::reorder::ReorderError`.
        message: String,
    },
    /// The call trapped (resource limit or guest bug); the instance was replaced.
    Trap {
        /// The limit hit, if any.
        cause: TrapCause,
        /// What the call was doing.
        work: Work,
        /// Wasmtime's description.
        detail: String,
    },
    /// The component could not be compiled or instantiated.
    Load {
        /// What failed.
        detail: String,
    },
}

impl fmt::Display for ComponentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plan(e) => e.fmt(f),
            Self::Reorder { message, .. } => f.write_str(message),
            Self::Trap {
                cause: TrapCause::MemoryLimit { requested, limit },
                work,
                ..
            } => write!(
                f,
                "planner component: guest memory limit of {limit} bytes exceeded (asked for {requested} bytes) {work}"
            ),
            Self::Trap {
                cause: TrapCause::Deadline { ms },
                work,
                ..
            } => write!(
                f,
                "planner component: execution deadline of {ms} ms exceeded {work}"
            ),
            Self::Trap { detail, .. } => write!(f, "planner component trapped: {detail}"),
            Self::Load { detail } => write!(f, "planner component failed to load: {detail}"),
        }
    }
}

impl std::error::Error for ComponentError {}

impl From<PlanError> for ComponentError {
    fn from(e: PlanError) -> Self {
        Self::Plan(e)
    }
}

/// Store data: the memory guard of the instance.
struct Guard {
    /// Current size of the guest's linear memory, bytes.
    memory: usize,
    /// Largest size allowed during the current call, bytes.
    limit: usize,
    /// The size refused, when the guard stopped a growth.
    refused: Option<usize>,
}

impl ResourceLimiter for Guard {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.refused = Some(desired);
            return Err(wasmtime::format_err!(
                "guest memory limit of {} bytes exceeded (asked for {desired})",
                self.limit
            ));
        }
        self.memory = desired;
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 10_000)
    }

    fn instances(&self) -> usize {
        4
    }

    fn tables(&self) -> usize {
        4
    }

    fn memories(&self) -> usize {
        1
    }
}

/// The compiled component, shared by every [`PlannerComponent`] of the process.
struct Shared {
    engine: Engine,
    pre: BindingsPre<Guard>,
}

fn load_err(what: &str, e: impl fmt::Display) -> ComponentError {
    ComponentError::Load {
        detail: format!("{what}: {e:#}"),
    }
}

/// Where compiled components are cached: `$WARP_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/warp`, else `$HOME/.cache/warp`; `None` (no disk cache) when
/// `WARP_CACHE_DIR` is empty or no home is known.
///
/// A cached artifact is native code that wasmtime loads without re-checking;
/// keep this directory private to the user.
pub fn cache_dir() -> Option<PathBuf> {
    crate::config::component_env().cache_dir
}

/// Compiles the component, or loads it from the disk cache keyed by a hash of
/// the component bytes and the engine's compilation settings.
fn compile(engine: &Engine) -> Result<Component, ComponentError> {
    let mut h = DefaultHasher::new();
    COMPONENT_WASM.hash(&mut h);
    engine.precompile_compatibility_hash().hash(&mut h);
    let path = cache_dir().map(|d| d.join(format!("planner-{:016x}.cwasm", h.finish())));
    if let Some(path) = path.as_ref().filter(|p| p.is_file()) {
        // SAFETY: the file was written by `precompile_component` below for this
        // very component and engine configuration (the hash in its name), in
        // the user's private cache directory.
        if let Ok(c) = unsafe { Component::deserialize_file(engine, path) } {
            return Ok(c);
        }
    }
    let bytes = engine
        .precompile_component(COMPONENT_WASM)
        .map_err(|e| load_err("compiling", e))?;
    if let Some(path) = &path {
        // Best effort: write a temporary file, then rename it into place.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = path
            .parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::write(&tmp, &bytes).is_ok()
            && std::fs::rename(&tmp, path).is_ok();
        if !written {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    // SAFETY: `bytes` was just produced by `precompile_component` on this engine.
    unsafe { Component::deserialize(engine, &bytes) }.map_err(|e| load_err("loading", e))
}

fn shared() -> Result<&'static Shared, ComponentError> {
    static SHARED: OnceLock<Result<Shared, ComponentError>> = OnceLock::new();
    SHARED
        .get_or_init(|| {
            // Every WARP_* setting comes through HostConfig.
            let env = crate::config::component_env();
            let mut config = Config::new();
            config.epoch_interruption(env.epoch_deadline);
            if env.perfmap {
                config.profiler(wasmtime::ProfilingStrategy::PerfMap);
            }
            let engine = Engine::new(&config).map_err(|e| load_err("configuring wasmtime", e))?;
            let ticker = engine.clone();
            std::thread::Builder::new()
                .name("warp-planner-epoch".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(EPOCH_TICK);
                        ticker.increment_epoch();
                    }
                })
                .map_err(|e| load_err("starting the epoch thread", e))?;
            let component = compile(&engine)?;
            let linker = Linker::<Guard>::new(&engine);
            let pre = linker
                .instantiate_pre(&component)
                .and_then(BindingsPre::new)
                .map_err(|e| load_err("linking", e))?;
            Ok(Shared { engine, pre })
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn field_of_wit(f: wit::Field) -> Field {
    match f {
        wit::Field::AffineFixedMs => Field::AffineFixedMs,
        wit::Field::AffinePerMibMs => Field::AffinePerMibMs,
        wit::Field::BreakpointBytes => Field::BreakpointBytes,
        wit::Field::BreakpointMs => Field::BreakpointMs,
        wit::Field::CoalesceMaxGap => Field::CoalesceMaxGap,
        wit::Field::CoalesceMaxSpan => Field::CoalesceMaxSpan,
    }
}

fn resource_of_wit(r: wit::Resource) -> Resource {
    match r {
        wit::Resource::Intervals => Resource::Intervals,
        wit::Resource::KMax => Resource::KMax,
        wit::Resource::Requests => Resource::Requests,
    }
}

/// The planner-core value a WIT refusal mirrors, field for field.
fn plan_error(e: wit::PlanError) -> ComponentError {
    use wit::PlanError as W;
    let idx = |i: u32| i as usize;
    ComponentError::Plan(match e {
        W::EmptyInterval(index) => PlanError::EmptyInterval { index: idx(index) },
        W::Overlapping(o) => PlanError::Overlapping {
            index: idx(o.index),
            offset: o.offset,
            previous_end: o.previous_end,
        },
        W::OffsetOverflow(index) => PlanError::OffsetOverflow { index: idx(index) },
        W::ZeroKMax => PlanError::ZeroKMax,
        W::InvalidParallelism(value) => PlanError::InvalidParallelism { value },
        W::InvalidEpsilon(value) => PlanError::InvalidEpsilon { value },
        W::InvalidSurrogateValue(v) => PlanError::InvalidSurrogateValue {
            field: field_of_wit(v.field),
            index: v.index.map(idx),
            value: v.value,
        },
        W::EmptySurrogate => PlanError::EmptySurrogate,
        W::UnsortedSurrogate(index) => PlanError::UnsortedSurrogate { index: idx(index) },
        W::DecreasingSurrogate(index) => PlanError::DecreasingSurrogate { index: idx(index) },
        W::SurrogateOverflow(span) => PlanError::SurrogateOverflow { span },
        W::InvalidMethodParameter(m) => PlanError::InvalidMethodParameter {
            field: field_of_wit(m.field),
            reason: m.reason.into(),
        },
        W::CapacityExceeded(c) => PlanError::CapacityExceeded {
            what: resource_of_wit(c.what),
            requested: c.requested,
            capacity: c.capacity,
        },
        W::MemoryLimit(m) => PlanError::MemoryLimit {
            needed: m.needed,
            table: m.table,
            limit: m.limit,
            intervals: m.intervals,
        },
        W::Interrupted => PlanError::Interrupted,
        W::InvalidGroups(g) => PlanError::InvalidGroups {
            field: g.field,
            message: g.message,
        },
        W::Json(j) => PlanError::Json {
            field: j.field,
            message: j.message,
        },
    })
}

fn wit_instance(req: &PlanRequest<'_>) -> wit::Instance {
    wit::Instance {
        intervals: req
            .intervals
            .iter()
            .map(|iv| wit::Interval {
                offset: iv.offset,
                len: iv.len,
            })
            .collect(),
        k_max: req.k_max as u64,
        parallelism: req.parallelism,
        surrogate: match req.surrogate {
            Surrogate::Affine {
                fixed_ms,
                per_mib_ms,
            } => wit::Surrogate::Affine(wit::Affine {
                fixed_ms: *fixed_ms,
                per_mib_ms: *per_mib_ms,
            }),
            Surrogate::Piecewise(points) => wit::Surrogate::Piecewise(
                points
                    .iter()
                    .map(|p| wit::Breakpoint {
                        bytes: p.bytes,
                        ms: p.ms,
                    })
                    .collect(),
            ),
        },
        epsilon: req.epsilon,
        method: match req.method {
            Method::Warp => wit::Method::Warp,
            Method::Exact => wit::Method::Exact,
            Method::Frontier => wit::Method::Frontier,
            Method::Lagrangian => wit::Method::Lagrangian,
            Method::MinW => wit::Method::MinW,
            Method::MinB => wit::Method::MinB,
            Method::Separate => wit::Method::Separate,
            Method::Coalesce { max_gap, max_span } => {
                wit::Method::Coalesce(wit::CoalesceParams { max_gap, max_span })
            }
            Method::LanceRule => wit::Method::LanceRule,
            Method::ObjectStoreRule => wit::Method::ObjectStoreRule,
        },
    }
}

fn summary(s: &wit::Summary) -> PlanSummary {
    PlanSummary {
        requests: s.requests as usize,
        bytes: s.bytes,
        overfetch_bytes: s.overfetch_bytes,
        w_ms: s.w_ms,
        b_ms: s.b_ms,
        t_ms: s.t_ms,
        lower_bound_ms: s.lower_bound_ms,
    }
}

/// The limits of one call.
#[derive(Debug, Clone, Copy)]
struct Budget {
    work: Work,
    /// Bytes the guest may need beyond its current memory.
    memory_need: usize,
    deadline_ms: u64,
}

/// The size of a planning call, from which its limits are derived.
#[derive(Debug, Clone, Copy)]
struct CallSize {
    intervals: usize,
    k_max: usize,
    /// The method whose buffers the guest reserves.
    method: Method,
    /// Whether the call runs one DP per candidate cap (deadline `× n`).
    exact: bool,
}

impl CallSize {
    fn of(req: &PlanRequest<'_>) -> Self {
        Self {
            intervals: req.intervals.len(),
            k_max: req.k_max,
            method: req.method,
            exact: req.method == Method::Exact,
        }
    }

    /// Bytes the guest may need for this call: the method's workspace
    /// (what the guest planner reserves), input and output copies.
    fn memory_need(&self) -> usize {
        let n = self.intervals;
        let workspace = Capacity::new(n, self.k_max.min(n)).workspace_bytes_for(&self.method);
        usize::try_from(workspace)
            .unwrap_or(usize::MAX)
            .saturating_add(n.saturating_mul(160))
    }

    fn budget(&self, limits: &PlanLimits) -> Budget {
        Budget {
            work: Work::Plan {
                intervals: self.intervals,
            },
            memory_need: self.memory_need(),
            deadline_ms: limits.deadline_ms(self.intervals, self.k_max, self.exact),
        }
    }
}

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
        let result = f(&self.instance, &mut self.store);
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

    /// A planning call.
    fn call_planner<T>(
        &mut self,
        size: CallSize,
        f: impl FnOnce(&wit::Guest, &mut Store<Guard>) -> wasmtime::Result<Result<T, wit::PlanError>>,
    ) -> Result<T, ComponentError> {
        let budget = size.budget(&self.limits);
        match self.call(budget, |b, s| f(b.warp_planner_planner(), s), plan_error) {
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
        let instance = wit_instance(req);
        let plan = self.call_planner(CallSize::of(req), |g, s| g.call_plan(s, &instance))?;
        let requests = plan
            .requests
            .iter()
            .map(|r| Request {
                first: r.first,
                last: r.last,
                offset: r.offset,
                len: r.len,
            })
            .collect();
        Ok((requests, summary(&plan.summary)))
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
        let instance = wit_instance(req);
        let mut size = CallSize::of(req);
        size.method = planner_core::Planner::frontier_method(exact);
        size.exact = true; // one DP per vertex
        let points = self.call_planner(size, |g, s| {
            g.call_frontier(s, &instance, exact, max_points)
        })?;
        Ok(points
            .iter()
            .map(|p| FrontierPoint {
                cap: p.cap,
                b_ms: p.b_ms,
                w_ms: p.w_ms,
                requests: p.requests as usize,
                bytes: p.bytes,
                exact: p.exact,
            })
            .collect())
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
        let instance = wit_instance(req);
        let groups: Vec<wit::Group> = groups
            .iter()
            .map(|&(first, last)| wit::Group { first, last })
            .collect();
        let mut size = CallSize::of(req);
        size.method = Method::Separate;
        size.exact = false;
        let s = self.call_planner(size, |g, s| g.call_evaluate(s, &instance, &groups))?;
        Ok(summary(&s))
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
        let wit_input = wit_reorder::ReorderInput {
            centroids: input.centroids.to_vec(),
            dim: u32::try_from(input.dim).unwrap_or(u32::MAX),
            sizes: input.sizes.to_vec(),
            probes: input.probes.to_vec(),
            probe_offsets: input.probe_offsets.to_vec(),
        };
        let layout = match *layout {
            Layout::Identity => wit_reorder::Layout::Identity,
            Layout::Random { seed } => wit_reorder::Layout::Random(seed),
            Layout::Pca1d => wit_reorder::Layout::Pca1d,
            Layout::PcaZOrder { dims } => wit_reorder::Layout::PcaZOrder(dims),
            Layout::PcaHilbert { dims } => wit_reorder::Layout::PcaHilbert(dims),
            Layout::Spectral { seed } => wit_reorder::Layout::Spectral(seed),
        };
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
