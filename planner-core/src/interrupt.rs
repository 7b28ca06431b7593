//! Cooperative interruption: the caller's deadline, polled between units of work.
//!
//! planner-core has no clocks; a caller that needs a deadline passes a
//! closure (e.g. `|| Instant::now() >= deadline`) to
//! [`Planner::plan_until`](crate::Planner::plan_until). The planner polls it
//! once per unit of work — a thresholded-DP layer, a penalized-DP solve, a
//! block of [`ROWS_PER_POLL`] rows of an `O(n²)` row scan, a cap of the exact
//! search — so a poll costs nothing measurable next to the work between two
//! polls, and the plan stops within one unit of the deadline.

/// Rows of an `O(n)`-per-row scan between two polls.
pub(crate) const ROWS_PER_POLL: usize = 256;

/// The interrupt of one call, and whether it fired.
pub(crate) struct Stop<'a> {
    poll: Option<&'a mut dyn FnMut() -> bool>,
    stopped: bool,
}

impl<'a> Stop<'a> {
    /// Never stops.
    pub(crate) fn never() -> Self {
        Self {
            poll: None,
            stopped: false,
        }
    }

    /// Stops once `poll` returns `true`.
    pub(crate) fn when(poll: &'a mut dyn FnMut() -> bool) -> Self {
        Self {
            poll: Some(poll),
            stopped: false,
        }
    }

    /// Polls; `true` once the interrupt fired (then stays `true`).
    #[inline]
    pub(crate) fn check(&mut self) -> bool {
        if !self.stopped
            && let Some(poll) = self.poll.as_mut()
        {
            self.stopped = poll();
        }
        self.stopped
    }

    /// Whether the interrupt fired (without polling).
    #[inline]
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }
}
