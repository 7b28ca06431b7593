//! The host's error type.
//!
//! One variant per kind of failure, each naming what is wrong; `Display` is
//! the one line the `warp` command prints.

use std::fmt;

use crate::formats::FormatError;

/// Why a host operation failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A vector file could not be read or written.
    Format(FormatError),
    /// An object-store operation failed.
    Store {
        /// The operation (`get`, `put`, `head`, …).
        op: &'static str,
        /// The object path inside the store.
        path: String,
        /// The store's error.
        source: object_store::Error,
    },
    /// The store URL is not usable.
    Url {
        /// The URL with any credentials removed.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// The planner refused a request.
    Plan(planner_core::PlanError),
    /// The planner component failed (trap, limit, instantiation).
    Planner {
        /// The component's message.
        reason: String,
    },
    /// The index on the store is missing, of another format, or inconsistent.
    Index {
        /// What is wrong, naming the field or object.
        reason: String,
    },
    /// Bytes read from the store do not match their recorded CRC32C.
    Checksum {
        /// The object.
        object: String,
        /// What was checked (e.g. `list 17`).
        what: String,
        /// The CRC32C in the manifest.
        expected: u32,
        /// The CRC32C of the bytes read.
        actual: u32,
    },
    /// A configuration value is invalid.
    Config {
        /// The setting (`io_slots`, `WARP_CACHE_BYTES`, `--nprobe`, …).
        key: String,
        /// The value given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// Input data (vectors, queries, parameters) are unusable.
    Input {
        /// What is wrong.
        reason: String,
    },
    /// Two planning policies returned different answers (planning must change
    /// I/O only).
    ResultMismatch {
        /// The reference policy.
        reference: String,
        /// The policy that differs.
        policy: String,
        /// The first query whose answer differs.
        query: usize,
    },
    /// A local file operation failed.
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// `Result` with the host [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Format(e) => write!(f, "{e}"),
            Error::Store { op, path, source } => write!(f, "store {op} {path}: {source}"),
            Error::Url { url, reason } => write!(f, "store URL {url}: {reason}"),
            Error::Plan(e) => write!(f, "planner: {e}"),
            Error::Planner { reason } => write!(f, "planner component: {reason}"),
            Error::Index { reason } => write!(f, "index: {reason}"),
            Error::Checksum {
                object,
                what,
                expected,
                actual,
            } => write!(
                f,
                "checksum mismatch in {object} ({what}): manifest says {expected:08x}, read {actual:08x}"
            ),
            Error::Config { key, value, reason } => write!(f, "{key} = {value:?}: {reason}"),
            Error::Input { reason } => write!(f, "{reason}"),
            Error::ResultMismatch {
                reference,
                policy,
                query,
            } => write!(
                f,
                "policy {policy} returned a different answer than {reference} for query {query}: planning must never change answers"
            ),
            Error::Io { path, source } => write!(f, "{path}: {source}"),
        }
    }
}

/// `Display` already includes the cause (the CLI prints one line), so no
/// `source` is reported: printing the chain would repeat it.
impl std::error::Error for Error {}

impl From<FormatError> for Error {
    fn from(e: FormatError) -> Self {
        Error::Format(e)
    }
}

impl From<planner_core::PlanError> for Error {
    fn from(e: planner_core::PlanError) -> Self {
        Error::Plan(e)
    }
}

impl Error {
    /// An [`Error::Input`] with `reason`.
    pub fn input(reason: impl Into<String>) -> Self {
        Error::Input {
            reason: reason.into(),
        }
    }

    /// An [`Error::Index`] with `reason`.
    pub fn index(reason: impl Into<String>) -> Self {
        Error::Index {
            reason: reason.into(),
        }
    }

    /// An [`Error::Config`].
    pub fn config(key: impl Into<String>, value: impl ToString, reason: impl Into<String>) -> Self {
        Error::Config {
            key: key.into(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}
