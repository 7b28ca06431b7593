//! Requested ranges → planner intervals → answers in request order.
//!
//! `get_ranges` accepts any list of `Range<u64>`: unsorted, overlapping,
//! repeated, empty. The planner needs ARCHITECTURE §2 intervals: non-empty, sorted,
//! non-overlapping (touching allowed). [`normalize`] makes them by sorting the
//! non-empty ranges by start and merging those that overlap (`s_j < e_i`);
//! touching ranges stay separate intervals, so `separate` still means one GET
//! per requested range. Each requested range remembers the interval holding
//! it, each interval the ranges it holds, and [`slice_range`] cuts a range
//! back out of its interval's bytes: [`answer`] for all of them at the end of
//! a read, `PlannedStore::read_each` for one interval as its GETs land.
//!
//! # Complexity
//! `O(r log r)` for `r` requested ranges (the sort), `O(r)` memory.

use std::ops::Range;

use bytes::Bytes;
use planner_core::Interval;

use crate::error::PlannedError;

/// Sorted disjoint intervals covering the requested ranges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Normalized {
    /// Planner intervals, strictly sorted, non-overlapping, non-empty.
    pub intervals: Vec<Interval>,
    /// For each requested range, the interval holding it (`None` for an
    /// empty range, answered with empty bytes).
    pub owner: Vec<Option<usize>>,
    /// The non-empty requested ranges' indices grouped by the interval
    /// holding them, in interval order: interval `j` holds
    /// `held[held_start[j]..held_start[j + 1]]` ([`Normalized::held_by`]).
    /// A by-product of the sort (`O(1)` extra work per range).
    held: Vec<usize>,
    /// CSR offsets into `held`, one per interval plus the end.
    held_start: Vec<usize>,
}

impl Normalized {
    /// The indices of the requested ranges interval `j` holds (sorted by
    /// start). `O(1)`.
    pub(crate) fn held_by(&self, j: usize) -> &[usize] {
        &self.held[self.held_start[j]..self.held_start[j + 1]]
    }
}

/// Validates and normalizes `ranges` (see the module docs).
///
/// # Errors
/// [`PlannedError::InvalidRange`] for the first range with `start > end`.
pub(crate) fn normalize(ranges: &[Range<u64>]) -> Result<Normalized, PlannedError> {
    if let Some((index, r)) = ranges.iter().enumerate().find(|(_, r)| r.start > r.end) {
        return Err(PlannedError::InvalidRange {
            index,
            start: r.start,
            end: r.end,
        });
    }
    let mut order: Vec<usize> = (0..ranges.len())
        .filter(|&i| ranges[i].start < ranges[i].end)
        .collect();
    order.sort_unstable_by_key(|&i| (ranges[i].start, ranges[i].end));
    let mut owner = vec![None; ranges.len()];
    let mut bounds: Vec<(u64, u64)> = Vec::new();
    let mut held_start = vec![0];
    for (k, &i) in order.iter().enumerate() {
        let r = &ranges[i];
        match bounds.last_mut() {
            Some((_, end)) if r.start < *end => *end = (*end).max(r.end),
            _ => {
                if !bounds.is_empty() {
                    held_start.push(k);
                }
                bounds.push((r.start, r.end));
            }
        }
        owner[i] = Some(bounds.len() - 1);
    }
    if !bounds.is_empty() {
        held_start.push(order.len());
    }
    Ok(Normalized {
        intervals: bounds
            .into_iter()
            .map(|(s, e)| Interval::new(s, e - s))
            .collect(),
        owner,
        held: order,
        held_start,
    })
}

/// Range `range` cut out of `part`, the bytes of the interval starting at
/// `base` that holds it: `part[range.start − base .. min(range.end − base,
/// |part|)]`, zero-copy. `None` when the range starts at or past the end of
/// `part` (the object ended before it). `O(1)`.
pub(crate) fn slice_range(range: &Range<u64>, base: u64, part: &Bytes) -> Option<Bytes> {
    let got = part.len() as u64;
    let lo = range.start - base;
    if lo >= got {
        return None;
    }
    let hi = (range.end - base).min(got);
    Some(part.slice(lo as usize..hi as usize))
}

