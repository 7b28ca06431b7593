//! The page's JSON answers: every `u64` as a decimal string (JavaScript
//! numbers are exact only below `2^53`), every `f64` in its shortest
//! round-trip form.

use planner_core::json::{Instance, PlanJson};
use planner_core::{FrontierPoint, Method, Plan, PlanSummary, Pricing, Surrogate};
use serde_json::{Value, json};

/// The settings of an instance as a JSON object for the page's controls:
/// every field explicit, every `u64` (`k_max`, breakpoint bytes, coalesce
/// parameters) as a decimal string so JavaScript never rounds it.
pub(crate) fn settings_value(inst: &Instance) -> Value {
    let surrogate = match &inst.surrogate {
        Surrogate::Affine {
            fixed_ms,
            per_mib_ms,
        } => json!({"affine": {"fixed_ms": fixed_ms, "per_mib_ms": per_mib_ms}}),
        Surrogate::Piecewise(points) => json!({"piecewise": points
            .iter()
            .map(|p| json!([p.bytes.to_string(), p.ms]))
            .collect::<Vec<_>>()}),
    };
    let method = match inst.method {
        Method::Coalesce { max_gap, max_span } => json!({"coalesce": {
            "max_gap": max_gap.to_string(),
            "max_span": max_span.map(|s| s.to_string()),
        }}),
        m => Value::String(m.name().to_owned()),
    };
    json!({
        "k_max": inst.k_max.to_string(),
        "parallelism": inst.parallelism,
        "surrogate": surrogate,
        "epsilon": inst.epsilon,
        "method": method,
    })
}

/// Plan figures and groups, with `u64`s as decimal strings.
pub(crate) fn plan_value(plan: &Plan<'_>, first_offset: u64) -> Value {
    let s = &plan.summary;
    let ranges: Vec<[String; 2]> = plan
        .requests
        .iter()
        .map(|r| [r.offset.to_string(), r.len.to_string()])
        .collect();
    json!({
        "groups": plan.requests.iter().map(|r| [r.first, r.last]).collect::<Vec<_>>(),
        "ranges": ranges,
        "strip": strip(plan.requests.iter().map(|r| (r.offset, r.len)), first_offset),
        "requests": s.requests,
        "bytes": s.bytes.to_string(),
        "overfetch_bytes": s.overfetch_bytes.to_string(),
        "w_ms": s.w_ms,
        "b_ms": s.b_ms,
        "t_ms": s.t_ms,
        "lower_bound_ms": s.lower_bound_ms,
        "dollars": Pricing::default().dollars(s.requests, s.bytes),
        "max_len": plan.requests.iter().map(|r| r.len).max().unwrap_or(0).to_string(),
        "plan_json": PlanJson::from(plan).to_json(),
    })
}

/// A plan's figures: `requests`, `bytes` (a string), `w_ms`, `b_ms`,
/// `t_ms`, `lower_bound_ms` (or `null`) and `dollars`
/// ([`Pricing::default`]).
pub(crate) fn summary_value(s: &PlanSummary) -> Value {
    json!({
        "requests": s.requests,
        "bytes": s.bytes.to_string(),
        "w_ms": s.w_ms,
        "b_ms": s.b_ms,
        "t_ms": s.t_ms,
        "lower_bound_ms": s.lower_bound_ms,
        "dollars": Pricing::default().dollars(s.requests, s.bytes),
    })
}

/// `[start − first_offset, len]` pairs as doubles, for drawing only (exact
/// below `2^53` bytes of span, rounded beyond).
pub(crate) fn strip(ranges: impl Iterator<Item = (u64, u64)>, first_offset: u64) -> Vec<[f64; 2]> {
    ranges
        .map(|(o, l)| [(o - first_offset) as f64, l as f64])
        .collect()
}

/// One frontier vertex as JSON (`cap` and `bytes` as strings).
pub(crate) fn point_value(p: &FrontierPoint) -> Value {
    json!({
        "cap": p.cap.to_string(),
        "b_ms": p.b_ms,
        "w_ms": p.w_ms,
        "requests": p.requests,
        "bytes": p.bytes.to_string(),
        "exact": p.exact,
    })
}
