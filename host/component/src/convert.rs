//! Conversions between planner-core's types and the WIT types that
//! `wasmtime::component::bindgen!` generates for `wit/planner.wit`.
//!
//! The guest (`planner-wasm`) converts the other way over wit-bindgen's
//! types; the golden vectors' error cases check that the two agree.

use planner_core::reorder::{Layout, ReorderInput};
use planner_core::{
    Field, FrontierPoint, Method, PlanError, PlanRequest, PlanSummary, Request, Resource, Surrogate,
};

use super::bindings::exports::warp::planner::planner as wit;
use super::bindings::exports::warp::planner::reorder as wit_reorder;
use super::error::ComponentError;

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
pub(super) fn plan_error(e: wit::PlanError) -> ComponentError {
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

pub(super) fn wit_instance(req: &PlanRequest<'_>) -> wit::Instance {
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

pub(super) fn summary(s: &wit::Summary) -> PlanSummary {
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

/// The guest's planned requests as planner-core [`Request`]s.
pub(super) fn requests(plan: &wit::RequestPlan) -> Vec<Request> {
    plan.requests
        .iter()
        .map(|r| Request {
            first: r.first,
            last: r.last,
            offset: r.offset,
            len: r.len,
        })
        .collect()
}

/// The guest's frontier vertices as planner-core [`FrontierPoint`]s.
pub(super) fn frontier(points: &[wit::FrontierPoint]) -> Vec<FrontierPoint> {
    points
        .iter()
        .map(|p| FrontierPoint {
            cap: p.cap,
            b_ms: p.b_ms,
            w_ms: p.w_ms,
            requests: p.requests as usize,
            bytes: p.bytes,
            exact: p.exact,
        })
        .collect()
}

/// A caller's `(first, last)` groups as WIT groups.
pub(super) fn wit_groups(groups: &[(u32, u32)]) -> Vec<wit::Group> {
    groups
        .iter()
        .map(|&(first, last)| wit::Group { first, last })
        .collect()
}

/// A reordering input as the WIT record (the slices copied).
pub(super) fn wit_reorder_input(input: &ReorderInput<'_>) -> wit_reorder::ReorderInput {
    wit_reorder::ReorderInput {
        centroids: input.centroids.to_vec(),
        dim: u32::try_from(input.dim).unwrap_or(u32::MAX),
        sizes: input.sizes.to_vec(),
        probes: input.probes.to_vec(),
        probe_offsets: input.probe_offsets.to_vec(),
    }
}

/// A layout as the WIT variant.
pub(super) fn wit_layout(layout: &Layout) -> wit_reorder::Layout {
    match *layout {
        Layout::Identity => wit_reorder::Layout::Identity,
        Layout::Random { seed } => wit_reorder::Layout::Random(seed),
        Layout::Pca1d => wit_reorder::Layout::Pca1d,
        Layout::PcaZOrder { dims } => wit_reorder::Layout::PcaZOrder(dims),
        Layout::PcaHilbert { dims } => wit_reorder::Layout::PcaHilbert(dims),
        Layout::Spectral { seed } => wit_reorder::Layout::Spectral(seed),
        Layout::GreedyTour => wit_reorder::Layout::GreedyTour,
    }
}
