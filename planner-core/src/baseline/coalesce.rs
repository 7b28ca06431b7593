//! Fixed-threshold gap coalescing.

use crate::plan::Request;
use crate::spans::Spans;

/// Left-to-right merge: interval `i + 1` joins the current group when the gap
/// `start_{i+1} − end_i ≤ max_gap` and, with `max_span`, the grown span stays
/// `≤ max_span` (a lone interval longer than `max_span` is still one request).
/// `max_gap = 1 MiB`, no span cap, is `object_store`'s `get_ranges` rule.
///
/// # Complexity
/// `O(n)`, no allocation. Returns the number of requests.
pub(crate) fn plan(
    sp: &Spans<'_>,
    max_gap: u64,
    max_span: Option<u64>,
    out: &mut [Request],
) -> usize {
    let n = sp.n();
    let mut len = 0;
    let mut first = 0;
    for i in 0..n {
        let last_of_group = i + 1 == n
            || sp.start[i + 1] - sp.end[i] > max_gap
            || max_span.is_some_and(|m| sp.span(first, i + 1) > m);
        if last_of_group {
            out[len] = Request {
                first: first as u32,
                last: i as u32,
                offset: sp.start[first],
                len: sp.span(first, i),
            };
            len += 1;
            first = i + 1;
        }
    }
    len
}
