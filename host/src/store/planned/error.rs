//! What a planned read can fail with, beyond the inner store's own errors.
//!
//! [`PlannedError`] is the precise, private-to-the-layer kind; it converts
//! into `object_store::Error` for the [`ObjectStore`](object_store::ObjectStore)
//! trait (the inner store's errors pass through unchanged, so `NotFound` stays
//! `NotFound`) and into the host [`Error`](crate::error::Error) for
//! [`PlannedStore::read`](super::PlannedStore::read).

use std::fmt;
use std::time::Duration;

/// The name this layer reports as `store` in `object_store::Error::Generic`.
pub const STORE_NAME: &str = "PlannedStore";

/// Why a planned read failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlannedError {
    /// A requested range has `start > end` (object_store's `Inconsistent`).
    InvalidRange {
        /// Position of the range in the request.
        index: usize,
        /// Its start.
        start: u64,
        /// Its end.
        end: u64,
    },
    /// A requested range starts at or after the end of the object.
    PastEnd {
        /// The requested start.
        start: u64,
        /// The object's size.
        size: u64,
    },
    /// The whole planned read did not finish within its deadline.
    DeadlineExceeded {
        /// The deadline the call was given, measured from its start.
        deadline: Duration,
        /// The object being read.
        path: String,
    },
    /// A response made no progress (no headers, or no body chunk) for the
    /// stall timeout, twice in a row (the first stall is retried once).
    Stalled {
        /// The stall timeout.
        timeout: Duration,
        /// The range being read.
        offset: u64,
        /// Its length.
        len: u64,
    },
    /// The store answered a different range or length than requested, twice
    /// in a row.
    WrongRange {
        /// The range requested.
        requested: std::ops::Range<u64>,
        /// What came back (range header, or the bytes actually received).
        got: std::ops::Range<u64>,
    },
    /// The planner refused or failed.
    Plan(crate::error::Error),
    /// The inner store failed; passed through unchanged.
    Store(object_store::Error),
}

impl fmt::Display for PlannedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlannedError::InvalidRange { index, start, end } => write!(
                f,
                "requested range {index} ({start}..{end}) has start > end"
            ),
            PlannedError::PastEnd { start, size } => write!(
                f,
                "wanted range starting at {start}, but object was only {size} bytes long"
            ),
            PlannedError::DeadlineExceeded { deadline, path } => write!(
                f,
                "deadline of {} ms exceeded reading {path}",
                deadline.as_millis()
            ),
            PlannedError::Stalled {
                timeout,
                offset,
                len,
            } => write!(
                f,
                "range {offset}+{len} made no progress for {} ms (stall timeout), twice",
                timeout.as_millis()
            ),
            PlannedError::WrongRange { requested, got } => write!(
                f,
                "asked for bytes {}..{}, the store answered {}..{} (twice)",
                requested.start, requested.end, got.start, got.end
            ),
            PlannedError::Plan(e) => write!(f, "{e}"),
            PlannedError::Store(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for PlannedError {}

impl PlannedError {
    /// Whether this is a deadline miss.
    pub fn is_deadline(&self) -> bool {
        matches!(self, PlannedError::DeadlineExceeded { .. })
    }

    /// Whether one more attempt of the same GET may succeed (stall, wrong
    /// range or length); other errors are final here (the inner store
    /// already retries transport errors).
    pub(crate) fn is_retryable(&self) -> bool {
        matches!(
            self,
            PlannedError::Stalled { .. } | PlannedError::WrongRange { .. }
        )
    }
}

impl From<PlannedError> for object_store::Error {
    fn from(e: PlannedError) -> Self {
        match e {
            PlannedError::Store(inner) => inner,
            other => object_store::Error::Generic {
                store: STORE_NAME,
                source: Box::new(other),
            },
        }
    }
}

/// Finds a [`PlannedError::DeadlineExceeded`] inside a host error (as built
/// by `From<PlannedError> for Error`); `None` for any other error.
pub fn deadline_exceeded(e: &crate::error::Error) -> Option<Duration> {
    match e {
        crate::error::Error::Store {
            source: object_store::Error::Generic { source, .. },
            ..
        } => match source.downcast_ref::<PlannedError>() {
            Some(PlannedError::DeadlineExceeded { deadline, .. }) => Some(*deadline),
            _ => None,
        },
        _ => None,
    }
}

/// Converts for the host: planner errors stay planner errors, everything
/// else becomes [`Error::Store`](crate::error::Error::Store) with operation
/// `get_ranges` (a deadline miss reads `store get_ranges <path>: Generic
/// PlannedStore error: deadline of 250 ms exceeded reading <path>`; test for
/// it with [`deadline_exceeded`]).
pub(crate) fn into_host(e: PlannedError, path: &str) -> crate::error::Error {
    match e {
        PlannedError::Plan(p) => p,
        other => crate::error::Error::Store {
            op: "get_ranges",
            path: path.to_string(),
            source: other.into(),
        },
    }
}
