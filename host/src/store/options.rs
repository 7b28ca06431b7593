//! The limits of the HTTP client of `s3://` stores.

use std::time::Duration;

/// Limits of the HTTP client of remote (`s3://`) stores. Local and memory
/// stores ignore them.
///
/// Worst case before an error, per request: a server that refuses
/// connections fails after `max_retries` quick attempts (backoff 100 ms,
/// doubling); one that accepts and never answers fails after about
/// `retry_timeout + read_timeout` (no attempt starts after `retry_timeout`,
/// each attempt stalls at most `read_timeout`). With the defaults: under a
/// second, and about 15 s (object_store's own defaults: 181.6 s measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// Time allowed to open a TCP (and TLS) connection. Default 5 s.
    pub connect_timeout: Duration,
    /// Longest wait for the next bytes of a response (a stalled server).
    /// Default 5 s.
    pub read_timeout: Duration,
    /// Whole request, from connecting to the last body byte. Default 60 s
    /// (a payload PUT of a large build must fit).
    pub request_timeout: Duration,
    /// Retries of a failed request (5xx, connection errors, timeouts of
    /// reads). Default 3.
    pub max_retries: usize,
    /// No retry starts later than this after the first attempt. Default 10 s.
    pub retry_timeout: Duration,
    /// Use the EC2 instance metadata service for credentials when no
    /// `AWS_*` credential variable is set. Default `false`; also turned on
    /// by `WARP_S3_INSTANCE_METADATA=true`.
    pub instance_metadata: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(60),
            max_retries: 3,
            retry_timeout: Duration::from_secs(10),
            instance_metadata: false,
        }
    }
}