/// Slices each requested range out of its interval's bytes.
///
/// `parts[j]` holds interval `j`'s bytes from its start; it is shorter than
/// the interval when the object ends inside it (object_store semantics: a
/// range ending past the object end returns the bytes up to the end; one
/// starting at or past the end is an error, [`PlannedError::PastEnd`] with
/// `object_size`).
///
/// # Errors
/// [`PlannedError::PastEnd`] for the first range starting at or past the end
/// of the object.
pub(crate) fn answer(
    ranges: &[Range<u64>],
    norm: &Normalized,
    parts: &[Bytes],
    object_size: impl Fn() -> u64,
) -> Result<Vec<Bytes>, PlannedError> {
    ranges
        .iter()
        .zip(&norm.owner)
        .map(|(r, owner)| {
            let Some(j) = *owner else {
                return Ok(Bytes::new());
            };
            slice_range(r, norm.intervals[j].offset, &parts[j]).ok_or_else(|| {
                PlannedError::PastEnd {
                    start: r.start,
                    size: object_size(),
                }
            })
        })
        .collect()
}

#[cfg(test)]
// One-range lists are what `get_ranges` callers pass; not a mistaken `0..n`.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn sorts_merges_overlaps_keeps_touching_apart() {
        let n = normalize(&[10..20, 0..5, 15..30, 5..8, 3..3, 40..41]).unwrap();
        assert_eq!(
            n.intervals,
            vec![
                Interval::new(0, 5),
                Interval::new(5, 3),
                Interval::new(10, 20),
                Interval::new(40, 1)
            ]
        );
        assert_eq!(
            n.owner,
            vec![Some(2), Some(0), Some(2), Some(1), None, Some(3)]
        );
        // Each interval holds exactly the ranges `owner` assigns it, by start.
        let held: Vec<&[usize]> = (0..4).map(|j| n.held_by(j)).collect();
        assert_eq!(held, vec![&[1][..], &[3], &[0, 2], &[5]]);
        for j in 0..4 {
            for &i in n.held_by(j) {
                assert_eq!(n.owner[i], Some(j));
            }
        }
        let none = normalize(&[3..3]).unwrap();
        assert!(none.intervals.is_empty() && none.held.is_empty());
    }

    #[test]
    fn slices_a_range_and_stops_at_the_part_end() {
        let part = Bytes::from_static(b"abcdef"); // an interval at 100
        assert_eq!(slice_range(&(102..104), 100, &part).unwrap(), &b"cd"[..]);
        assert_eq!(slice_range(&(104..110), 100, &part).unwrap(), &b"ef"[..]);
        assert_eq!(slice_range(&(106..108), 100, &part), None);
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)] // the reversed range is the input under test
    fn refuses_start_after_end_naming_it() {
        let e = normalize(&[0..4, 9..3]).unwrap_err();
        assert!(matches!(
            e,
            PlannedError::InvalidRange {
                index: 1,
                start: 9,
                end: 3
            }
        ));
        assert!(e.to_string().contains("range 1 (9..3)"), "{e}");
    }

    #[test]
    fn answers_in_request_order_and_truncates_at_the_end() {
        let data = Bytes::from_static(b"0123456789");
        let ranges = [8..12, 2..4, 0..0, 1..3];
        let n = normalize(&ranges).unwrap();
        // Intervals: [1, 4) and [8, 12); the object ends at 10.
        let parts = vec![data.slice(1..4), data.slice(8..10)];
        let out = answer(&ranges, &n, &parts, || 10).unwrap();
        assert_eq!(out, vec![&b"89"[..], b"23", b"", b"12"]);
        let past = [12..14];
        let n = normalize(&past).unwrap();
        let e = answer(&past, &n, &[Bytes::new()], || 10).unwrap_err();
        assert!(e.to_string().contains("only 10 bytes"), "{e}");
    }
}
