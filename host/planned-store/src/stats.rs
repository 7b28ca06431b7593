//! What a [`PlannedStore`](crate::PlannedStore) did: lock-free counters and
//! the snapshot they are read as.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters of one planned read, returned with its bytes by
/// [`PlannedStore::read`](crate::PlannedStore::read) and added to the store's
/// totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CallStats {
    /// Planned GETs (the plan's `|π|`; hedges and re-fetches are counted
    /// apart).
    pub gets: u64,
    /// Bytes of the planned GETs (`Σ L_g`).
    pub bytes: u64,
    /// Gap bytes fetched beyond the requested intervals.
    pub overfetch_bytes: u64,
    /// Wall time spent planning, µs.
    pub plan_us: u64,
    /// Second requests issued for a straggling GET.
    pub hedges: u64,
    /// Hedges whose answer arrived first.
    pub hedges_won: u64,
    /// GETs issued again after a stall, a wrong range or length, or (by the
    /// caller) a checksum mismatch.
    pub refetches: u64,
    /// Responses that made no progress for the stall timeout.
    pub stalls: u64,
    /// Calls that missed their deadline (0 or 1 per call).
    pub deadline_misses: u64,
}

impl CallStats {
    /// Adds `o` into `self` field by field.
    pub fn add(&mut self, o: &CallStats) {
        self.gets += o.gets;
        self.bytes += o.bytes;
        self.overfetch_bytes += o.overfetch_bytes;
        self.plan_us += o.plan_us;
        self.hedges += o.hedges;
        self.hedges_won += o.hedges_won;
        self.refetches += o.refetches;
        self.stalls += o.stalls;
        self.deadline_misses += o.deadline_misses;
    }
}

/// A consistent-enough copy of the store's counters (each field is read
/// atomically; fields are not read together).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StatsSnapshot {
    /// Planned reads (`get_ranges` calls and [`read`](crate::PlannedStore::read)s).
    pub calls: u64,
    /// Sum of every call's [`CallStats`].
    pub totals: CallStats,
    /// The surrogate of the most recent plan, affine `(fixed_ms,
    /// per_mib_ms)`; `None` before the first plan or for a piecewise one.
    pub last_surrogate: Option<(f64, f64)>,
}

impl StatsSnapshot {
    /// Requests actually sent: planned GETs plus hedges plus re-fetches.
    pub fn requests_sent(&self) -> u64 {
        self.totals.gets + self.totals.hedges + self.totals.refetches
    }
}

/// The store's running totals.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    calls: AtomicU64,
    gets: AtomicU64,
    bytes: AtomicU64,
    overfetch_bytes: AtomicU64,
    plan_us: AtomicU64,
    hedges: AtomicU64,
    hedges_won: AtomicU64,
    refetches: AtomicU64,
    stalls: AtomicU64,
    deadline_misses: AtomicU64,
    /// `f64::to_bits` of the last affine surrogate; `u64::MAX` for none.
    fixed_bits: AtomicU64,
    per_mib_bits: AtomicU64,
}

impl Stats {
    pub(crate) fn new() -> Self {
        Self {
            fixed_bits: AtomicU64::new(u64::MAX),
            per_mib_bits: AtomicU64::new(u64::MAX),
            ..Self::default()
        }
    }

    pub(crate) fn record(&self, c: &CallStats) {
        let r = Ordering::Relaxed;
        self.calls.fetch_add(1, r);
        self.gets.fetch_add(c.gets, r);
        self.bytes.fetch_add(c.bytes, r);
        self.overfetch_bytes.fetch_add(c.overfetch_bytes, r);
        self.plan_us.fetch_add(c.plan_us, r);
        self.hedges.fetch_add(c.hedges, r);
        self.hedges_won.fetch_add(c.hedges_won, r);
        self.refetches.fetch_add(c.refetches, r);
        self.stalls.fetch_add(c.stalls, r);
        self.deadline_misses.fetch_add(c.deadline_misses, r);
    }

    pub(crate) fn set_surrogate(&self, affine: Option<(f64, f64)>) {
        let (f, p) = affine.map_or((u64::MAX, u64::MAX), |(f, p)| (f.to_bits(), p.to_bits()));
        self.fixed_bits.store(f, Ordering::Relaxed);
        self.per_mib_bits.store(p, Ordering::Relaxed);
    }

    pub(crate) fn snapshot(&self) -> StatsSnapshot {
        let r = Ordering::Relaxed;
        let (f, p) = (self.fixed_bits.load(r), self.per_mib_bits.load(r));
        StatsSnapshot {
            calls: self.calls.load(r),
            totals: CallStats {
                gets: self.gets.load(r),
                bytes: self.bytes.load(r),
                overfetch_bytes: self.overfetch_bytes.load(r),
                plan_us: self.plan_us.load(r),
                hedges: self.hedges.load(r),
                hedges_won: self.hedges_won.load(r),
                refetches: self.refetches.load(r),
                stalls: self.stalls.load(r),
                deadline_misses: self.deadline_misses.load(r),
            },
            last_surrogate: (f != u64::MAX).then(|| (f64::from_bits(f), f64::from_bits(p))),
        }
    }
}
