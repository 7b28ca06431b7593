//! Row scans of the basic `O(n²)`-per-layer program (any nondecreasing `t`).

use super::Score;
use super::layer::Layer;
use crate::interrupt::{ROWS_PER_POLL, Stop};

/// `cur[i] = min_j layer.value(i, j)` for every row in `first..=last`, scanning
/// each row's whole column range; leftmost argmin into `choice[i]`.
///
/// # Complexity
/// `O(n²)` cost evaluations per layer; polls `stop` every
/// [`ROWS_PER_POLL`] rows and returns early (rows left unset) once it fired.
pub(crate) fn solve_rows(
    layer: &Layer<'_>,
    first: usize,
    last: usize,
    cur: &mut [Score],
    choice: &mut [u32],
    stop: &mut Stop<'_>,
) {
    for i in first..=last {
        if (i - first) % ROWS_PER_POLL == ROWS_PER_POLL - 1 && stop.check() {
            return;
        }
        let (lo, hi) = layer.cols(i);
        let (best, arg) = layer.argmin(i, lo, hi);
        cur[i] = best;
        choice[i] = arg as u32;
    }
}
