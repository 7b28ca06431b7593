//! # planner-wasm — planner-core as a WebAssembly component
//!
//! The wit-bindgen guest of `wit/planner.wit` (`warp:planner@0.1.0`): thin
//! conversions between the WIT types and `planner-core`, nothing else. Built for
//! `wasm32-unknown-unknown` and wrapped into a component that imports nothing;
//! `warp-host`'s build script does both (see `host/build.rs`), and
//! `scripts/build-component` writes the result to a file for other embedders.
//!
//! One [`Planner`] is kept per instance and grown to the largest instance seen,
//! so a warm `plan` allocates only its result lists.

use std::cell::RefCell;

use planner_core::json::Instance;
use planner_core::reorder::{Layout, ReorderError, ReorderInput, coaccess_gap, reorder};
use planner_core::{
    Breakpoint, Capacity, Interval, Method, Parallelism, PlanError, Planner, Request, Surrogate,
    summarize,
};

wit_bindgen::generate!({
    world: "planner-component",
    path: "../wit",
});

use exports::warp::planner::planner as wit;
use exports::warp::planner::reorder as wit_reorder;

struct Component;

thread_local! {
    /// The instance's planner, grown on demand (a component instance is single-threaded).
    static PLANNER: RefCell<Option<Planner>> = const { RefCell::new(None) };
}

/// Runs `f` with a planner whose capacity covers `n` intervals and budget `k_max`.
fn with_planner<T>(
    n: usize,
    k_max: usize,
    f: impl FnOnce(&mut Planner) -> Result<T, PlanError>,
) -> Result<T, PlanError> {
    PLANNER.with_borrow_mut(|slot| {
        let k = k_max.min(n);
        let fits = slot
            .as_ref()
            .is_some_and(|p| p.capacity().max_intervals >= n && p.capacity().max_k >= k);
        if !fits {
            let old = slot.as_ref().map_or(Capacity::new(0, 0), Planner::capacity);
            // Drop the old workspace before allocating the larger one.
            *slot = None;
            *slot = Some(Planner::new(Capacity::new(
                n.max(old.max_intervals),
                k.max(old.max_k),
            ))?);
        }
        f(slot.as_mut().expect("planner just ensured"))
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
            field: field.into(),
            index: index.map(u32_of),
            value,
        }),
        PlanError::EmptySurrogate => W::EmptySurrogate,
        PlanError::UnsortedSurrogate { index } => W::UnsortedSurrogate(u32_of(index)),
        PlanError::DecreasingSurrogate { index } => W::DecreasingSurrogate(u32_of(index)),
        PlanError::SurrogateOverflow { span } => W::SurrogateOverflow(span),
        PlanError::InvalidMethodParameter { field, reason } => {
            W::InvalidMethodParameter(wit::MethodParameter {
                field: field.into(),
                reason: reason.into(),
            })
        }
        PlanError::CapacityExceeded {
            what,
            requested,
            capacity,
        } => W::CapacityExceeded(wit::Capacity {
            what: what.into(),
            requested: requested as u64,
            capacity: capacity as u64,
        }),
        other => W::Other(other.to_string()),
    }
}

/// The guest's `&'static str` fields come from a finite set of literals; each
/// distinct string coming back through `error-message` is leaked once.
fn intern(s: String) -> &'static str {
    thread_local! {
        static SEEN: RefCell<std::collections::BTreeSet<&'static str>> = const { RefCell::new(std::collections::BTreeSet::new()) };
    }
    SEEN.with_borrow_mut(|seen| match seen.get(s.as_str()) {
        Some(s) => s,
        None => {
            let s: &'static str = Box::leak(s.into_boxed_str());
            seen.insert(s);
            s
        }
    })
}

/// The one-line display of a WIT error: the planner-core error it mirrors.
fn error_message(e: wit::PlanError) -> String {
    use wit::PlanError as W;
    let idx = |i: u32| i as usize;
    let core = match e {
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
            field: intern(v.field),
            index: v.index.map(idx),
            value: v.value,
        },
        W::EmptySurrogate => PlanError::EmptySurrogate,
        W::UnsortedSurrogate(index) => PlanError::UnsortedSurrogate { index: idx(index) },
        W::DecreasingSurrogate(index) => PlanError::DecreasingSurrogate { index: idx(index) },
        W::SurrogateOverflow(span) => PlanError::SurrogateOverflow { span },
        W::InvalidMethodParameter(m) => PlanError::InvalidMethodParameter {
            field: intern(m.field),
            reason: intern(m.reason),
        },
        W::CapacityExceeded(c) => PlanError::CapacityExceeded {
            what: intern(c.what),
            requested: usize::try_from(c.requested).unwrap_or(usize::MAX),
            capacity: usize::try_from(c.capacity).unwrap_or(usize::MAX),
        },
        W::InvalidGroups(j) => PlanError::Json {
            field: j.field,
            message: j.message,
        },
        W::Other(line) => return line,
    };
    core.to_string()
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

fn invalid_groups(field: String, message: String) -> wit::PlanError {
    wit::PlanError::InvalidGroups(wit::FieldMessage { field, message })
}

/// The requests of a caller's groups, checking they partition `0..n` in order.
fn requests_of(
    intervals: &[Interval],
    groups: &[wit::Group],
) -> Result<Vec<Request>, wit::PlanError> {
    let n = intervals.len();
    let mut next = 0usize;
    let mut out = Vec::with_capacity(groups.len());
    for (i, g) in groups.iter().enumerate() {
        let (first, last) = (g.first as usize, g.last as usize);
        if first != next {
            return Err(invalid_groups(
                format!("groups[{i}].first"),
                format!(
                    "expected {next} (groups must cover the intervals in order without gaps), got {first}"
                ),
            ));
        }
        if last < first || last >= n {
            return Err(invalid_groups(
                format!("groups[{i}].last"),
                format!("must be in {first}..={}, got {last}", n.saturating_sub(1)),
            ));
        }
        let offset = intervals[first].offset;
        out.push(Request {
            first: g.first,
            last: g.last,
            offset,
            len: intervals[last].offset + intervals[last].len - offset,
        });
        next = last + 1;
    }
    if next != n {
        return Err(invalid_groups(
            "groups".into(),
            format!("cover intervals 0..{next} of 0..{n}"),
        ));
    }
    Ok(out)
}

impl wit::Guest for Component {
    fn plan(instance: wit::Instance) -> Result<wit::RequestPlan, wit::PlanError> {
        let inst = Instance::from(instance);
        with_planner(inst.intervals.len(), inst.k_max, |planner| {
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
        with_planner(inst.intervals.len(), inst.k_max, |planner| {
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
        error_message(error)
    }

    fn evaluate(
        instance: wit::Instance,
        groups: Vec<wit::Group>,
    ) -> Result<wit::Summary, wit::PlanError> {
        let mut inst = Instance::from(instance);
        // Validate the instance exactly as planning does (separate is O(n)).
        inst.method = Method::Separate;
        with_planner(inst.intervals.len(), inst.k_max, |planner| {
            planner.plan(&inst.request()).map(|_| ())
        })
        .map_err(plan_error)?;
        let requests = requests_of(&inst.intervals, &groups)?;
        let required = inst.intervals.iter().map(|iv| iv.len).sum();
        let p = Parallelism::new(inst.parallelism).map_err(plan_error)?;
        Ok(summary(&summarize(&requests, required, &inst.surrogate, p)))
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

export!(Component);
