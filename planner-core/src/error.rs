//! The one error type of the planner.

use core::fmt;

/// Why a planning request was refused.
///
/// Every variant names the offending field of the DESIGN §5 instance, and its
/// [`Display`](fmt::Display) is the single line the `warp plan` CLI prints. No input
/// makes the planner panic: anything it cannot plan is one of these.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PlanError {
    /// `intervals[index]` has `len == 0`.
    EmptyInterval {
        /// Position of the interval in the input.
        index: usize,
    },
    /// `intervals[index]` starts before the end of `intervals[index - 1]`
    /// (the input must be sorted and non-overlapping; touching is allowed).
    Overlapping {
        /// Position of the later interval.
        index: usize,
        /// Its offset.
        offset: u64,
        /// The end (exclusive) of the previous interval.
        previous_end: u64,
    },
    /// `offset + len` of `intervals[index]` does not fit in a `u64`.
    OffsetOverflow {
        /// Position of the interval.
        index: usize,
    },
    /// `k_max` is zero.
    ZeroKMax,
    /// `parallelism` is below 1 or not finite (use `null`/`None` for unbounded).
    InvalidParallelism {
        /// The value given.
        value: f64,
    },
    /// `epsilon` is negative or not finite.
    InvalidEpsilon {
        /// The value given.
        value: f64,
    },
    /// A surrogate number is negative or not finite.
    InvalidSurrogateValue {
        /// The field path, e.g. `surrogate.affine.fixed_ms` or `surrogate.piecewise[2].ms`.
        field: &'static str,
        /// Index of the breakpoint for piecewise surrogates.
        index: Option<usize>,
        /// The value given.
        value: f64,
    },
    /// A piecewise surrogate has no breakpoints.
    EmptySurrogate,
    /// Piecewise breakpoint `index` does not have strictly larger `bytes` than its predecessor.
    UnsortedSurrogate {
        /// Index of the breakpoint.
        index: usize,
    },
    /// Piecewise breakpoint `index` has smaller `ms` than its predecessor: the
    /// surrogate must be nondecreasing.
    DecreasingSurrogate {
        /// Index of the breakpoint.
        index: usize,
    },
    /// The surrogate evaluated at the instance's total span is not finite.
    SurrogateOverflow {
        /// The span, in bytes.
        span: u64,
    },
    /// A method parameter is out of range (e.g. `coalesce.max_span = 0`).
    InvalidMethodParameter {
        /// The field path, e.g. `method.coalesce.max_span`.
        field: &'static str,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The request exceeds a capacity the [`Planner`](crate::Planner) was built with.
    CapacityExceeded {
        /// Which capacity: `intervals`, `k_max` or `requests`.
        what: &'static str,
        /// The size the request needs.
        requested: usize,
        /// The capacity.
        capacity: usize,
    },
    /// The JSON instance is malformed; `field` is the path of the offending value.
    Json {
        /// The field path (`$` for the document itself).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EmptyInterval { index } => {
                write!(f, "intervals[{index}]: empty interval (len must be >= 1)")
            }
            Self::Overlapping {
                index,
                offset,
                previous_end,
            } => write!(
                f,
                "intervals[{index}]: offset {offset} is before the end {previous_end} of intervals[{}] (intervals must be sorted and non-overlapping)",
                index - 1
            ),
            Self::OffsetOverflow { index } => {
                write!(f, "intervals[{index}]: offset + len overflows u64")
            }
            Self::ZeroKMax => write!(f, "k_max: must be >= 1"),
            Self::InvalidParallelism { value } => {
                write!(
                    f,
                    "parallelism: must be a finite number >= 1 or null (unbounded), got {value}"
                )
            }
            Self::InvalidEpsilon { value } => {
                write!(f, "epsilon: must be a finite number >= 0, got {value}")
            }
            Self::InvalidSurrogateValue {
                field,
                index: Some(i),
                value,
            } => {
                write!(
                    f,
                    "surrogate.piecewise[{i}].{field}: must be finite and >= 0, got {value}"
                )
            }
            Self::InvalidSurrogateValue {
                field,
                index: None,
                value,
            } => {
                write!(f, "{field}: must be finite and >= 0, got {value}")
            }
            Self::EmptySurrogate => write!(f, "surrogate.piecewise: needs at least one breakpoint"),
            Self::UnsortedSurrogate { index } => {
                write!(
                    f,
                    "surrogate.piecewise[{index}].bytes: must be larger than the previous breakpoint's bytes"
                )
            }
            Self::DecreasingSurrogate { index } => write!(
                f,
                "surrogate.piecewise[{index}].ms: smaller than the previous breakpoint's ms (the surrogate must be nondecreasing)"
            ),
            Self::SurrogateOverflow { span } => {
                write!(
                    f,
                    "surrogate: request time for the total span of {span} bytes is not finite"
                )
            }
            Self::InvalidMethodParameter { field, reason } => write!(f, "{field}: {reason}"),
            Self::CapacityExceeded {
                what,
                requested,
                capacity,
            } => {
                write!(
                    f,
                    "{what}: {requested} exceeds the planner capacity of {capacity}"
                )
            }
            Self::Json { field, message } => write!(f, "{field}: {message}"),
        }
    }
}

impl std::error::Error for PlanError {}
