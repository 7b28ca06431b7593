//! The bound on the bytes a store's calls hold at once
//! ([`PlannedStoreBuilder::with_fetch_budget`](crate::PlannedStoreBuilder::with_fetch_budget)).
//!
//! A planned read keeps its bodies until it has cut its intervals out of
//! them, so `Q` concurrent calls hold up to `Q` plans' bytes, gaps included:
//! 128 calls of a 30 MiB plan are 3.75 GiB of bodies, faulted into fresh
//! memory. The budget is a FIFO semaphore of KiB: a call takes its plan's
//! bytes (rounded up to KiB, at most the whole budget, so a plan larger than
//! the budget runs alone rather than never) before its first GET and gives
//! them back when it returns. One acquire per call, never a second while
//! holding the first, so calls cannot deadlock on it.

use tokio::sync::{Semaphore, SemaphorePermit};

/// Bytes per permit.
const UNIT: u64 = 1024;

/// The budget: a semaphore of its KiB.
#[derive(Debug)]
pub(crate) struct FetchBudget {
    units: Semaphore,
    total: u32,
}

impl FetchBudget {
    /// A budget of `bytes` (at least one KiB; at most `u32::MAX` KiB,
    /// 4 TiB). `O(1)`.
    pub(crate) fn new(bytes: u64) -> Self {
        let cap = u64::from(u32::MAX).min(Semaphore::MAX_PERMITS as u64);
        let total = (bytes / UNIT).clamp(1, cap) as u32;
        Self {
            units: Semaphore::new(total as usize),
            total,
        }
    }

    /// Waits until `bytes` (at most the whole budget) fit beside what the
    /// calls in progress hold; the permit gives them back when dropped.
    /// `None` only if the semaphore were closed, which it never is. FIFO:
    /// a large plan waiting is not overtaken by smaller ones. `O(1)`.
    pub(crate) async fn hold(&self, bytes: u64) -> Option<SemaphorePermit<'_>> {
        let units = bytes.div_ceil(UNIT).clamp(1, u64::from(self.total)) as u32;
        self.units.acquire_many(units).await.ok()
    }

    /// KiB free now (for tests and diagnostics). `O(1)`.
    #[cfg(test)]
    pub(crate) fn free_kib(&self) -> usize {
        self.units.available_permits()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_holds_its_bytes_until_it_returns_and_never_more_than_the_budget() {
        let b = FetchBudget::new(4 << 20);
        assert_eq!(b.free_kib(), 4096);
        let first = b.hold(3 << 20).await.unwrap();
        assert_eq!(b.free_kib(), 1024);
        // 1.5 MiB more does not fit beside the first call's 3 MiB.
        let second = b.hold(3 << 19);
        tokio::pin!(second);
        assert!(futures::poll!(&mut second).is_pending());
        drop(first);
        let second = second.await.unwrap();
        assert_eq!(b.free_kib(), 4096 - 1536);
        drop(second);
        // A plan larger than the whole budget takes all of it and runs.
        let huge = b.hold(1 << 40).await.unwrap();
        assert_eq!(b.free_kib(), 0);
        drop(huge);
        // An empty plan still takes a KiB: nothing is free of the bound.
        let tiny = b.hold(0).await.unwrap();
        assert_eq!(b.free_kib(), 4095);
        drop(tiny);
        assert_eq!(FetchBudget::new(0).total, 1);
    }
}
