//! What a planned read can fail with, beyond the inner store's own errors.
//!
//! [`PlannedError`] is the layer's own kind: [`PlannedStore::read`](crate::PlannedStore::read)
//! and [`PlannedStoreBuilder::build`](crate::PlannedStoreBuilder::build)
//! return it, and it converts into `object_store::Error` for the
//! [`ObjectStore`](object_store::ObjectStore) trait (the inner store's errors
//! pass through unchanged, so `NotFound` stays `NotFound`). Its `Display` is
//! its own message; the cause, if any, is its
//! [`source`](std::error::Error::source).

use std::fmt;
use std::time::Duration;

use crate::backend::BackendError;

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
    /// stall timeout on the re-fetch of a GET whose first attempt stalled
    /// or answered a wrong range.
    Stalled {
        /// The stall timeout.
        timeout: Duration,
        /// The range being read.
        offset: u64,
        /// Its length.
        len: u64,
    },
    /// The store answered a different range or length than requested on the
    /// re-fetch of a GET whose first attempt failed (a stall, a wrong range).
    WrongRange {
        /// The range requested.
        requested: std::ops::Range<u64>,
        /// What came back (range header, or the bytes actually received).
        got: std::ops::Range<u64>,
    },
    /// The inner store's own client refused the answer to a range GET as
    /// not the range asked for (object_store's own range checks: a `Content-Range`
    /// naming another range, none, or a whole-object `200`), on the re-fetch
    /// of a GET whose first attempt failed (a stall, a wrong range).
    RangeRefused {
        /// The range requested.
        requested: std::ops::Range<u64>,
        /// The inner store's error, as it came.
        source: object_store::Error,
    },
    /// The planner refused the request or failed.
    Plan(BackendError),
    /// A [`PlannedStoreBuilder`](crate::PlannedStoreBuilder) setting or a
    /// [`PlanOptions`](crate::PlanOptions) field is invalid.
    Config {
        /// The setting (`io_slots`, `k_max`, `epsilon`, …).
        field: &'static str,
        /// The value given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
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
                "range {offset}+{len} made no progress for {} ms (stall timeout), after one re-fetch",
                timeout.as_millis()
            ),
            PlannedError::WrongRange { requested, got } => write!(
                f,
                "asked for bytes {}..{}, the store answered {}..{} (after one re-fetch)",
                requested.start, requested.end, got.start, got.end
            ),
            PlannedError::RangeRefused { requested, .. } => write!(
                f,
                "asked for bytes {}..{}, the answer was not that range (after one re-fetch)",
                requested.start, requested.end
            ),
            PlannedError::Plan(_) => f.write_str("planning the read failed"),
            PlannedError::Config {
                field,
                value,
                reason,
            } => write!(f, "invalid {field} = {value}: {reason}"),
            PlannedError::Store(_) => f.write_str("the inner store failed"),
        }
    }
}

impl std::error::Error for PlannedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlannedError::RangeRefused { source, .. } | PlannedError::Store(source) => Some(source),
            PlannedError::Plan(e) => Some(e),
            _ => None,
        }
    }
}

impl PlannedError {
    /// Whether this is a deadline miss.
    pub fn is_deadline(&self) -> bool {
        matches!(self, PlannedError::DeadlineExceeded { .. })
    }

    /// Whether one more attempt of the same GET may succeed (stall, wrong
    /// range or length, whether found by this layer or by the inner store's
    /// client); other errors are final here (the inner store already retries
    /// transport errors).
    pub(crate) fn is_retryable(&self) -> bool {
        matches!(
            self,
            PlannedError::Stalled { .. }
                | PlannedError::WrongRange { .. }
                | PlannedError::RangeRefused { .. }
        )
    }

    /// The inner store's error `e` for a GET of `requested`:
    /// [`PlannedError::RangeRefused`] when [`is_range_mismatch`] says it is
    /// the store's client refusing a wrong range, else
    /// [`PlannedError::Store`] unchanged.
    pub(crate) fn from_get(e: object_store::Error, requested: &std::ops::Range<u64>) -> Self {
        if is_range_mismatch(&e) {
            PlannedError::RangeRefused {
                requested: requested.clone(),
                source: e,
            }
        } else {
            PlannedError::Store(e)
        }
    }
}

