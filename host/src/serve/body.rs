//! Request bodies read into memory, each at most `max_body_bytes` and all of
//! them together at most `max_buffered_body_bytes` (ARCHITECTURE §10).
//!
//! Without the global bound, the bytes buffered at once were bounded only by
//! `max_connections × max_body_bytes` (4 GiB at the defaults). The budget is
//! a [`tokio::sync::Semaphore`] of bytes: a body takes its `Content-Length`
//! at once before a byte of it is read (or, without one, each piece as it
//! arrives), and what it took comes back when its [`BufferedBody`] is
//! dropped, whatever ended the request (answered, refused, timed out, cut
//! off). A body that does not fit in what is left is refused at once with
//! `503` (and `Retry-After`): other bodies hold the memory, not this one.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, header};
use bytes::BytesMut;
use futures::StreamExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::api::ApiError;

/// Default bound on request-body bytes buffered at once over all
/// connections (`--max-buffered-body-bytes`): 256 MiB.
pub const DEFAULT_MAX_BUFFERED_BODY_BYTES: usize = 256 << 20;

/// The bound on request-body bytes buffered at once over all connections:
/// one semaphore of bytes, shared by every request. Cloning shares it.
#[derive(Debug, Clone)]
pub struct BodyBudget {
    permits: Arc<Semaphore>,
    total: usize,
}

impl BodyBudget {
    /// A budget of `total` bytes (clamped to `1..=Semaphore::MAX_PERMITS`).
    pub fn new(total: usize) -> Self {
        let total = total.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            permits: Arc::new(Semaphore::new(total)),
            total,
        }
    }

    /// The bound, bytes.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Bytes not taken by a body now.
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }

    /// Bytes held by bodies now: `total − available`.
    pub fn held(&self) -> usize {
        self.total.saturating_sub(self.available())
    }

    /// Takes `n` more bytes into `held` when that many are left (all or
    /// nothing: a part taken is given back on failure). `O(n / 2³²)`
    /// semaphore calls (one per 4 GiB: a single call takes at most
    /// `u32::MAX` permits).
    fn take(&self, held: &mut Option<OwnedSemaphorePermit>, mut n: usize) -> bool {
        let mut got: Option<OwnedSemaphorePermit> = None;
        while n > 0 {
            let step = u32::try_from(n).unwrap_or(u32::MAX);
            match Arc::clone(&self.permits).try_acquire_many_owned(step) {
                Ok(p) => match &mut got {
                    Some(g) => g.merge(p),
                    None => got = Some(p),
                },
                Err(_) => return false,
            }
            n -= step as usize;
        }
        if let Some(p) = got {
            match held {
                Some(h) => h.merge(p),
                None => *held = Some(p),
            }
        }
        true
    }

    /// The one-line `503` for a body of `n` bytes that does not fit.
    fn refusal(&self, n: usize, declared: bool) -> ApiError {
        let what = if declared {
            format!("the request body of {n} bytes (Content-Length)")
        } else {
            format!("the request body, {n} bytes so far,")
        };
        ApiError::status(
            503,
            format!(
                "busy: {what} does not fit in what is left ({} bytes) of the bound of {} bytes on request bodies buffered at once (--max-buffered-body-bytes)",
                self.available(),
                self.total
            ),
        )
    }
}

/// A request body read into memory; it holds its bytes of the
/// [`BodyBudget`] until it is dropped.
#[derive(Debug)]
pub struct BufferedBody {
    bytes: Bytes,
    _held: Option<OwnedSemaphorePermit>,
}

