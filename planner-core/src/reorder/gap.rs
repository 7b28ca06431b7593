//! The weighted co-access gap of a layout (paper §5.2).

use super::{ReorderError, log};

/// Checks that `order` is a permutation of `0..clusters` and returns its
/// inverse, `position[id]`.
///
/// # Complexity
/// `O(C)` time, `4C` bytes.
pub(crate) fn inverse(order: &[u32], clusters: usize) -> Result<Vec<u32>, ReorderError> {
    if order.len() != clusters {
        return Err(ReorderError::OrderLength {
            len: order.len(),
            clusters,
        });
    }
    let mut position = vec![u32::MAX; clusters];
    for (p, &id) in order.iter().enumerate() {
        match position.get_mut(id as usize) {
            Some(slot) if *slot == u32::MAX => *slot = p as u32,
            _ => return Err(ReorderError::NotPermutation { index: p, id }),
        }
    }
    Ok(position)
}

/// Byte offset of each position of the layout: `start[p] = Σ_{p' < p} sizes[order[p']]`,
/// with one extra entry, the total.
///
/// # Errors
/// [`ReorderError::SizesOverflow`] when the total does not fit in a `u64`.
pub(crate) fn starts(order: &[u32], sizes: &[u64]) -> Result<Vec<u64>, ReorderError> {
    let mut start = Vec::with_capacity(order.len() + 1);
    let mut at = 0u64;
    start.push(0);
    for &id in order {
        at = at
            .checked_add(sizes[id as usize])
            .ok_or(ReorderError::SizesOverflow)?;
        start.push(at);
    }
    Ok(start)
}

/// The weighted co-access gap of a layout:
///
/// ```text
/// G(order) = Σ_{a<b} count(a, b) · bytes_between(a, b)
/// ```
///
/// where `count(a, b)` is the number of queries probing both `a` and `b` and
/// `bytes_between` the bytes strictly between their payloads when payloads are
/// laid out contiguously in `order` (paper §5.2; lower is better, 0 when every
/// query's clusters are adjacent).
///
/// # Math
/// Per query, with its distinct clusters at sorted positions `p_1 < … < p_k`,
/// payload starts `s` and ends `e = s + size`,
/// `Σ_{i<j} (s_{p_j} − e_{p_i}) = Σ_j (j − 1)·s_{p_j} − Σ_i (k − i)·e_{p_i}`,
/// so no pair is materialized. Sums are exact in `u128`; the result is their
/// one rounding to `f64`.
///
/// # Arguments
/// * `order` — `order[position] = cluster id`, a permutation of `0..C`.
/// * `sizes` — payload bytes of each cluster (`len C`).
/// * `probes`, `probe_offsets` — the query log in CSR form: query `q` probes
///   `probes[probe_offsets[q]..probe_offsets[q + 1]]`; `[]` or `[0]` is no
///   log. A cluster listed twice by one query counts once.
///
/// # Returns
/// `G` in bytes × co-access count.
///
/// # Complexity
/// `O(C + Σ_q |probes_q| log |probes_q|)` time; `12C + 8 + 4·max_q |probes_q|`
/// bytes.
///
/// # Errors
/// [`ReorderError::OrderLength`], [`ReorderError::NotPermutation`],
/// [`ReorderError::SizesOverflow`], [`ReorderError::ProbeOffsets`] or
/// [`ReorderError::ProbeOutOfRange`].
///
/// # Examples
/// ```
/// use planner_core::reorder::coaccess_gap;
///
/// // Three 10-byte clusters; one query probes clusters 0 and 2.
/// let sizes = [10, 10, 10];
/// let (probes, offsets) = ([0, 2], [0, 2]);
/// // Layout 0,1,2 leaves cluster 1 (10 bytes) between them; 0,2,1 leaves none.
/// assert_eq!(coaccess_gap(&[0, 1, 2], &sizes, &probes, &offsets).unwrap(), 10.0);
/// assert_eq!(coaccess_gap(&[0, 2, 1], &sizes, &probes, &offsets).unwrap(), 0.0);
/// ```
pub fn coaccess_gap(
    order: &[u32],
    sizes: &[u64],
    probes: &[u32],
    probe_offsets: &[u32],
) -> Result<f64, ReorderError> {
    let clusters = sizes.len();
    let position = inverse(order, clusters)?;
    let start = starts(order, sizes)?;
    let queries = log::validate(probes, probe_offsets, clusters)?;
    let mut pos: Vec<u32> = Vec::new();
    let (mut plus, mut minus) = (0u128, 0u128);
    for q in 0..queries {
        log::positions_into(log::row(probes, probe_offsets, q), &position, &mut pos);
        let k = pos.len() as u128;
        for (i, &p) in pos.iter().enumerate() {
            let i = i as u128;
            plus += i * u128::from(start[p as usize]);
            minus += (k - 1 - i) * u128::from(start[p as usize + 1]);
        }
    }
    // Every pair contributes s_{p_j} − e_{p_i} ≥ 0, so plus ≥ minus.
    Ok((plus - minus) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, pair by pair.
    fn brute(order: &[u32], sizes: &[u64], probes: &[u32], offsets: &[u32]) -> u128 {
        let pos = inverse(order, sizes.len()).unwrap();
        let start = starts(order, sizes).unwrap();
        let mut g = 0u128;
        for q in 0..offsets.len().saturating_sub(1) {
            let mut row: Vec<u32> = probes[offsets[q] as usize..offsets[q + 1] as usize].to_vec();
            row.sort_unstable();
            row.dedup();
            for (i, &a) in row.iter().enumerate() {
                for &b in &row[i + 1..] {
                    let (pa, pb) = (pos[a as usize] as usize, pos[b as usize] as usize);
                    let (lo, hi) = (pa.min(pb), pa.max(pb));
                    g += u128::from(start[hi] - start[lo + 1]);
                }
            }
        }
        g
    }

    #[test]
    fn matches_the_pairwise_definition() {
        let mut rng = super::super::SplitMix64::new(3);
        for case in 0..200 {
            let c = 1 + rng.below(12) as usize;
            let sizes: Vec<u64> = (0..c).map(|_| rng.below(1000)).collect();
            let order = super::super::random::shuffle(c, case);
            let mut probes = Vec::new();
            let mut offsets = vec![0u32];
            for _ in 0..rng.below(6) {
                for _ in 0..rng.below(6) {
                    probes.push(rng.below(c as u64) as u32);
                }
                offsets.push(probes.len() as u32);
            }
            let got = coaccess_gap(&order, &sizes, &probes, &offsets).unwrap();
            assert_eq!(got, brute(&order, &sizes, &probes, &offsets) as f64);
        }
    }
}
