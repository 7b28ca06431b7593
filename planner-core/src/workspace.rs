//! Capacities, the memory formula, and the preallocated workspace (ARCHITECTURE §4).

use core::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::dp::Score;
use crate::dp::affine::LayerKey;
use crate::dp::penalized::{PenKey, PenScore, PenalizedWs};
use crate::dp::thresholded::LayeredWs;
use crate::frontier_search::Eval;
use crate::method::Method;
use crate::plan::Request;

/// The sizes a [`Planner`](crate::Planner) is built for.
///
/// Planning an instance within these capacities performs no heap allocation;
/// an instance beyond them is refused with
/// [`PlanError::CapacityExceeded`](crate::PlanError::CapacityExceeded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// Largest number of intervals `n` per call.
    pub max_intervals: usize,
    /// Largest effective request budget `min(K_max, n)` of the DP table.
    pub max_k: usize,
}

/// Which buffers a method plans with (see [`Capacity::workspace_bytes_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Parts {
    /// The cap search: candidate plan, penalized DP, frontier records, cap heap.
    pub search: bool,
    /// The thresholded DP's `n × K` choice table.
    pub table: bool,
}

impl Parts {
    /// What `method` needs; `warp` without the table when the table would not
    /// fit (it then plans as `lagrangian`, see [`Method::Warp`]).
    pub(crate) fn of(method: &Method) -> Self {
        match method {
            Method::Separate
            | Method::Coalesce { .. }
            | Method::LanceRule
            | Method::ObjectStoreRule => Self {
                search: false,
                table: false,
            },
            Method::MinW | Method::MinB => Self {
                search: false,
                table: true,
            },
            Method::Lagrangian => Self {
                search: true,
                table: false,
            },
            Method::Warp | Method::Frontier | Method::Exact => Self {
                search: true,
                table: true,
            },
        }
    }
}

/// Bytes of `count` values of `T`, saturating.
fn bytes_of<T>(count: u64) -> u64 {
    count.saturating_mul(size_of::<T>() as u64)
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
        let e = 64 * (self.max_intervals.saturating_add(1));
        if e < 4096 { e } else { 4096 }
    }

    /// Request slots: `2n + 16` (the `lance_rule` may split one range into pieces).
    pub const fn max_requests(&self) -> usize {
        self.max_intervals.saturating_mul(2).saturating_add(16)
    }

    /// Bytes of the workspace every method needs: with `N = max_intervals`,
    /// `K = min(max_k, N)` and `E` = [`max_frontier_evals`](Self::max_frontier_evals),
    /// the sum of [`workspace_bytes_for`](Self::workspace_bytes_for) over all
    /// parts: `Θ(N·K)`. Saturates at `u64::MAX`.
    pub fn workspace_bytes(&self) -> u64 {
        self.bytes(Parts {
            search: true,
            table: true,
        })
    }

    /// Bytes of the workspace `method` needs at this capacity (`u64`, the same
    /// on 32- and 64-bit targets; saturating):
    ///
    /// - every method: `16·N` (interval bounds) `+ 24·(2N + 16)` (the plan);
    /// - the cap search (`warp`, `frontier`, `exact`, `lagrangian`): another
    ///   `24·(2N + 16)` (candidate plan) `+ 68·N + 32` (penalized DP) `+ 32·E`
    ///   (frontier records) `+ 16·N` (cap heap);
    /// - the thresholded DP table (`warp`, `frontier`, `exact`, `min_w`,
    ///   `min_b`): `4·N·K` (choices) `+ 76·N + 36` (layers, reach, window).
    ///
    /// The baselines need `Θ(N)`, `lagrangian` `Θ(N)`, the others `Θ(N·K)`.
    pub fn workspace_bytes_for(&self, method: &Method) -> u64 {
        self.bytes(Parts::of(method))
    }

    /// The DP table's share: `4·N·K + 76·N + 36` bytes.
    pub fn table_bytes(&self) -> u64 {
        let n = self.max_intervals as u64;
        let k = self.max_k.min(self.max_intervals) as u64;
        bytes_of::<u32>(n.saturating_mul(k))
            .saturating_add(bytes_of::<Score>(2 * (n + 1)))
            .saturating_add(bytes_of::<u32>(3 * n + 1))
            .saturating_add(bytes_of::<LayerKey>(n))
    }

    pub(crate) fn bytes(&self, parts: Parts) -> u64 {
        let n = self.max_intervals as u64;
        let requests = bytes_of::<Request>(self.max_requests() as u64);
        let mut total = bytes_of::<u64>(2 * n).saturating_add(requests);
        if parts.search {
            total = total
                .saturating_add(requests)
                .saturating_add(bytes_of::<PenScore>(n + 1))
                .saturating_add(bytes_of::<u32>(3 * n))
                .saturating_add(bytes_of::<PenKey>(n))
                .saturating_add(bytes_of::<Eval>(self.max_frontier_evals() as u64))
                .saturating_add(bytes_of::<Reverse<(u64, u32, u32)>>(n));
        }
        if parts.table {
            total = total.saturating_add(self.table_bytes());
        }
        total
    }
}

