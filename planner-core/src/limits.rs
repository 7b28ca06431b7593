//! [`PlanLimits`]: the bounds of one planning call, the same for the native
//! planner and the planner component (ARCHITECTURE §4). An embedder derives
//! them from its own configuration (the `warp` host from `WARP_PLAN_*`).
//!
//! Both backends refuse an instance whose planner workspace would exceed
//! [`PlanLimits::plan_memory_bytes`] with the same
//! [`PlanError::MemoryLimit`](crate::PlanError::MemoryLimit) line, and
//! stop a call at the same [`PlanLimits::plan_deadline`]: the native planner by
//! polling the clock between units of work
//! ([`Planner::plan_until`]), the
//! component by wasmtime's epoch deadline. Either way the call fails with
//! [`PlanError::Interrupted`](crate::PlanError::Interrupted).

use std::time::Duration;

use crate::{Method, PlanRequest, Planner};

/// Resource caps of one planning call (both backends).
///
/// The deadline of a call over `n` intervals with budget `K = min(K_max, n)`
/// is `deadline_base_ms + deadline_ns_per_cell × cells / 10^6` milliseconds,
/// `cells = 64·n·(K + 1)` (times `n` for [`Method::Exact`]), clamped to
/// `max_deadline_ms`: generous for the intended methods (orders of magnitude
/// above their measured times), short enough that `exact` on thousands of
/// intervals with a non-convex surrogate stops instead of running for an hour.
/// It is wall-clock time, so it depends on the machine's load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanLimits {
    /// Largest planner workspace, bytes
    /// ([`Capacity::workspace_bytes_for`](crate::Capacity::workspace_bytes_for)
    /// of the call's method). Default 1 GiB
    /// ([`Planner::DEFAULT_MEMORY_LIMIT`]). The component's guest memory may
    /// hold this plus copies of the call's input and output.
    pub plan_memory_bytes: u64,
    /// Longest call, milliseconds. Default 60,000.
    pub max_deadline_ms: u64,
    /// Time every call gets, milliseconds. Default 1,000.
    pub deadline_base_ms: u64,
    /// Time per DP cell, nanoseconds. Default 2,000.
    pub deadline_ns_per_cell: u64,
}

impl Default for PlanLimits {
    fn default() -> Self {
        Self {
            plan_memory_bytes: Planner::DEFAULT_MEMORY_LIMIT,
            max_deadline_ms: 60_000,
            deadline_base_ms: 1_000,
            deadline_ns_per_cell: 2_000,
        }
    }
}

impl PlanLimits {
    /// The deadline of planning `req` (see the type's docs).
    pub fn plan_deadline(&self, req: &PlanRequest<'_>) -> Duration {
        Duration::from_millis(self.deadline_ms(
            req.intervals.len(),
            req.k_max,
            req.method == Method::Exact,
        ))
    }

    /// The work of a call over `n` intervals with budget `K = min(k_max,
    /// n)`, in DP cells: `64·n·(K + 1)`, times `n` for `exact` (saturating).
    /// The deadline's measure, and a host's for how long a call may run.
    /// `O(1)`.
    pub fn cells(n: usize, k_max: usize, exact: bool) -> u64 {
        let n = n as u64;
        let k = (k_max as u64).min(n).saturating_add(1);
        n.saturating_mul(k)
            .saturating_mul(64)
            .saturating_mul(if exact { n.max(1) } else { 1 })
    }

    /// The deadline, milliseconds, of a call over `n` intervals with budget
    /// `k_max` (`exact`: the exact method's `n` times more cells).
    pub fn deadline_ms(&self, n: usize, k_max: usize, exact: bool) -> u64 {
        let cells = Self::cells(n, k_max, exact);
        self.deadline_base_ms
            .saturating_add(self.deadline_ns_per_cell.saturating_mul(cells) / 1_000_000)
            .min(self.max_deadline_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_grows_with_the_instance_and_is_capped() {
        let l = PlanLimits::default();
        assert_eq!(l.deadline_ms(0, 0, false), 1_000);
        assert!(l.deadline_ms(10_000, 64, false) > l.deadline_ms(100, 64, false));
        assert_eq!(l.deadline_ms(7_000, 7_000, true), 60_000);
        assert_eq!(l.deadline_ms(usize::MAX, usize::MAX, true), 60_000);
    }
}