impl BufferedBody {
    /// The body.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// The request body, at most `limit` bytes, read within `timeout`, taking
/// its bytes from `budget`. A body whose `Content-Length` is above `limit`
/// is refused at once, unread (`413`); one whose `Content-Length` (or, sent
/// without one, whose bytes so far) is more than `budget` has left is
/// refused at once (`503`).
///
/// # Errors
/// [`ApiError`]: `413` over `limit`, `400` when the body cannot be read
/// to its end (the client closed the connection before the bytes it
/// declared, or sent a malformed chunk), `503` over the budget, `408` past
/// `timeout`.
pub async fn read_body(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    budget: &BodyBudget,
    timeout: Duration,
) -> Result<BufferedBody, ApiError> {
    // hyper has refused a Content-Length that is not one number.
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(n) = declared.filter(|&n| n > limit as u64) {
        return Err(ApiError::status(
            413,
            format!(
                "the request body of {n} bytes (Content-Length) is larger than the limit of {limit} bytes"
            ),
        ));
    }
    // At most `limit` (checked above): it fits a usize.
    let declared = declared.map(|n| n as usize);
    let mut held = None;
    if let Some(n) = declared
        && !budget.take(&mut held, n)
    {
        return Err(budget.refusal(n, true));
    }
    let too_large = || {
        ApiError::status(
            413,
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    };
    let read = async {
        let mut buf = BytesMut::with_capacity(declared.unwrap_or(0));
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::status(
                    400,
                    format!(
                        "the request body could not be read to its end after {} bytes: {e}",
                        buf.len()
                    ),
                )
            })?;
            let len = buf.len() + chunk.len();
            if len > limit {
                return Err(too_large());
            }
            let taken = held.as_ref().map_or(0, OwnedSemaphorePermit::num_permits);
            if len > taken && !budget.take(&mut held, len - taken) {
                return Err(budget.refusal(len, false));
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(buf.freeze())
    };
    match tokio::time::timeout(timeout, read).await {
        Err(_) => Err(ApiError::status(
            408,
            format!(
                "the request body was not received within {} ms",
                timeout.as_millis()
            ),
        )),
        Ok(Err(e)) => Err(e),
        Ok(Ok(bytes)) => Ok(BufferedBody { bytes, _held: held }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declaring(n: usize) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_LENGTH, n.into());
        h
    }

    async fn read(
        budget: &BodyBudget,
        headers: HeaderMap,
        body: Body,
    ) -> Result<BufferedBody, ApiError> {
        read_body(&headers, body, 100, budget, Duration::from_secs(10)).await
    }

    #[tokio::test]
    async fn bodies_share_the_budget_and_give_it_back_when_dropped() {
        let budget = BodyBudget::new(10);
        let a = read(&budget, declaring(6), Body::from("abcdef"))
            .await
            .unwrap();
        assert_eq!(a.bytes(), b"abcdef");
        assert_eq!(budget.available(), 4);
        // Declared: refused before a byte is read.
        let e = read(&budget, declaring(5), Body::from("12345"))
            .await
            .unwrap_err();
        assert_eq!(e.status, 503);
        assert!(
            e.message.contains("of 5 bytes (Content-Length)")
                && e.message.contains("(4 bytes)")
                && e.message.contains("bound of 10 bytes")
                && e.message.contains("--max-buffered-body-bytes"),
            "{}",
            e.message
        );
        assert_eq!(budget.available(), 4, "a refusal takes nothing");
        // Streamed without a Content-Length: refused once its bytes pass it.
        let pieces = futures::stream::iter(["12", "345"].map(Ok::<_, std::io::Error>));
        let e = read(&budget, HeaderMap::new(), Body::from_stream(pieces))
            .await
            .unwrap_err();
        assert_eq!(e.status, 503);
        assert!(e.message.contains("5 bytes so far"), "{}", e.message);
        assert_eq!(budget.available(), 4, "the part taken is given back");
        let pieces = futures::stream::iter(["12", "34"].map(Ok::<_, std::io::Error>));
        let b = read(&budget, HeaderMap::new(), Body::from_stream(pieces))
            .await
            .unwrap();
        assert_eq!((b.bytes(), budget.available()), (&b"1234"[..], 0));
        drop(a);
        drop(b);
        assert_eq!(budget.available(), 10);
        // The per-request limit still comes first (413).
        let e = read(&budget, declaring(101), Body::empty())
            .await
            .unwrap_err();
        assert_eq!(e.status, 413);
        // Streamed past the limit: 413 too.
        let pieces =
            futures::stream::iter(["x".repeat(60), "y".repeat(60)].map(Ok::<_, std::io::Error>));
        let e = read(
            &BodyBudget::new(1000),
            HeaderMap::new(),
            Body::from_stream(pieces),
        )
        .await
        .unwrap_err();
        assert_eq!(e.status, 413);
    }

    #[tokio::test]
    async fn a_body_cut_off_is_a_bad_request_naming_the_cause() {
        let budget = BodyBudget::new(100);
        let pieces = futures::stream::iter([
            Ok(bytes::Bytes::from_static(b"{\"vec")),
            Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "connection closed before the message completed",
            )),
        ]);
        let e = read(&budget, declaring(50), Body::from_stream(pieces))
            .await
            .unwrap_err();
        assert_eq!(e.status, 400);
        assert!(
            e.message.contains("after 5 bytes")
                && e.message
                    .contains("connection closed before the message completed"),
            "{}",
            e.message
        );
        assert_eq!(budget.available(), 100, "what it held is given back");
    }
}
