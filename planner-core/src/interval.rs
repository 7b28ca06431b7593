//! Byte intervals and their validation.

use crate::PlanError;

/// A required byte range `[offset, offset + len)` of the payload object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Interval {
    /// First byte.
    pub offset: u64,
    /// Number of bytes, at least 1.
    pub len: u64,
}

impl Interval {
    /// Creates `[offset, offset + len)`.
    pub const fn new(offset: u64, len: u64) -> Self {
        Self { offset, len }
    }
}

/// Validates `intervals` (ARCHITECTURE §2: non-empty, strictly sorted, non-overlapping,
/// touching allowed, no `u64` overflow), handing each interval's `[start, end)`
/// bounds to `sink` in order.
///
/// # Complexity
/// `O(n)` time, no allocation.
///
/// # Errors
/// [`PlanError::EmptyInterval`], [`PlanError::OffsetOverflow`] or
/// [`PlanError::Overlapping`] for the first offending interval.
pub(crate) fn validate_with(
    intervals: &[Interval],
    mut sink: impl FnMut(usize, u64, u64),
) -> Result<(), PlanError> {
    let mut previous_end = 0u64;
    for (index, iv) in intervals.iter().enumerate() {
        if iv.len == 0 {
            return Err(PlanError::EmptyInterval { index });
        }
        let e = iv
            .offset
            .checked_add(iv.len)
            .ok_or(PlanError::OffsetOverflow { index })?;
        if index > 0 && iv.offset < previous_end {
            return Err(PlanError::Overlapping {
                index,
                offset: iv.offset,
                previous_end,
            });
        }
        sink(index, iv.offset, e);
        previous_end = e;
    }
    Ok(())
}

/// Validates `intervals` (see ARCHITECTURE §2): every interval non-empty, strictly
/// sorted, non-overlapping (touching allowed), `offset + len` within `u64`.
///
/// # Complexity
/// `O(n)` time, no allocation.
///
/// # Errors
/// [`PlanError::EmptyInterval`], [`PlanError::OffsetOverflow`] or
/// [`PlanError::Overlapping`] for the first offending interval.
pub fn validate(intervals: &[Interval]) -> Result<(), PlanError> {
    validate_with(intervals, |_, _, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_touching_and_rejects_overlap() {
        assert!(validate(&[Interval::new(0, 10), Interval::new(10, 5)]).is_ok());
        assert_eq!(
            validate(&[Interval::new(0, 10), Interval::new(9, 5)]),
            Err(PlanError::Overlapping {
                index: 1,
                offset: 9,
                previous_end: 10
            })
        );
        assert_eq!(
            validate(&[Interval::new(3, 0)]),
            Err(PlanError::EmptyInterval { index: 0 })
        );
        assert_eq!(
            validate(&[Interval::new(u64::MAX - 1, 2)]),
            Err(PlanError::OffsetOverflow { index: 0 })
        );
        assert!(validate(&[Interval::new(u64::MAX - 1, 1)]).is_ok());
    }
}
