//! How a call into the component fails: the planner's own refusal, a
//! reordering refusal, a trap (with the limit it hit), or a load failure.

use std::fmt;

use planner_core::PlanError;

/// What a call into the component was doing, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Planning (or evaluating a plan for) this many intervals.
    Plan {
        /// Intervals of the instance.
        intervals: usize,
    },
    /// Reordering (or measuring a layout of) this many clusters.
    Reorder {
        /// Clusters of the input.
        clusters: usize,
    },
}

impl fmt::Display for Work {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plan { intervals } => write!(f, "planning {intervals} intervals"),
            Self::Reorder { clusters } => write!(f, "reordering {clusters} clusters"),
        }
    }
}

/// What stopped a trapped call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapCause {
    /// The guest asked to grow its memory to `requested` bytes, beyond the
    /// call's limit of `limit` bytes.
    MemoryLimit {
        /// Memory size the guest asked for, bytes.
        requested: usize,
        /// The call's limit, bytes.
        limit: usize,
    },
    /// The call ran past its deadline.
    Deadline {
        /// The call's deadline, milliseconds.
        ms: u64,
    },
    /// Any other trap (a guest bug).
    Other,
}

/// Why a call into the component failed.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ComponentError {
    /// The planner refused the instance (or the deadline stopped it:
    /// [`PlanError::Interrupted`]): the same error, with the same one-line
    /// display, as the native planner.
    Plan(PlanError),
    /// [`PlannerComponent::reorder`](super::PlannerComponent::reorder) or
    /// [`PlannerComponent::coaccess_gap`](super::PlannerComponent::coaccess_gap)
    /// refused its input.
    Reorder {
        /// The offending input field.
        field: String,
        /// The one-line display of `planner_core::reorder::ReorderError`.
        message: String,
    },
    /// The call trapped (resource limit or guest bug); the instance was replaced.
    Trap {
        /// The limit hit, if any.
        cause: TrapCause,
        /// What the call was doing.
        work: Work,
        /// Wasmtime's description.
        detail: String,
    },
    /// The component could not be compiled or instantiated.
    Load {
        /// What failed.
        detail: String,
    },
}

impl fmt::Display for ComponentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Plan(e) => e.fmt(f),
            Self::Reorder { message, .. } => f.write_str(message),
            Self::Trap {
                cause: TrapCause::MemoryLimit { requested, limit },
                work,
                ..
            } => write!(
                f,
                "planner component: guest memory limit of {limit} bytes exceeded (asked for {requested} bytes) {work}"
            ),
            Self::Trap {
                cause: TrapCause::Deadline { ms },
                work,
                ..
            } => write!(
                f,
                "planner component: execution deadline of {ms} ms exceeded {work}"
            ),
            Self::Trap { detail, .. } => write!(f, "planner component trapped: {detail}"),
            Self::Load { detail } => write!(f, "planner component failed to load: {detail}"),
        }
    }
}

impl std::error::Error for ComponentError {}

impl From<PlanError> for ComponentError {
    fn from(e: PlanError) -> Self {
        Self::Plan(e)
    }
}
