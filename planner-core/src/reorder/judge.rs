//! Judging a layout by the plans it leads to over a query log.

use super::{ReorderError, gap, log};
use crate::{Capacity, Interval, Method, PlanRequest, Planner, Surrogate};

/// How each query of the log is planned by [`plan_log`].
#[derive(Debug, Clone, PartialEq)]
pub struct LogPlanSettings {
    /// The planning method.
    pub method: Method,
    /// Request budget `K_max` per query.
    pub k_max: usize,
    /// Expected request parallelism `P` (`None` = unbounded).
    pub parallelism: Option<f64>,
    /// The request-time surrogate.
    pub surrogate: Surrogate,
    /// Tolerance `ε` of the ε-methods.
    pub epsilon: f64,
}

impl Default for LogPlanSettings {
    /// WaRP, `K_max = 16`, `P = 8`, the S3 surrogate, `ε = 0.01` (ARCHITECTURE §5's
    /// example instance).
    fn default() -> Self {
        Self {
            method: Method::Warp,
            k_max: 16,
            parallelism: Some(8.0),
            surrogate: Surrogate::S3,
            epsilon: 0.01,
        }
    }
}

/// Totals of the plans of every query of a log under one layout.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LogPlanTotals {
    /// Queries planned.
    pub queries: usize,
    /// `Σ |π_q|`, GETs.
    pub requests: u64,
    /// `Σ bytes(π_q)`, bytes fetched.
    pub bytes: u128,
    /// `Σ overfetch(π_q)`, gap bytes fetched and discarded.
    pub overfetch_bytes: u128,
    /// `Σ T_P(π_q)`, ms (summed in query order).
    pub t_ms: f64,
}

/// Plans every query of the log under the layout `order` and sums GETs,
/// bytes and `T_P` — a layout is judged by the plans it leads to (paper §5).
///
/// Query `q`'s required intervals are the payloads of its distinct probed
/// clusters, `[start(p), start(p) + size)` at layout positions `p` in
/// increasing order (adjacent payloads touch); zero-byte payloads need no
/// interval.
///
/// # Complexity
/// `O(C + Σ_q |probes_q| log |probes_q|)` plus one plan per query; memory
/// `12C + 8` bytes, the planner workspace for `max_q |probes_q|` intervals,
/// and `20 · max_q |probes_q|` bytes of scratch.
///
/// # Errors
/// The [`coaccess_gap`](super::coaccess_gap) input errors, or
/// [`ReorderError::Plan`] when the settings are invalid (naming the field).
///
/// # Examples
/// ```
/// use planner_core::reorder::{LogPlanSettings, plan_log};
///
/// // Two 1 MiB clusters probed together, with a third between them or not,
/// // planned for serial requests (P = 1): one merged GET either way.
/// let sizes = [1 << 20; 3];
/// let (probes, offsets) = ([0, 2], [0, 2]);
/// let s = LogPlanSettings { parallelism: Some(1.0), ..Default::default() };
/// let apart = plan_log(&[0, 1, 2], &sizes, &probes, &offsets, &s).unwrap();
/// let adjacent = plan_log(&[0, 2, 1], &sizes, &probes, &offsets, &s).unwrap();
/// assert_eq!((apart.requests, adjacent.requests), (1, 1));
/// assert_eq!(apart.overfetch_bytes, 1 << 20);
/// assert_eq!(adjacent.overfetch_bytes, 0);
/// assert!(adjacent.t_ms < apart.t_ms);
/// ```
pub fn plan_log(
    order: &[u32],
    sizes: &[u64],
    probes: &[u32],
    probe_offsets: &[u32],
    settings: &LogPlanSettings,
) -> Result<LogPlanTotals, ReorderError> {
    let clusters = sizes.len();
    let position = gap::inverse(order, clusters)?;
    let start = gap::starts(order, sizes)?;
    let queries = log::validate(probes, probe_offsets, clusters)?;
    let longest = (0..queries)
        .map(|q| (probe_offsets[q + 1] - probe_offsets[q]) as usize)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut planner = Planner::new(Capacity::new(longest, settings.k_max.clamp(1, longest)))
        .map_err(ReorderError::Plan)?;
    let mut pos: Vec<u32> = Vec::with_capacity(longest);
    let mut intervals: Vec<Interval> = Vec::with_capacity(longest);
    let mut totals = LogPlanTotals {
        queries,
        ..LogPlanTotals::default()
    };
    for q in 0..queries {
        log::positions_into(log::row(probes, probe_offsets, q), &position, &mut pos);
        intervals.clear();
        for &p in &pos {
            let (s, e) = (start[p as usize], start[p as usize + 1]);
            if e > s {
                intervals.push(Interval::new(s, e - s));
            }
        }
        let plan = planner
            .plan(&PlanRequest {
                intervals: &intervals,
                k_max: settings.k_max,
                parallelism: settings.parallelism,
                surrogate: &settings.surrogate,
                epsilon: settings.epsilon,
                method: settings.method,
            })
            .map_err(ReorderError::Plan)?;
        totals.requests += plan.summary.requests as u64;
        totals.bytes += u128::from(plan.summary.bytes);
        totals.overfetch_bytes += u128::from(plan.summary.overfetch_bytes);
        totals.t_ms += plan.summary.t_ms;
    }
    Ok(totals)
}
