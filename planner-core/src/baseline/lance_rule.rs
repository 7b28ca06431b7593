//! A model of Lance's cloud I/O scheduler rule (the rule as documented, not Lance itself).

use super::{LANCE_BLOCK_SIZE, LANCE_MAX_IOP_SIZE, coalesce};
use crate::plan::Request;
use crate::spans::Spans;
use crate::{Capacity, PlanError, Resource};

/// Merge neighbours whose gap is at most 64 KiB (Lance's `is_close_together`
/// with its cloud block size), then split every merged range longer than
/// 16 MiB into `⌈L / 16 MiB⌉` near-equal pieces (the first `L mod p` pieces one
/// byte longer). Each piece lists the intervals it intersects.
///
/// # Complexity
/// `O(n + pieces)`, no allocation.
///
/// # Errors
/// [`PlanError::CapacityExceeded`] when there are more than `2n + 16` pieces
/// ([`Capacity::max_requests`]).
pub(crate) fn plan(sp: &Spans<'_>, out: &mut [Request]) -> Result<usize, PlanError> {
    let groups = coalesce::plan(sp, LANCE_BLOCK_SIZE, None, out);
    let pieces: u64 = out[..groups]
        .iter()
        .map(|r| r.len.div_ceil(LANCE_MAX_IOP_SIZE))
        .sum();
    // The instance's own slot count, not `out.len()` (which depends on what
    // the planner was sized for), so every runtime refuses alike.
    let slots = Capacity::new(sp.n(), 0).max_requests();
    if pieces > slots as u64 {
        return Err(PlanError::CapacityExceeded {
            what: Resource::Requests,
            requested: pieces,
            capacity: slots as u64,
        });
    }
    let total = pieces as usize;
    // Expand in place from the back so unread groups are never overwritten.
    let mut w = total;
    for g in (0..groups).rev() {
        let r = out[g];
        let p = r.len.div_ceil(LANCE_MAX_IOP_SIZE);
        let (base, rem) = (r.len / p, r.len % p);
        let mut piece_end = r.offset + r.len;
        let mut last = r.last as usize;
        for q in (0..p).rev() {
            let size = base + u64::from(q < rem);
            let piece_start = piece_end - size;
            while sp.start[last] >= piece_end {
                last -= 1;
            }
            let mut first = last;
            while first > r.first as usize && sp.end[first - 1] > piece_start {
                first -= 1;
            }
            w -= 1;
            out[w] = Request {
                first: first as u32,
                last: last as u32,
                offset: piece_start,
                len: size,
            };
            piece_end = piece_start;
        }
    }
    Ok(total)
}
