//! A one-object S3 endpoint on 127.0.0.1 that answers range GETs rightly or,
//! as queued, wrongly — so that object_store's own HTTP client (the S3
//! store), not a wrapper, meets the wrong answer and raises its own error.
//!
//! Blocking `std::net`, a thread per connection (keep-alive), an ephemeral
//! port; a connection quiet for 5 s is closed, and every thread stops within
//! 200 ms of the server being dropped, a failing test included.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{ClientOptions, RetryConfig};

/// How one range GET is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// `206` with the range asked for.
    Right,
    /// `206` naming (and sending) the range one byte further on.
    Shifted,
    /// `206` with the right bytes and no `Content-Range`.
    NoContentRange,
    /// `200` with the whole object.
    Whole,
}

/// The bucket and the one object's key.
pub(crate) const BUCKET: &str = "bucket";
pub(crate) const KEY: &str = "obj";

/// The server; answers [`Answer::Right`] unless something is queued.
pub(crate) struct RangeServer {
    port: u16,
    queue: Arc<Mutex<VecDeque<Answer>>>,
    gets: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl RangeServer {
    /// Serves `body` as `/bucket/obj`.
    pub(crate) fn start(body: Vec<u8>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let queue = Arc::new(Mutex::new(VecDeque::new()));
        let gets = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (q, g, s) = (Arc::clone(&queue), Arc::clone(&gets), Arc::clone(&stop));
        let body = Arc::new(body);
        let thread = std::thread::spawn(move || {
            let mut conns = Vec::new();
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let (b, q, g, s) = (
                            Arc::clone(&body),
                            Arc::clone(&q),
                            Arc::clone(&g),
                            Arc::clone(&s),
                        );
                        conns.push(std::thread::spawn(move || serve(conn, &b, &q, &g, &s)));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
            for c in conns {
                let _ = c.join();
            }
        });
        Self {
            port,
            queue,
            gets,
            stop,
            thread: Some(thread),
        }
    }

    /// Answers the next GETs with `answers`, in order.
    pub(crate) fn queue(&self, answers: &[Answer]) {
        self.queue.lock().unwrap().extend(answers);
    }

    /// GETs answered so far.
    pub(crate) fn gets(&self) -> u64 {
        self.gets.load(Ordering::SeqCst)
    }

    /// object_store's S3 store on this server: path-style, plain HTTP,
    /// unsigned, no retries (a wrong answer is a success status to its
    /// retry layer anyway).
    pub(crate) fn s3(&self) -> AmazonS3 {
        AmazonS3Builder::new()
            .with_endpoint(format!("http://127.0.0.1:{}", self.port))
            .with_bucket_name(BUCKET)
            .with_region("us-east-1")
            .with_skip_signature(true)
            .with_client_options(ClientOptions::new().with_allow_http(true))
            .with_retry(RetryConfig {
                max_retries: 0,
                ..RetryConfig::default()
            })
            .build()
            .expect("S3 store on the range server")
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serves one connection's requests until it closes, goes quiet or the
/// server stops.
fn serve(
    mut conn: TcpStream,
    body: &[u8],
    queue: &Mutex<VecDeque<Answer>>,
    gets: &AtomicU64,
    stop: &AtomicBool,
) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(200)));
    let _ = conn.set_write_timeout(Some(Duration::from_secs(5)));
    let mut buf = Vec::new();
    let mut idle = 0;
    while !stop.load(Ordering::SeqCst) && idle < 25 {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            let mut chunk = [0u8; 4096];
            match conn.read(&mut chunk) {
                Ok(0) => return,
                Ok(n) => {
                    buf.extend_from_slice(&chunk[..n]);
                    idle = 0;
                }
                Err(_) => idle += 1,
            }
            if buf.len() > 64 << 10 {
                return;
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let range = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            if !k.trim().eq_ignore_ascii_case("range") {
                return None;
            }
            let (a, b) = v.trim().strip_prefix("bytes=")?.split_once('-')?;
            Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?))
        });
        gets.fetch_add(1, Ordering::SeqCst);
        let answer = queue.lock().unwrap().pop_front().unwrap_or(Answer::Right);
        if conn.write_all(&response(body, range, answer)).is_err() {
            return;
        }
    }
}

/// The bytes of one response to a GET of `range` (inclusive ends, as the
/// `Range` header has them; `None`: the whole object).
fn response(body: &[u8], range: Option<(u64, u64)>, answer: Answer) -> Vec<u8> {
    let size = body.len() as u64;
    let common = "ETag: \"e1\"\r\nLast-Modified: Wed, 21 Oct 2015 07:28:00 GMT\r\n";
    let (status, content_range, bytes) = match (range, answer) {
        (None, _) | (Some(_), Answer::Whole) => ("200 OK", None, body),
        (Some((a, b)), Answer::Shifted) => {
            let (a, b) = (a + 1, (b + 1).min(size - 1));
            (
                "206 Partial Content",
                Some((a, b)),
                &body[a as usize..=b as usize],
            )
        }
        (Some((a, b)), Answer::Right | Answer::NoContentRange) => {
            let b = b.min(size - 1);
            let cr = (answer == Answer::Right).then_some((a, b));
            ("206 Partial Content", cr, &body[a as usize..=b as usize])
        }
    };
    let mut head = format!(
        "HTTP/1.1 {status}\r\n{common}Content-Length: {}\r\n",
        bytes.len()
    );
    if let Some((a, b)) = content_range {
        head.push_str(&format!("Content-Range: bytes {a}-{b}/{size}\r\n"));
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(bytes);
    out
}
