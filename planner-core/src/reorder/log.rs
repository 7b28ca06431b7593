//! The query log in CSR form: validation and per-query deduplication.

use super::ReorderError;

/// Query `q`'s probes: `probes[probe_offsets[q]..probe_offsets[q + 1]]` of a
/// log that passed [`validate`].
pub(crate) fn row<'a>(probes: &'a [u32], probe_offsets: &[u32], q: usize) -> &'a [u32] {
    &probes[probe_offsets[q] as usize..probe_offsets[q + 1] as usize]
}

/// The distinct layout positions of `row`'s clusters, ascending, into `out`
/// (cleared first); `position[id]` is cluster `id`'s place in the layout.
///
/// # Complexity
/// `O(k log k)` for `k = |row|`; no allocation once `out` holds `k`.
pub(crate) fn positions_into(row: &[u32], position: &[u32], out: &mut Vec<u32>) {
    out.clear();
    out.extend(row.iter().map(|&id| position[id as usize]));
    out.sort_unstable();
    out.dedup();
}

/// Checks the CSR query log against `clusters` and returns the number of
/// queries.
///
/// `probe_offsets = []` or `[0]` with empty `probes` means no log. Otherwise
/// `probe_offsets[0] = 0`, the offsets never decrease, the last equals
/// `probes.len()`, and every id is `< clusters`.
///
/// # Complexity
/// `O(Q + Σ_q |probes_q|)`; no allocation.
pub(crate) fn validate(
    probes: &[u32],
    probe_offsets: &[u32],
    clusters: usize,
) -> Result<usize, ReorderError> {
    if probe_offsets.is_empty() {
        if !probes.is_empty() {
            return Err(ReorderError::ProbeOffsets {
                index: 0,
                reason: "missing: probes is not empty, so probe_offsets needs queries + 1 entries",
            });
        }
        return Ok(0);
    }
    if probe_offsets[0] != 0 {
        return Err(ReorderError::ProbeOffsets {
            index: 0,
            reason: "must be 0",
        });
    }
    for (i, w) in probe_offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return Err(ReorderError::ProbeOffsets {
                index: i + 1,
                reason: "smaller than the previous offset (offsets must not decrease)",
            });
        }
    }
    let last = probe_offsets.len() - 1;
    if probe_offsets[last] as usize != probes.len() {
        return Err(ReorderError::ProbeOffsets {
            index: last,
            reason: "the last offset must equal probes.len()",
        });
    }
    for q in 0..last {
        if let Some(&id) = row(probes, probe_offsets, q)
            .iter()
            .find(|&&id| id as usize >= clusters)
        {
            return Err(ReorderError::ProbeOutOfRange {
                query: q,
                id,
                clusters,
            });
        }
    }
    Ok(last)
}

/// The validated log with each query's ids sorted and deduplicated
/// (a cluster listed twice by one query counts once).
pub(crate) struct DedupLog {
    /// `offsets[q]..offsets[q + 1]` indexes `ids`; `len = Q + 1`.
    pub(crate) offsets: Vec<usize>,
    /// Sorted, distinct ids per query.
    pub(crate) ids: Vec<u32>,
}

impl DedupLog {
    /// Builds the deduplicated log from a log that passed [`validate`].
    ///
    /// # Complexity
    /// `O(Σ_q |probes_q| log |probes_q|)`; `8(Q + 1) + 4·Σ_q |probes_q|` bytes.
    pub(crate) fn new(probes: &[u32], probe_offsets: &[u32]) -> Self {
        let queries = probe_offsets.len().saturating_sub(1);
        let mut offsets = Vec::with_capacity(queries + 1);
        let mut ids = Vec::with_capacity(probes.len());
        offsets.push(0);
        for q in 0..queries {
            let start = ids.len();
            ids.extend_from_slice(row(probes, probe_offsets, q));
            ids[start..].sort_unstable();
            let mut w = start;
            for r in start..ids.len() {
                if w == start || ids[r] != ids[w - 1] {
                    ids[w] = ids[r];
                    w += 1;
                }
            }
            ids.truncate(w);
            offsets.push(ids.len());
        }
        Self { offsets, ids }
    }

    /// The number of queries.
    pub(crate) fn queries(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Query `q`'s sorted distinct ids.
    pub(crate) fn query(&self, q: usize) -> &[u32] {
        &self.ids[self.offsets[q]..self.offsets[q + 1]]
    }
}
