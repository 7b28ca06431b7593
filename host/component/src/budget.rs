//! The limits of one guest call and their enforcement.
//!
//! A call's [`Budget`] is derived from its size ([`CallSize`]): the memory the
//! guest may need (the method's planner workspace, as
//! [`planner_core::Capacity::workspace_bytes_for`] counts it, plus copies of
//! the input and output) and the deadline [`PlanLimits::deadline_ms`] gives.
//! [`Guard`] is the store data that enforces the memory part through
//! wasmtime's [`ResourceLimiter`]; the epoch deadline enforces the time part.

use planner_core::{Capacity, Method, PlanRequest};
use wasmtime::ResourceLimiter;

use super::error::Work;
use planner_core::PlanLimits;

/// Largest guest linear memory for `limits`: twice the planner workspace
/// limit (workspace plus copies of the call's input and output) and 64 MiB,
/// within wasm32's 4 GiB.
pub(super) fn guest_memory_max(limits: &PlanLimits) -> usize {
    let bytes = limits
        .plan_memory_bytes
        .saturating_mul(2)
        .saturating_add(64 << 20)
        .min((4 << 30) - (64 << 10));
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// Store data: the memory guard of the instance.
pub(super) struct Guard {
    /// Current size of the guest's linear memory, bytes.
    pub(super) memory: usize,
    /// Largest size allowed during the current call, bytes.
    pub(super) limit: usize,
    /// The size refused, when the guard stopped a growth.
    pub(super) refused: Option<usize>,
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

/// The limits of one call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    pub(super) work: Work,
    /// Bytes the guest may need beyond its current memory.
    pub(super) memory_need: usize,
    pub(super) deadline_ms: u64,
}

/// The size of a planning call, from which its limits are derived.
#[derive(Debug, Clone, Copy)]
pub(super) struct CallSize {
    pub(super) intervals: usize,
    pub(super) k_max: usize,
    /// The method whose buffers the guest reserves.
    pub(super) method: Method,
    /// Whether the call runs one DP per candidate cap (deadline `× n`).
    pub(super) exact: bool,
}

impl CallSize {
    pub(super) fn of(req: &PlanRequest<'_>) -> Self {
        Self {
            intervals: req.intervals.len(),
            k_max: req.k_max,
            method: req.method,
            exact: req.method == Method::Exact,
        }
    }

    /// Bytes the guest may need for this call: the method's workspace
    /// (what the guest planner reserves), input and output copies.
    pub(super) fn memory_need(&self) -> usize {
        let n = self.intervals;
        let workspace = Capacity::new(n, self.k_max.min(n)).workspace_bytes_for(&self.method);
        usize::try_from(workspace)
            .unwrap_or(usize::MAX)
            .saturating_add(n.saturating_mul(160))
    }

    pub(super) fn budget(&self, limits: &PlanLimits) -> Budget {
        Budget {
            work: Work::Plan {
                intervals: self.intervals,
            },
            memory_need: self.memory_need(),
            deadline_ms: limits.deadline_ms(self.intervals, self.k_max, self.exact),
        }
    }
}
