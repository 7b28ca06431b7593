//! # planner-wasm — planner-core as a WebAssembly component
//!
//! The wit-bindgen guest of `wit/planner.wit` (`warp:planner@0.1.0`): thin
//! conversions between the WIT types and `planner-core`, nothing else. Built for
//! `wasm32-unknown-unknown` and wrapped into a component that imports nothing;
//! `warp-component`'s build script does both (see `host/component/build.rs`), and
//! `scripts/build-component` writes the result to a file for other embedders.
//!
//! One [`Planner`] is kept per instance and grown with
//! [`Planner::reserve`] to what each call's method needs, within the memory
//! limit the embedder sets (`set-memory-limit`), so a warm `plan` allocates
//! only its result lists.

use std::cell::RefCell;

use planner_core::json::Instance;
use planner_core::reorder::{Layout, ReorderError, ReorderInput, coaccess_gap, reorder};
use planner_core::{Breakpoint, Field, Interval, Method, PlanError, Planner, Resource, Surrogate};

/// The generated bindings of `wit/planner.wit` (documented there).
#[allow(missing_docs, unreachable_pub, missing_debug_implementations)]
mod bindings {
    wit_bindgen::generate!({
        world: "planner-component",
        path: "../wit",
    });
}

use bindings::exports::warp::planner::planner as wit;
use bindings::exports::warp::planner::reorder as wit_reorder;

struct Component;

thread_local! {
    /// The instance's planner, grown on demand (a component instance is
    /// single-threaded), within its memory limit (`set-memory-limit`).
    static PLANNER: RefCell<Planner> =
        RefCell::new(Planner::with_memory_limit(Planner::DEFAULT_MEMORY_LIMIT));
}

/// Runs `f` with the planner reserved for `n` intervals, budget `k_max` and `method`.
fn with_planner<T>(
    n: usize,
    k_max: usize,
    method: &Method,
    f: impl FnOnce(&mut Planner) -> Result<T, PlanError>,
) -> Result<T, PlanError> {
    PLANNER.with_borrow_mut(|planner| {
        planner.reserve(n, k_max, method)?;
        f(planner)
    })
}

/// The owned instance is planner-core's (the one its JSON decoder produces);
/// only the conversion from the WIT record lives here.
impl From<wit::Instance> for Instance {
    fn from(i: wit::Instance) -> Self {
        Self {
            intervals: i
                .intervals
                .iter()
                .map(|iv| Interval::new(iv.offset, iv.len))
                .collect(),
            // Budgets beyond usize behave as `K_max >= n`.
            k_max: usize::try_from(i.k_max).unwrap_or(usize::MAX),
            parallelism: i.parallelism,
            surrogate: match i.surrogate {
                wit::Surrogate::Affine(a) => Surrogate::Affine {
                    fixed_ms: a.fixed_ms,
                    per_mib_ms: a.per_mib_ms,
                },
                wit::Surrogate::Piecewise(points) => Surrogate::Piecewise(
                    points
                        .iter()
                        .map(|p| Breakpoint {
                            bytes: p.bytes,
                            ms: p.ms,
                        })
                        .collect(),
                ),
            },
            epsilon: i.epsilon,
            method: match i.method {
                wit::Method::Warp => Method::Warp,
                wit::Method::Exact => Method::Exact,
                wit::Method::Frontier => Method::Frontier,
                wit::Method::Lagrangian => Method::Lagrangian,
                wit::Method::MinW => Method::MinW,
                wit::Method::MinB => Method::MinB,
                wit::Method::Separate => Method::Separate,
                wit::Method::Coalesce(c) => Method::Coalesce {
                    max_gap: c.max_gap,
                    max_span: c.max_span,
                },
                wit::Method::LanceRule => Method::LanceRule,
                wit::Method::ObjectStoreRule => Method::ObjectStoreRule,
            },
        }
    }
}

