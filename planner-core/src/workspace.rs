//! Capacities and the preallocated workspace (DESIGN §4).

use core::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::PlanError;
use crate::dp::penalized::PenalizedWs;
use crate::dp::thresholded::LayeredWs;
use crate::frontier_search::Eval;
use crate::plan::Request;

/// The sizes a [`Planner`](crate::Planner) is built for.
///
/// Planning an instance within these capacities performs no heap allocation;
/// an instance beyond them is refused with [`PlanError::CapacityExceeded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Largest number of intervals `n` per call.
    pub max_intervals: usize,
    /// Largest effective request budget `min(K_max, n)` per call.
    pub max_k: usize,
}

impl Capacity {
    /// A capacity for `max_intervals` intervals and budgets up to `max_k`.
    pub const fn new(max_intervals: usize, max_k: usize) -> Self {
        Self {
            max_intervals,
            max_k,
        }
    }

    /// Frontier evaluations kept per call: `min(64·(n + 1), 4096)` — 64
    /// bisection steps per region; past it the search stops with its certified
    /// lower bound.
    pub const fn max_frontier_evals(&self) -> usize {
        let e = 64 * (self.max_intervals + 1);
        if e < 4096 { e } else { 4096 }
    }

    /// Request slots: `2n + 16` (the `lance` rule may split one range into pieces).
    pub const fn max_requests(&self) -> usize {
        2 * self.max_intervals + 16
    }

    /// Bytes the workspace occupies, with `N = max_intervals`, `K = min(max_k, N)`:
    ///
    /// at most `4·N·K` (layered DP choices) `+ 256·(N+1)` (DP layers, reach
    /// tables, sliding windows, penalized DP, bounds) `+ 48·(2N+16)` (two
    /// request buffers) `+ 40·E` (frontier records, `E` =
    /// [`max_frontier_evals`](Self::max_frontier_evals)), i.e. `Θ(N·K)`.
    ///
    /// # Errors
    /// [`PlanError::CapacityExceeded`] when the size does not fit in `usize`.
    pub fn workspace_bytes(&self) -> Result<usize, PlanError> {
        let n = self.max_intervals;
        let k = self.max_k.min(n);
        let overflow = || PlanError::CapacityExceeded {
            what: "workspace bytes",
            requested: usize::MAX,
            capacity: isize::MAX as usize,
        };
        let table = n
            .checked_mul(k)
            .and_then(|c| c.checked_mul(4))
            .ok_or_else(overflow)?;
        let linear = (n + 1)
            .checked_mul(256)
            .and_then(|l| l.checked_add(48 * self.max_requests()))
            .and_then(|l| l.checked_add(40 * self.max_frontier_evals()))
            .ok_or_else(overflow)?;
        table
            .checked_add(linear)
            .filter(|&b| b <= isize::MAX as usize)
            .ok_or_else(overflow)
    }
}

/// The validated interval bounds of the current call.
pub(crate) struct Bounds {
    pub start: Vec<u64>,
    pub end: Vec<u64>,
}

/// Every buffer the algorithms use, allocated once by [`Planner::new`](crate::Planner::new).
pub(crate) struct Workspace {
    pub layered: LayeredWs,
    pub penalized: PenalizedWs,
    /// The incumbent plan and a candidate being evaluated.
    pub best: Vec<Request>,
    pub cand: Vec<Request>,
    pub evals: Vec<Eval>,
    /// Min-heap of `(span, row, column)` for the exact method's cap enumeration.
    pub heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
}

impl Workspace {
    pub fn new(cap: Capacity) -> Self {
        let n = cap.max_intervals;
        let k = cap.max_k.min(n);
        Self {
            layered: LayeredWs::with_capacity(n, k),
            penalized: PenalizedWs::with_capacity(n),
            best: vec![Request::default(); cap.max_requests()],
            cand: vec![Request::default(); cap.max_requests()],
            evals: Vec::with_capacity(cap.max_frontier_evals()),
            heap: BinaryHeap::with_capacity(n),
        }
    }

    /// Actual bytes held (for tests of the documented formula).
    pub fn bytes(&self) -> usize {
        self.layered.bytes()
            + self.penalized.bytes()
            + (self.best.capacity() + self.cand.capacity()) * size_of::<Request>()
            + self.evals.capacity() * size_of::<Eval>()
            + self.heap.capacity() * size_of::<Reverse<(u64, u32, u32)>>()
    }
}