/// What a workspace holds: the intervals of each part and the table's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Held {
    /// Intervals of the bounds and the plan buffer.
    pub base: usize,
    /// Intervals of the cap-search buffers (0 = none).
    pub search: usize,
    /// Intervals and budget of the DP table.
    pub table: (usize, usize),
}

impl Held {
    /// Exactly what `parts` need for `n` intervals and budget `k ≤ n`.
    pub(crate) fn exactly(n: usize, k: usize, parts: Parts) -> Self {
        Self {
            base: n,
            search: if parts.search { n } else { 0 },
            table: if parts.table { (n, k) } else { (0, 0) },
        }
    }

    /// Whether this covers `n` intervals with budget `k ≤ n` for `parts`.
    pub(crate) fn covers(&self, n: usize, k: usize, parts: Parts) -> bool {
        self.base >= n
            && (!parts.search || self.search >= n)
            && (!parts.table || (self.table.0 >= n && self.table.1 >= k))
    }

    /// The smallest holding covering both `self` and `other`.
    pub(crate) fn union(&self, other: &Self) -> Self {
        Self {
            base: self.base.max(other.base),
            search: self.search.max(other.search),
            table: (
                self.table.0.max(other.table.0),
                self.table.1.max(other.table.1),
            ),
        }
    }

    /// Bytes of this holding (the formula of [`Capacity::workspace_bytes_for`]).
    pub(crate) fn bytes(&self) -> u64 {
        let base = Capacity::new(self.base, 0).bytes(Parts {
            search: false,
            table: false,
        });
        let search = Capacity::new(self.search, 0).bytes(Parts {
            search: true,
            table: false,
        }) - Capacity::new(self.search, 0).bytes(Parts {
            search: false,
            table: false,
        });
        let table = if self.table.0 == 0 {
            0
        } else {
            Capacity::new(self.table.0, self.table.1).table_bytes()
        };
        base.saturating_add(search).saturating_add(table)
    }
}

/// The validated interval bounds of the current call.
pub(crate) struct Bounds {
    pub start: Vec<u64>,
    pub end: Vec<u64>,
}

impl Bounds {
    pub(crate) fn new(n: usize) -> Self {
        Self {
            start: vec![0; n],
            end: vec![0; n],
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        (self.start.capacity() + self.end.capacity()) * size_of::<u64>()
    }
}

/// Every buffer the algorithms use, allocated by
/// [`Planner::reserve`](crate::Planner::reserve), never during planning.
pub(crate) struct Workspace {
    pub held: Held,
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
    pub(crate) fn new(held: Held) -> Self {
        let requests = |n: usize| vec![Request::default(); Capacity::new(n, 0).max_requests()];
        let n = held.base;
        let s = held.search;
        Self {
            held,
            layered: LayeredWs::with_capacity(held.table.0, held.table.1.min(held.table.0)),
            penalized: PenalizedWs::with_capacity(s),
            best: requests(n),
            cand: if s == 0 { Vec::new() } else { requests(s) },
            evals: Vec::with_capacity(if s == 0 {
                0
            } else {
                Capacity::new(s, 0).max_frontier_evals()
            }),
            heap: BinaryHeap::with_capacity(s),
        }
    }

    /// Actual bytes held (for tests of the documented formula).
    pub(crate) fn bytes(&self) -> usize {
        self.layered.bytes()
            + self.penalized.bytes()
            + (self.best.capacity() + self.cand.capacity()) * size_of::<Request>()
            + self.evals.capacity() * size_of::<Eval>()
            + self.heap.capacity() * size_of::<Reverse<(u64, u32, u32)>>()
    }
}
