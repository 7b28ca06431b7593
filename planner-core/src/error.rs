//! The one error type of the planner, and the ids of the fields it names.

use core::fmt;
use std::borrow::Cow;

/// A field of the ARCHITECTURE §5 instance that a [`PlanError`] can name by id
/// (the ids cross the WIT boundary as an enum, so every runtime rebuilds the
/// very same error without interning strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Field {
    /// `surrogate.affine.fixed_ms`.
    AffineFixedMs,
    /// `surrogate.affine.per_mib_ms`.
    AffinePerMibMs,
    /// `surrogate.piecewise[i].bytes`.
    BreakpointBytes,
    /// `surrogate.piecewise[i].ms`.
    BreakpointMs,
    /// `method.coalesce.max_gap`.
    CoalesceMaxGap,
    /// `method.coalesce.max_span`.
    CoalesceMaxSpan,
}

impl Field {
    /// Every field, in declaration order.
    pub const ALL: [Field; 6] = [
        Self::AffineFixedMs,
        Self::AffinePerMibMs,
        Self::BreakpointBytes,
        Self::BreakpointMs,
        Self::CoalesceMaxGap,
        Self::CoalesceMaxSpan,
    ];

    /// The field path; breakpoint fields take the breakpoint index.
    pub fn path(&self, index: Option<usize>) -> String {
        match (self, index) {
            (Self::BreakpointBytes, Some(i)) => format!("surrogate.piecewise[{i}].bytes"),
            (Self::BreakpointMs, Some(i)) => format!("surrogate.piecewise[{i}].ms"),
            _ => self.name().to_owned(),
        }
    }

    /// The path without an index (`surrogate.piecewise[].ms` for breakpoints).
    pub fn name(&self) -> &'static str {
        match self {
            Self::AffineFixedMs => "surrogate.affine.fixed_ms",
            Self::AffinePerMibMs => "surrogate.affine.per_mib_ms",
            Self::BreakpointBytes => "surrogate.piecewise[].bytes",
            Self::BreakpointMs => "surrogate.piecewise[].ms",
            Self::CoalesceMaxGap => "method.coalesce.max_gap",
            Self::CoalesceMaxSpan => "method.coalesce.max_span",
        }
    }
}

/// A bounded resource of the planner, named by [`PlanError::CapacityExceeded`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Resource {
    /// Intervals per call.
    Intervals,
    /// The effective request budget `min(K_max, n)` of the DP table.
    KMax,
    /// Request slots of a plan (a `lance_rule` plan may split ranges into many).
    Requests,
}

impl Resource {
    /// Every resource, in declaration order.
    pub const ALL: [Resource; 3] = [Self::Intervals, Self::KMax, Self::Requests];

    /// The name the error line starts with (`intervals`, `k_max`, `requests`).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Intervals => "intervals",
            Self::KMax => "k_max",
            Self::Requests => "requests",
        }
    }
}

/// Why a planning request was refused.
///
/// Every variant names the offending field of the ARCHITECTURE §5 instance, and its
/// [`Display`](fmt::Display) is the single line the `warp plan` CLI prints. No input
/// makes the planner panic: anything it cannot plan is one of these. The value
/// is owned data (field ids, numbers, strings), so every runtime — native, the
/// component through WIT, the browser — rebuilds the same value and line.
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
        /// Which number.
        field: Field,
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
        /// Which parameter.
        field: Field,
        /// What is wrong with it.
        reason: Cow<'static, str>,
    },
    /// The request exceeds a capacity the [`Planner`](crate::Planner) holds.
    CapacityExceeded {
        /// Which capacity.
        what: Resource,
        /// The size the request needs.
        requested: u64,
        /// The capacity.
        capacity: u64,
    },
    /// The workspace the method needs for this instance exceeds the planner's
    /// memory limit ([`Capacity::workspace_bytes_for`](crate::Capacity::workspace_bytes_for)).
    MemoryLimit {
        /// Workspace bytes needed.
        needed: u64,
        /// Of which the DP table (`4·n·min(K_max, n)`; 0 for methods without one).
        table: u64,
        /// The limit, bytes.
        limit: u64,
        /// Intervals of the instance.
        intervals: u64,
    },
    /// The caller's interrupt (a deadline) stopped the plan before it finished.
    Interrupted,
    /// [`Planner::evaluate`](crate::Planner::evaluate): the groups do not partition the
    /// intervals into contiguous runs in order.
    InvalidGroups {
        /// `groups`, `groups[i].first` or `groups[i].last`.
        field: String,
        /// What is wrong.
        message: String,
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
                index.saturating_sub(1)
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
                index,
                value,
            } => write!(
                f,
                "{}: must be finite and >= 0, got {value}",
                field.path(*index)
            ),
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
            Self::InvalidMethodParameter { field, reason } => {
                write!(f, "{}: {reason}", field.name())
            }
            Self::CapacityExceeded {
                what,
                requested,
                capacity,
            } => {
                write!(
                    f,
                    "{}: {requested} exceeds the planner capacity of {capacity}",
                    what.name()
                )
            }
            Self::MemoryLimit {
                needed,
                table,
                limit,
                intervals,
            } => {
                write!(
                    f,
                    "plan memory: {intervals} intervals need {needed} bytes of workspace, over the limit of {limit} bytes; "
                )?;
                if *table > 0 {
                    write!(
                        f,
                        "{table} of them are the DP table (4·n·min(k_max, n) bytes): lower k_max, plan with lagrangian or a baseline (no table), or raise the plan memory limit"
                    )
                } else {
                    write!(
                        f,
                        "plan fewer intervals per call or raise the plan memory limit"
                    )
                }
            }
            Self::Interrupted => write!(
                f,
                "plan: stopped at the deadline; plan fewer intervals or a smaller k_max, a faster method than exact or frontier (warp, lagrangian), or raise the plan deadline"
            ),
            Self::InvalidGroups { field, message } | Self::Json { field, message } => {
                write!(f, "{field}: {message}")
            }
        }
    }
}

impl std::error::Error for PlanError {}
