//! One request per interval.

use crate::plan::Request;
use crate::spans::Spans;

/// The plan `{(0), (1), …, (n − 1)}`: what a reader without coalescing issues.
///
/// # Complexity
/// `O(n)`, no allocation. Returns `n`.
pub(crate) fn plan(sp: &Spans<'_>, out: &mut [Request]) -> usize {
    for (i, r) in out.iter_mut().enumerate().take(sp.n()) {
        *r = Request {
            first: i as u32,
            last: i as u32,
            offset: sp.start[i],
            len: sp.len(i),
        };
    }
    sp.n()
}
