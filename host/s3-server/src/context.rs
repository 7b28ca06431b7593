//! What the S3 handlers tell the HTTP layer about one request: the fault
//! injected and whether the connection is to be reset.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::time::Instant;

use crate::faults::Fault;

/// Shared between the HTTP layer (which records the request and owns the
/// socket) and the S3 handler (which draws the fault); reaches the handler
/// through the request's extensions.
#[derive(Debug)]
pub struct RequestContext {
    /// When the HTTP layer had the request's headers: the instant the
    /// latency model counts a GET's first byte from, so that the server's
    /// own work on it (SigV4 verification, parsing, the storage lookup)
    /// is inside the modelled first byte, as a real store's is, and not
    /// added to it by a busy machine.
    arrived: Instant,
    /// Set: the connection closes with a TCP RST.
    conn_reset: Arc<AtomicBool>,
    /// Set: no response is sent at all.
    no_response: AtomicBool,
    fault: Mutex<Option<Fault>>,
    /// For a `flip`: the object offset of the byte changed.
    flipped: Mutex<Option<u64>>,
}

impl RequestContext {
    /// A context for a request on the connection whose reset flag is
    /// `conn_reset`.
    pub fn new(conn_reset: Arc<AtomicBool>) -> Self {
        Self {
            arrived: Instant::now(),
            conn_reset,
            no_response: AtomicBool::new(false),
            fault: Mutex::new(None),
            flipped: Mutex::new(None),
        }
    }

    /// When the request's headers were read (see the field).
    pub fn arrived(&self) -> Instant {
        self.arrived
    }

    /// Records the fault injected.
    pub fn set_fault(&self, fault: Option<Fault>) {
        *self.fault.lock().unwrap_or_else(|e| e.into_inner()) = fault;
    }

    /// The fault injected, if any.
    pub fn fault(&self) -> Option<Fault> {
        *self.fault.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the object offset of the byte a `flip` changed.
    pub fn set_flipped(&self, offset: u64) {
        *self.flipped.lock().unwrap_or_else(|e| e.into_inner()) = Some(offset);
    }

    /// The object offset of the flipped byte, for a `flip`.
    pub fn flipped(&self) -> Option<u64> {
        *self.flipped.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connection will end with a TCP RST (after what was sent).
    pub fn reset_connection(&self) {
        self.conn_reset.store(true, Ordering::Relaxed);
    }

    /// Sends no response: the connection is reset instead.
    pub fn drop_response(&self) {
        self.reset_connection();
        self.no_response.store(true, Ordering::Relaxed);
    }

    /// Whether the response is to be dropped.
    pub fn response_dropped(&self) -> bool {
        self.no_response.load(Ordering::Relaxed)
    }
}
