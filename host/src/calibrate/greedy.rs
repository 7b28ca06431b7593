//! The tuned-greedy baseline: a fixed coalescing rule (`coalesce:GAP:SPAN`)
//! whose thresholds are tuned by grid search on a validation workload (seed
//! summary §7.2). Workloads are judged with planner-core's
//! [`plan_log`]: plan totals (GETs, bytes,
//! `Σ T_P`) of every query of a probe log under a layout.

use planner_core::Method;
use planner_core::reorder::{LogPlanSettings, LogPlanTotals, plan_log};

use crate::error::{Error, Result};

/// A probe log over a payload layout: what [`plan_log`] judges.
#[derive(Debug, Clone, Copy)]
pub struct LogRef<'a> {
    /// `order[position] = cluster`.
    pub order: &'a [u32],
    /// Payload bytes per cluster.
    pub sizes: &'a [u64],
    /// Probed cluster ids per query (CSR values).
    pub probes: &'a [u32],
    /// CSR offsets, `queries + 1`.
    pub probe_offsets: &'a [u32],
}

/// Plan totals of `log` with `method`; the other settings from `base`.
///
/// # Errors
/// [`Error::Input`] with planner-core's message when the log or settings are
/// invalid.
pub fn evaluate(log: &LogRef<'_>, method: Method, base: &LogPlanSettings) -> Result<LogPlanTotals> {
    let settings = LogPlanSettings {
        method,
        ..base.clone()
    };
    plan_log(
        log.order,
        log.sizes,
        log.probes,
        log.probe_offsets,
        &settings,
    )
    .map_err(|e| Error::input(format!("plan_log: {e}")))
}

/// The default grid: gaps 0, 16 KiB … 64 MiB (×4) and spans unlimited or
/// 1 MiB … 256 MiB (×4): 8 × 6 = 48 rules.
pub fn default_grid() -> Vec<(u64, Option<u64>)> {
    let gaps = [
        0u64,
        16 << 10,
        64 << 10,
        256 << 10,
        1 << 20,
        4 << 20,
        16 << 20,
        64 << 20,
    ];
    let spans = [
        None,
        Some(1u64 << 20),
        Some(4 << 20),
        Some(16 << 20),
        Some(64 << 20),
        Some(256 << 20),
    ];
    gaps.iter()
        .flat_map(|&g| spans.iter().map(move |&s| (g, s)))
        .collect()
}

/// The `coalesce{max_gap, max_span}` rule of `grid` with the least total
/// `T_P` on `validation` (ties: fewer GETs, then fewer bytes, then grid
/// order), with its totals.
///
/// # Errors
/// As [`evaluate`]; [`Error::Input`] for an empty grid.
///
/// # Complexity
/// `|grid|` evaluations of the log, each `O(Σ_q nprobe_q)` for the
/// coalescing rule.
pub fn tune_greedy(
    validation: &LogRef<'_>,
    grid: &[(u64, Option<u64>)],
    base: &LogPlanSettings,
) -> Result<(Method, LogPlanTotals)> {
    let mut best: Option<(Method, LogPlanTotals)> = None;
    for &(max_gap, max_span) in grid {
        let m = Method::Coalesce { max_gap, max_span };
        let t = evaluate(validation, m, base)?;
        let better = best.as_ref().is_none_or(|(_, b)| {
            (t.t_ms, t.requests, t.bytes)
                .partial_cmp(&(b.t_ms, b.requests, b.bytes))
                .is_some_and(|o| o.is_lt())
        });
        if better {
            best = Some((m, t));
        }
    }
    best.ok_or_else(|| Error::input("the greedy grid is empty"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::reorder::{Layout, SyntheticParams, clustered, reorder};

    #[test]
    fn tuning_picks_the_best_rule_and_warp_is_no_worse() {
        let w = clustered(&SyntheticParams {
            clusters: 128,
            dim: 16,
            queries: 40,
            nprobe: 10,
            ..SyntheticParams::default()
        });
        let order = reorder(&w.input(), &Layout::default()).unwrap();
        let log = LogRef {
            order: &order,
            sizes: &w.sizes,
            probes: &w.probes,
            probe_offsets: &w.probe_offsets,
        };
        let base = LogPlanSettings {
            k_max: 10,
            ..LogPlanSettings::default()
        };
        let grid = default_grid();
        let (m, t) = tune_greedy(&log, &grid, &base).unwrap();
        for &(g, s) in &grid {
            let other = evaluate(
                &log,
                Method::Coalesce {
                    max_gap: g,
                    max_span: s,
                },
                &base,
            )
            .unwrap();
            assert!(t.t_ms <= other.t_ms, "{m:?} {t:?} vs {g} {s:?} {other:?}");
        }
        let warp = evaluate(&log, Method::Warp, &base).unwrap();
        assert!(warp.t_ms <= t.t_ms * 1.01, "warp {warp:?} vs greedy {t:?}");
        assert!(matches!(m, Method::Coalesce { .. }));
        assert!(tune_greedy(&log, &[], &base).is_err());
    }
}