/// The messages object_store 0.14's HTTP stores (S3, GCS, Azure, HTTP) give
/// a range GET whose answer is not the range asked for
/// (`client/get.rs`, `GetResultError`, a private type: it reaches callers
/// only as the `source` of an `Error::Generic`, so its text is what can be
/// matched). Each is raised before the body is read — or, on a body resumed
/// after a broken connection, mid-stream — and before this layer's own
/// range and length check, which it therefore stands in for:
///
/// | object_store's error  | the response                                       |
/// |-----------------------|----------------------------------------------------|
/// | `UnexpectedRange`     | `Content-Range` names a range other than requested |
/// | `NoContentRange`      | `206` without `Content-Range`                      |
/// | `ParseContentRange`   | a `Content-Range` that is not `bytes a-b/size`     |
/// | `InvalidContentRange` | a `Content-Range` that is not UTF-8                |
/// | `NotPartial`          | a `200` (the whole object) to a range request      |
///
/// `host/tests/planned_store.rs` pins each against a real HTTP exchange, so
/// an object_store upgrade that rewords one fails there.
const RANGE_MISMATCH_PREFIXES: [&str; 5] = [
    "Requested ",
    "Content-Range header not present in partial response",
    "Failed to parse value for CONTENT_RANGE header",
    "Content-Range header contained non UTF-8 characters",
    "Received non-partial response when range requested",
];

/// Whether `e` is the inner store's client refusing an answer as not the
/// range requested (one of [`RANGE_MISMATCH_PREFIXES`]): a one-off on a store
/// or proxy that answered one GET wrongly, worth one re-fetch like this
/// layer's own [`PlannedError::WrongRange`]. `UnexpectedRange` is told by
/// its whole shape, `Requested <a>..<b>, got <c>..<d>`.
///
/// # Complexity
/// `O(|message|)`.
pub(crate) fn is_range_mismatch(e: &object_store::Error) -> bool {
    let object_store::Error::Generic { source, .. } = e else {
        return false;
    };
    let text = source.to_string();
    match text.strip_prefix("Requested ") {
        Some(rest) => rest
            .split_once(", got ")
            .is_some_and(|(want, got)| is_range_text(want) && is_range_text(got)),
        None => RANGE_MISMATCH_PREFIXES[1..]
            .iter()
            .any(|p| text.starts_with(p)),
    }
}

/// `a..b` with decimal `a` and `b` (a `Range<u64>`'s `Debug`).
fn is_range_text(s: &str) -> bool {
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    s.split_once("..")
        .is_some_and(|(a, b)| digits(a) && digits(b))
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

/// An error and its `source()` chain as one line of text: each cause is
/// appended (`": cause"`) unless the text already contains it (object_store's
/// own `Display` already prints its source; reqwest's leaves the decisive
/// cause, `Connection refused`, to the chain). At most 8 causes.
///
/// # Complexity
/// `O(d · m)` for `d ≤ 8` causes and total message length `m`.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    for _ in 0..8 {
        let Some(cause) = cur else { break };
        let own = cause.to_string();
        if !own.is_empty() && !out.contains(&own) {
            out.push_str(": ");
            out.push_str(&own);
        }
        cur = cause.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generic(store: &'static str, message: &str) -> object_store::Error {
        object_store::Error::Generic {
            store,
            source: message.to_string().into(),
        }
    }

    #[test]
    fn the_clients_range_refusals_are_mismatches_and_nothing_else_is() {
        for m in [
            "Requested 56100..161040, got 56101..161041",
            "Content-Range header not present in partial response",
            "Failed to parse value for CONTENT_RANGE header: \"bytes x\"",
            "Content-Range header contained non UTF-8 characters",
            "Received non-partial response when range requested",
        ] {
            assert!(is_range_mismatch(&generic("S3", m)), "{m}");
        }
        for m in [
            "Requested bucket does not exist",
            "Requested 1..2",
            "Error performing GET http://x/y in 1ms - Server returned non-2xx status code: 503",
            "injected failure",
        ] {
            assert!(!is_range_mismatch(&generic("S3", m)), "{m}");
        }
        let not_found = object_store::Error::NotFound {
            path: "x".into(),
            source: "Requested 1..2, got 3..4".into(),
        };
        assert!(!is_range_mismatch(&not_found), "only Generic errors");
    }

    #[test]
    fn a_refused_range_is_retryable_and_names_the_range() {
        let e = PlannedError::from_get(generic("S3", "Requested 0..10, got 1..11"), &(0..10));
        assert!(e.is_retryable());
        assert_eq!(
            error_chain(&e),
            "asked for bytes 0..10, the answer was not that range (after one re-fetch): Generic S3 error: Requested 0..10, got 1..11"
        );
        assert_eq!(
            e.to_string(),
            "asked for bytes 0..10, the answer was not that range (after one re-fetch)"
        );
        let other = PlannedError::from_get(generic("S3", "injected failure"), &(0..10));
        assert!(matches!(other, PlannedError::Store(_)) && !other.is_retryable());
    }
}