fn u32_of(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn field_to_wit(f: Field) -> wit::Field {
    match f {
        Field::AffineFixedMs => wit::Field::AffineFixedMs,
        Field::AffinePerMibMs => wit::Field::AffinePerMibMs,
        Field::BreakpointBytes => wit::Field::BreakpointBytes,
        Field::BreakpointMs => wit::Field::BreakpointMs,
        Field::CoalesceMaxGap => wit::Field::CoalesceMaxGap,
        _ => wit::Field::CoalesceMaxSpan,
    }
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

fn resource_to_wit(r: Resource) -> wit::Resource {
    match r {
        Resource::Intervals => wit::Resource::Intervals,
        Resource::KMax => wit::Resource::KMax,
        _ => wit::Resource::Requests,
    }
}

fn resource_of_wit(r: wit::Resource) -> Resource {
    match r {
        wit::Resource::Intervals => Resource::Intervals,
        wit::Resource::KMax => Resource::KMax,
        wit::Resource::Requests => Resource::Requests,
    }
}

fn field_message(field: String, message: String) -> wit::FieldMessage {
    wit::FieldMessage { field, message }
}

/// The WIT form of a refusal: the same value, field for field.
fn plan_error(e: PlanError) -> wit::PlanError {
    use wit::PlanError as W;
    match e {
        PlanError::EmptyInterval { index } => W::EmptyInterval(u32_of(index)),
        PlanError::Overlapping {
            index,
            offset,
            previous_end,
        } => W::Overlapping(wit::Overlap {
            index: u32_of(index),
            offset,
            previous_end,
        }),
        PlanError::OffsetOverflow { index } => W::OffsetOverflow(u32_of(index)),
        PlanError::ZeroKMax => W::ZeroKMax,
        PlanError::InvalidParallelism { value } => W::InvalidParallelism(value),
        PlanError::InvalidEpsilon { value } => W::InvalidEpsilon(value),
        PlanError::InvalidSurrogateValue {
            field,
            index,
            value,
        } => W::InvalidSurrogateValue(wit::SurrogateValue {
            field: field_to_wit(field),
            index: index.map(u32_of),
            value,
        }),
        PlanError::EmptySurrogate => W::EmptySurrogate,
        PlanError::UnsortedSurrogate { index } => W::UnsortedSurrogate(u32_of(index)),
        PlanError::DecreasingSurrogate { index } => W::DecreasingSurrogate(u32_of(index)),
        PlanError::SurrogateOverflow { span } => W::SurrogateOverflow(span),
        PlanError::InvalidMethodParameter { field, reason } => {
            W::InvalidMethodParameter(wit::MethodParameter {
                field: field_to_wit(field),
                reason: reason.into_owned(),
            })
        }
        PlanError::CapacityExceeded {
            what,
            requested,
            capacity,
        } => W::CapacityExceeded(wit::Capacity {
            what: resource_to_wit(what),
            requested,
            capacity,
        }),
        PlanError::MemoryLimit {
            needed,
            table,
            limit,
            intervals,
        } => W::MemoryLimit(wit::MemoryLimit {
            needed,
            table,
            limit,
            intervals,
        }),
        PlanError::Interrupted => W::Interrupted,
        PlanError::InvalidGroups { field, message } => {
            W::InvalidGroups(field_message(field, message))
        }
        PlanError::Json { field, message } => W::Json(field_message(field, message)),
        other => W::Json(field_message("$".into(), other.to_string())),
    }
}

/// The planner-core value a WIT refusal mirrors.
fn core_error(e: wit::PlanError) -> PlanError {
    use wit::PlanError as W;
    let idx = |i: u32| i as usize;
    match e {
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
    }
}

fn summary(s: &planner_core::PlanSummary) -> wit::Summary {
    wit::Summary {
        requests: s.requests as u64,
        bytes: s.bytes,
        overfetch_bytes: s.overfetch_bytes,
        w_ms: s.w_ms,
        b_ms: s.b_ms,
        t_ms: s.t_ms,
        lower_bound_ms: s.lower_bound_ms,
    }
}

impl wit::Guest for Component {
    fn plan(instance: wit::Instance) -> Result<wit::RequestPlan, wit::PlanError> {
        let inst = Instance::from(instance);
        with_planner(inst.intervals.len(), inst.k_max, &inst.method, |planner| {
            let plan = planner.plan(&inst.request())?;
            Ok(wit::RequestPlan {
                requests: plan
                    .requests
                    .iter()
                    .map(|r| wit::Request {
                        first: r.first,
                        last: r.last,
                        offset: r.offset,
                        len: r.len,
                    })
                    .collect(),
                summary: summary(&plan.summary),
            })
        })
        .map_err(plan_error)
    }

    fn frontier(
        instance: wit::Instance,
        exact: bool,
        max_points: u32,
    ) -> Result<Vec<wit::FrontierPoint>, wit::PlanError> {
        let inst = Instance::from(instance);
        let mut points = Vec::with_capacity(max_points.min(4096) as usize);
        let method = Planner::frontier_method(exact);
        with_planner(inst.intervals.len(), inst.k_max, &method, |planner| {
            planner.frontier(&inst.request(), exact, max_points as usize, &mut points)
        })
        .map_err(plan_error)?;
        Ok(points
            .iter()
            .map(|p| wit::FrontierPoint {
                cap: p.cap,
                b_ms: p.b_ms,
                w_ms: p.w_ms,
                requests: p.requests as u64,
                bytes: p.bytes,
                exact: p.exact,
            })
            .collect())
    }

    fn error_message(error: wit::PlanError) -> String {
        core_error(error).to_string()
    }

    fn set_memory_limit(bytes: u64) {
        // A limit the guest's 4 GiB cannot hold would trap on a failed
        // allocation instead of refusing the instance.
        let bytes = bytes.min(Planner::MAX_GUEST_MEMORY_LIMIT);
        PLANNER.with_borrow_mut(|planner| *planner = Planner::with_memory_limit(bytes));
    }

    fn evaluate(
        instance: wit::Instance,
        groups: Vec<wit::Group>,
    ) -> Result<wit::Summary, wit::PlanError> {
        let inst = Instance::from(instance);
        let groups: Vec<(u32, u32)> = groups.iter().map(|g| (g.first, g.last)).collect();
        with_planner(
            inst.intervals.len(),
            inst.k_max,
            &Method::Separate,
            |planner| planner.evaluate(&inst.request(), &groups),
        )
        .map(|(_, s)| summary(&s))
        .map_err(plan_error)
    }
}

fn reorder_error(e: ReorderError) -> wit_reorder::ReorderError {
    wit_reorder::ReorderError {
        field: e.field().to_owned(),
        message: e.to_string(),
    }
}

impl wit_reorder::Guest for Component {
    fn reorder(
        input: wit_reorder::ReorderInput,
        layout: wit_reorder::Layout,
    ) -> Result<Vec<u32>, wit_reorder::ReorderError> {
        use wit_reorder::Layout as L;
        let layout = match layout {
            L::Identity => Layout::Identity,
            L::Random(seed) => Layout::Random { seed },
            L::Pca1d => Layout::Pca1d,
            L::PcaZOrder(dims) => Layout::PcaZOrder { dims },
            L::PcaHilbert(dims) => Layout::PcaHilbert { dims },
            L::Spectral(seed) => Layout::Spectral { seed },
            L::GreedyTour => Layout::GreedyTour,
        };
        let input = ReorderInput {
            centroids: &input.centroids,
            dim: input.dim as usize,
            sizes: &input.sizes,
            probes: &input.probes,
            probe_offsets: &input.probe_offsets,
        };
        reorder(&input, &layout).map_err(reorder_error)
    }

    fn coaccess_gap(
        order: Vec<u32>,
        sizes: Vec<u64>,
        probes: Vec<u32>,
        probe_offsets: Vec<u32>,
    ) -> Result<f64, wit_reorder::ReorderError> {
        coaccess_gap(&order, &sizes, &probes, &probe_offsets).map_err(reorder_error)
    }
}

bindings::export!(Component with_types_in bindings);
