//! A closed-loop HTTP load generator for `warp serve` (`warp load`).
//!
//! # Protocol
//! `Q` keep-alive HTTP/1.1 connections, each sending its next
//! `POST /v1/search` the moment the previous answer arrived, so `Q` queries
//! are in flight at all times: the closed loop of `warp bench --concurrency
//! Q` and of the peer harness, over HTTP. Queries are taken in order from a
//! shared counter, query `i` being row `(offset + i) mod n` of the query
//! file. A warm-up phase of `W` queries ends at a barrier every connection
//! reaches; the measured phase of `N` queries starts there, on the same
//! connections, and ends with its last answer:
//!
//! ```text
//! QPS = N_ok / (t_last answer − t_barrier)
//! ```
//!
//! A query's latency is from the request handed to the connection to the
//! last byte of its answer, kept in an HDR histogram of microseconds with
//! three significant digits (memory independent of `N`). Recall@10 is
//! counted as `warp bench` counts it: of the first ten ground-truth ids, the
//! share among the answer's first ten.
//!
//! # Why its own client
//! A load generator on the server's machine takes CPU from the server; on
//! the 2-core VM 32 Python client threads (`http.client`, a JSON parse of
//! every answer) held a large share of a core, so `warp serve`'s warm QPS
//! measured the client as much as the server. Here every request body is
//! serialised once before the clock starts, the connections run on one
//! thread (a current-thread tokio runtime and hyper's HTTP/1.1 client),
//! only the answer's ids are parsed, and the process's CPU time over the
//! measured phase is reported (`client_cpu_s`, `client_cores`), so a
//! reader can tell a server-bound figure from a client-bound one.
//!
//! # Bounds
//! At most [`MAX_CONCURRENCY`] connections and [`MAX_QUERIES`] queries a
//! phase; every request within its timeout; an answer body of at most
//! [`MAX_ANSWER_BYTES`]; a failed request (transport error, timeout, or any
//! status but 200) is counted by status, and once the failures exceed
//! `max_error_rate` of the run's requests the connections stop taking work
//! and the run fails with the first failure's message. A connection whose
//! request failed is replaced before its next one. Time `O(W + N)` requests;
//! memory `O(Q + n)` besides the histogram, never `O(N)`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full, Limited};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use tokio::sync::Barrier;
use tokio::time::Instant;

use crate::error::{Error, Result, bound};

/// Most connections (`--concurrency`).
pub const MAX_CONCURRENCY: usize = 4096;
/// Most queries in one phase (`--warmup`, `--count`).
pub const MAX_QUERIES: u64 = 10_000_000;
/// Largest answer body read, bytes; a longer one fails its request.
pub const MAX_ANSWER_BYTES: usize = 16 << 20;
/// The largest latency the histogram resolves, µs (one hour).
const MAX_LATENCY_US: u64 = 3_600_000_000;
/// Characters of a failed answer's body kept in its message.
const ERROR_ECHO: usize = 200;

/// Where the load goes: an `http://host:port[/path]` endpoint (path
/// `/v1/search` when none is given) and the bearer token, if any. `Debug`
/// never shows the token.
#[derive(Clone)]
pub struct LoadTarget {
    /// `host:port`, as connected to and sent in `Host`.
    authority: String,
    /// The request path.
    path: String,
    /// The `Authorization` header's value (`Bearer …`).
    authorization: Option<HeaderValue>,
}

impl std::fmt::Debug for LoadTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadTarget")
            .field("authority", &self.authority)
            .field("path", &self.path)
            .field("authorization", &self.authorization.as_ref().map(|_| "***"))
            .finish()
    }
}

impl LoadTarget {
    /// The endpoint `url` (`http://host:port` or `http://host:port/path`;
    /// no user, query or fragment), sending `token` as `Authorization:
    /// Bearer <token>` when given.
    ///
    /// # Errors
    /// [`Error::Config`] on `--url` naming what is wrong: not `http`, no host, no port,
    /// credentials, a query or fragment (TLS is not spoken: a load generator
    /// measures a server next to it). [`Error::Config`] on `--auth-token-file`
    /// when the token is not a valid header value (never echoed).
    pub fn parse(url: &str, token: Option<&[u8]>) -> Result<Self> {
        let refuse = |reason: &str| Error::config("--url", bound(url, 100), reason);
        let parsed = url::Url::parse(url).map_err(|e| refuse(&format!("not a URL: {e}")))?;
        if parsed.scheme() != "http" {
            return Err(refuse("the load generator speaks plain http:// only"));
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refuse(
                "credentials do not belong in the URL (use --auth-token-file)",
            ));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(refuse("a query string or fragment is not allowed"));
        }
        let host = parsed
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| refuse("no host"))?;
        let port = parsed
            .port_or_known_default()
            .ok_or_else(|| refuse("no port"))?;
        let path = match parsed.path() {
            "" | "/" => "/v1/search".to_string(),
            p => p.to_string(),
        };
        let authorization = token
            .map(|t| {
                let mut v = b"Bearer ".to_vec();
                v.extend_from_slice(t);
                HeaderValue::from_bytes(&v)
                    .map(|mut h| {
                        h.set_sensitive(true);
                        h
                    })
                    .map_err(|_| {
                        Error::config(
                            "--auth-token-file",
                            "(token)",
                            "not a valid HTTP header value",
                        )
                    })
            })
            .transpose()?;
        Ok(Self {
            authority: format!("{host}:{port}"),
            path,
            authorization,
        })
    }

    /// `http://host:port/path`, without the token.
    pub fn display(&self) -> String {
        format!("http://{}{}", self.authority, self.path)
    }
}

/// The shape of a run.
#[derive(Debug, Clone)]
pub struct LoadSpec {
    /// Connections, each with one query in flight (`Q`), 1..=[`MAX_CONCURRENCY`].
    pub concurrency: usize,
    /// Warm-up queries, not measured.
    pub warmup: u64,
    /// Measured queries.
    pub queries: u64,
    /// Row of the query file the warm-up starts at.
    pub offset: usize,
    /// Longest a request may take, connecting included.
    pub timeout: Duration,
    /// Failed requests allowed, as a share of the run's (warm-up and
    /// measured), `0 ≤ r ≤ 1`.
    pub max_error_rate: f64,
}

impl LoadSpec {
    /// Checks the bounds before any work.
    ///
    /// # Errors
    /// [`Error::Config`] naming the flag out of range.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_CONCURRENCY).contains(&self.concurrency) {
            return Err(Error::config(
                "--concurrency",
                self.concurrency,
                format!("must be 1..={MAX_CONCURRENCY}"),
            ));
        }
        for (flag, n) in [("--warmup", self.warmup), ("--count", self.queries)] {
            if n > MAX_QUERIES {
                return Err(Error::config(flag, n, format!("at most {MAX_QUERIES}")));
            }
        }
        if self.queries == 0 {
            return Err(Error::config("--count", 0, "at least one measured query"));
        }
        if self.timeout.is_zero() {
            return Err(Error::config("--timeout-ms", 0, "must be positive"));
        }
        if !(0.0..=1.0).contains(&self.max_error_rate) {
            return Err(Error::config(
                "--max-error-rate",
                self.max_error_rate,
                "must be within 0..=1",
            ));
        }
        Ok(())
    }
}

/// The request bodies of a run: one `{"vector": […], …}` document per
/// query row, serialised once (`fields` adds `k`, `nprobe`, `deadline_ms`,
/// …). `f32` values print as their shortest round-trip decimal, so the
/// server parses back exactly the stored query. `O(n · d)`.
///
/// # Errors
/// [`Error::Input`] when `dim` is 0 or does not divide the values, or when
/// a value is not finite.
pub fn request_bodies(
    queries: &[f32],
    dim: usize,
    fields: &serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<Bytes>> {
    if dim == 0 || queries.is_empty() || !queries.len().is_multiple_of(dim) {
        return Err(Error::Input {
            reason: format!(
                "the query file holds {} values, not a positive multiple of its dimension {dim}",
                queries.len()
            ),
        });
    }
    if let Some(i) = queries.iter().position(|x| !x.is_finite()) {
        return Err(Error::Input {
            reason: format!(
                "query {} holds a non-finite value at coordinate {}",
                i / dim,
                i % dim
            ),
        });
    }
    #[derive(Serialize)]
    struct Body<'a> {
        vector: &'a [f32],
        #[serde(flatten)]
        fields: &'a serde_json::Map<String, serde_json::Value>,
    }
    Ok(queries
        .chunks_exact(dim)
        .map(|vector| {
            Bytes::from(
                serde_json::to_vec(&Body { vector, fields })
                    .expect("finite f32 values and a JSON map always serialise"),
            )
        })
        .collect())
}

/// Ground truth for recall@10: row `i` of `ids` (`width` ids a row) for
/// query row `i`.
#[derive(Debug, Clone)]
pub struct Truth {
    /// Row-major ids.
    pub ids: Vec<i32>,
    /// Ids a row.
    pub width: usize,
}

/// What a run measured.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// The endpoint (no token).
    pub url: String,
    /// Connections.
    pub concurrency: usize,
    /// Warm-up queries sent.
    pub warmup: u64,
    /// Measured queries answered with 200.
    pub queries: u64,
    /// Measured queries that failed.
    pub failed: u64,
    /// Every request's outcome, warm-up included: the HTTP status, or
    /// `timeout` / `transport`.
    pub statuses: BTreeMap<String, u64>,
    /// Wall time of the measured phase, s.
    pub elapsed_s: f64,
    /// Measured queries answered a second.
    pub qps: f64,
    /// Latency percentiles of the answered measured queries, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
    /// Recall@10 of the answered measured queries, with ground truth.
    pub recall_at_10: Option<f64>,
    /// The load generator's own CPU time over the measured phase, s.
    pub client_cpu_s: Option<f64>,
    /// `client_cpu_s / elapsed_s`: cores the client held.
    pub client_cores: Option<f64>,
    /// The first failure's message, if any request failed.
    pub first_error: Option<String>,
}

/// One connection's tally.
struct Tally {
    latency_us: Histogram<u64>,
    ok: u64,
    failed: u64,
    statuses: BTreeMap<String, u64>,
    recall_hits: u64,
    recall_total: u64,
    first_error: Option<String>,
}

impl Tally {
    fn new() -> Self {
        Self {
            latency_us: Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                .expect("constant histogram bounds are valid"),
            ok: 0,
            failed: 0,
            statuses: BTreeMap::new(),
            recall_hits: 0,
            recall_total: 0,
            first_error: None,
        }
    }

    fn merge(&mut self, other: Tally) {
        self.latency_us
            .add(&other.latency_us)
            .expect("histograms of equal bounds merge");
        self.ok += other.ok;
        self.failed += other.failed;
        for (k, v) in other.statuses {
            *self.statuses.entry(k).or_default() += v;
        }
        self.recall_hits += other.recall_hits;
        self.recall_total += other.recall_total;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// The part of an answer the load generator reads.
#[derive(Deserialize)]
struct Answer {
    neighbors: Vec<AnswerId>,
}

#[derive(Deserialize)]
struct AnswerId {
    id: u64,
}

/// State every connection shares.
struct Shared {
    target: LoadTarget,
    spec: LoadSpec,
    bodies: Arc<[Bytes]>,
    truth: Option<Truth>,
    warm_next: AtomicU64,
    next: AtomicU64,
    failed: AtomicU64,
    stop: AtomicBool,
    /// Failures allowed before the run stops.
    allowed: u64,
}

/// Runs the warm-up and the measured phase against `target` on a
/// current-thread runtime of its own (see the module docs), and returns the
/// measured figures.
///
/// # Errors
/// [`Error::TooManyFailures`] when more requests failed than
/// `spec.max_error_rate` allows (no connection could be made counts every
/// request failed); [`Error::Io`] when the runtime cannot start.
pub fn run(
    target: &LoadTarget,
    spec: &LoadSpec,
    bodies: Arc<[Bytes]>,
    truth: Option<Truth>,
) -> Result<LoadReport> {
    spec.validate()?;
    if bodies.is_empty() {
        return Err(Error::Input {
            reason: "no queries to send".into(),
        });
    }
    let rt = crate::search::current_thread_runtime()?;
    let total = spec.warmup + spec.queries;
    let shared = Arc::new(Shared {
        target: target.clone(),
        spec: spec.clone(),
        bodies,
        truth,
        warm_next: AtomicU64::new(0),
        next: AtomicU64::new(0),
        failed: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        allowed: (spec.max_error_rate * total as f64).floor() as u64,
    });
    let (tally, elapsed_s, cpu_s) = rt.block_on(async {
        let barrier = Arc::new(Barrier::new(spec.concurrency + 1));
        let workers: Vec<_> = (0..spec.concurrency)
            .map(|_| tokio::spawn(connection(shared.clone(), barrier.clone())))
            .collect();
        barrier.wait().await;
        let t0 = Instant::now();
        let cpu0 = warp_planned_store::cpu::process_cpu_ms();
        let mut tally = Tally::new();
        for w in workers {
            match w.await {
                Ok(t) => tally.merge(t),
                Err(e) => {
                    tally.failed += 1;
                    tally
                        .first_error
                        .get_or_insert_with(|| format!("a connection task failed: {e}"));
                }
            }
        }
        let elapsed_s = t0.elapsed().as_secs_f64();
        let cpu_s = cpu0
            .zip(warp_planned_store::cpu::process_cpu_ms())
            .map(|(a, b)| (b - a).max(0.0) / 1000.0);
        (tally, elapsed_s, cpu_s)
    });
    let failed_all = shared.failed.load(Ordering::Relaxed);
    if failed_all > shared.allowed {
        return Err(Error::TooManyFailures {
            run: format!("warp load {}", target.display()),
            failed: failed_all as usize,
            queries: total as usize,
            max_rate: spec.max_error_rate,
            first: tally.first_error.unwrap_or_default(),
        });
    }
    let pct = |p: f64| {
        if tally.ok == 0 {
            0.0
        } else {
            tally.latency_us.value_at_quantile(p) as f64 / 1000.0
        }
    };
    Ok(LoadReport {
        url: target.display(),
        concurrency: spec.concurrency,
        warmup: spec.warmup,
        queries: tally.ok,
        failed: tally.failed,
        statuses: tally.statuses.clone(),
        elapsed_s,
        qps: tally.ok as f64 / elapsed_s.max(1e-9),
        p50_ms: pct(0.50),
        p95_ms: pct(0.95),
        p99_ms: pct(0.99),
        max_ms: pct(1.0),
        recall_at_10: (tally.recall_total > 0)
            .then(|| tally.recall_hits as f64 / tally.recall_total as f64),
        client_cpu_s: cpu_s,
        client_cores: cpu_s.map(|c| c / elapsed_s.max(1e-9)),
        first_error: tally.first_error,
    })
}

/// One connection: the warm-up queries it takes, the barrier, the measured
/// ones. It always reaches the barrier, whatever failed before.
async fn connection(shared: Arc<Shared>, barrier: Arc<Barrier>) -> Tally {
    let mut warm = Tally::new();
    let mut sender = None;
    while let Some(i) = take(&shared, &shared.warm_next, shared.spec.warmup) {
        exchange(&shared, &mut sender, i, &mut warm).await;
    }
    barrier.wait().await;
    let mut tally = Tally::new();
    while let Some(i) = take(&shared, &shared.next, shared.spec.queries) {
        exchange(&shared, &mut sender, shared.spec.warmup + i, &mut tally).await;
    }
    // The warm-up's outcomes count in the statuses and the failures, not in
    // the measured figures.
    for (k, v) in warm.statuses {
        *tally.statuses.entry(k).or_default() += v;
    }
    if tally.first_error.is_none() {
        tally.first_error = warm.first_error;
    }
    tally
}

/// The next query number of a phase of `limit`, or `None` when the phase is
/// done or the run was stopped.
fn take(shared: &Shared, counter: &AtomicU64, limit: u64) -> Option<u64> {
    if shared.stop.load(Ordering::Relaxed) {
        return None;
    }
    let i = counter.fetch_add(1, Ordering::Relaxed);
    (i < limit).then_some(i)
}

/// Sends query `i` (of the run, warm-up first) on `sender`, connecting
/// first when there is none, and records its outcome in `tally`.
async fn exchange(
    shared: &Shared,
    sender: &mut Option<SendRequest<Full<Bytes>>>,
    i: u64,
    tally: &mut Tally,
) {
    let n = shared.bodies.len();
    // Both reduced first: no overflow whatever `--offset` says.
    let row = (shared.spec.offset % n + (i % n as u64) as usize) % n;
    let t0 = Instant::now();
    let outcome = tokio::time::timeout(shared.spec.timeout, request(shared, sender, row)).await;
    let took = t0.elapsed();
    let (status, result) = match outcome {
        Err(_) => (
            "timeout".to_string(),
            Err(format!(
                "query {i}: no answer within {} ms",
                shared.spec.timeout.as_millis()
            )),
        ),
        Ok(Err(Failure::Transport(e))) => ("transport".to_string(), Err(format!("query {i}: {e}"))),
        Ok(Err(Failure::Status(code, body))) => (
            code.to_string(),
            Err(format!(
                "query {i}: HTTP {code}: {}",
                bound(&String::from_utf8_lossy(&body), ERROR_ECHO)
            )),
        ),
        Ok(Ok(answer)) => ("200".to_string(), Ok(answer)),
    };
    *tally.statuses.entry(status).or_default() += 1;
    match result {
        Ok(answer) => {
            tally.ok += 1;
            tally
                .latency_us
                .saturating_record((took.as_micros() as u64).clamp(1, MAX_LATENCY_US));
            if let Some(truth) = &shared.truth
                && let Some(row_ids) = truth
                    .ids
                    .get(row.saturating_mul(truth.width)..(row + 1).saturating_mul(truth.width))
                && !row_ids.is_empty()
            {
                let (hits, total) =
                    super::recorder::recall_at_10(answer.neighbors.iter().map(|n| n.id), row_ids);
                tally.recall_hits += hits;
                tally.recall_total += total;
            }
        }
        Err(message) => {
            // The connection may be broken or mid-answer: a fresh one next.
            *sender = None;
            tally.failed += 1;
            tally.first_error.get_or_insert(message);
            if shared.failed.fetch_add(1, Ordering::Relaxed) + 1 > shared.allowed {
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
    }
}

/// Why a request failed.
enum Failure {
    /// Connecting, sending or receiving failed, or the answer was not JSON
    /// with `neighbors`.
    Transport(String),
    /// Any status but 200, with the start of its body.
    Status(u16, Bytes),
}

/// One `POST` of body `row` on `sender` (connected first when `None`).
async fn request(
    shared: &Shared,
    sender: &mut Option<SendRequest<Full<Bytes>>>,
    row: usize,
) -> std::result::Result<Answer, Failure> {
    let transport =
        |what: &str, e: &dyn std::fmt::Display| Failure::Transport(format!("{what}: {e}"));
    if sender.as_ref().is_none_or(|s| s.is_closed()) {
        *sender = Some(connect(&shared.target).await?);
    }
    let s = sender.as_mut().expect("connected above");
    s.ready().await.map_err(|e| transport("connection", &e))?;
    let mut req = hyper::Request::post(shared.target.path.as_str())
        .header(HOST, shared.target.authority.as_str())
        .header(CONTENT_TYPE, "application/json");
    if let Some(auth) = &shared.target.authorization {
        req = req.header(AUTHORIZATION, auth.clone());
    }
    let req = req
        .body(Full::new(shared.bodies[row].clone()))
        .map_err(|e| transport("request", &e))?;
    let resp = s
        .send_request(req)
        .await
        .map_err(|e| transport("send", &e))?;
    let status = resp.status().as_u16();
    let body = Limited::new(resp.into_body(), MAX_ANSWER_BYTES)
        .collect()
        .await
        .map_err(|e| transport("answer body", &e))?
        .to_bytes();
    if status != 200 {
        return Err(Failure::Status(
            status,
            body.slice(..body.len().min(4 * ERROR_ECHO)),
        ));
    }
    serde_json::from_slice::<Answer>(&body).map_err(|e| transport("answer", &e))
}

/// A fresh HTTP/1.1 connection to `target` (`TCP_NODELAY`), its driver
/// spawned on the runtime.
async fn connect(target: &LoadTarget) -> std::result::Result<SendRequest<Full<Bytes>>, Failure> {
    let stream = tokio::net::TcpStream::connect(target.authority.as_str())
        .await
        .map_err(|e| Failure::Transport(format!("connect to {}: {e}", target.authority)))?;
    stream
        .set_nodelay(true)
        .map_err(|e| Failure::Transport(format!("TCP_NODELAY: {e}")))?;
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| Failure::Transport(format!("handshake: {e}")))?;
    // The driver ends when the sender is dropped or the peer closes.
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_plain_http_with_a_port_and_never_shows_its_token() {
        let t =
            LoadTarget::parse("http://127.0.0.1:8080", Some(b"s3cr3t-token-0123456789")).unwrap();
        assert_eq!(t.display(), "http://127.0.0.1:8080/v1/search");
        assert!(!format!("{t:?}").contains("s3cr3t"));
        let t = LoadTarget::parse("http://localhost:9/x/y", None).unwrap();
        assert_eq!(t.display(), "http://localhost:9/x/y");
        for (bad, why) in [
            ("https://127.0.0.1:1/", "plain http"),
            ("http://u:p@127.0.0.1:1/", "credentials"),
            ("http://127.0.0.1:1/?a=1", "query string"),
            ("127.0.0.1:8080", "--url"),
            ("not a url", "not a URL"),
        ] {
            let e = LoadTarget::parse(bad, None).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
            assert!(!e.contains(":p@"), "{e}");
        }
    }

    #[test]
    fn bodies_carry_the_exact_f32_queries_and_the_fields() {
        let q = [0.1f32, -3.4028235e38, 1e-45, 7.0, 0.333_333_34, 2.5];
        let mut fields = serde_json::Map::new();
        fields.insert("k".into(), 10.into());
        fields.insert("nprobe".into(), 16.into());
        let bodies = request_bodies(&q, 3, &fields).unwrap();
        assert_eq!(bodies.len(), 2);
        for (b, want) in bodies.iter().zip(q.chunks_exact(3)) {
            let v: serde_json::Value = serde_json::from_slice(b).unwrap();
            assert_eq!(v["k"], 10);
            assert_eq!(v["nprobe"], 16);
            let got: Vec<f32> = v["vector"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect();
            assert_eq!(
                got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        assert!(
            request_bodies(&q, 4, &fields)
                .unwrap_err()
                .to_string()
                .contains("dimension 4")
        );
        assert!(
            request_bodies(&[1.0, f32::NAN], 2, &fields)
                .unwrap_err()
                .to_string()
                .contains("coordinate 1")
        );
    }

    #[test]
    fn out_of_range_shapes_are_refused_naming_the_flag() {
        let ok = LoadSpec {
            concurrency: 4,
            warmup: 0,
            queries: 1,
            offset: 0,
            timeout: Duration::from_secs(1),
            max_error_rate: 0.0,
        };
        assert!(ok.validate().is_ok());
        for (spec, flag) in [
            (
                LoadSpec {
                    concurrency: 0,
                    ..ok.clone()
                },
                "--concurrency",
            ),
            (
                LoadSpec {
                    concurrency: MAX_CONCURRENCY + 1,
                    ..ok.clone()
                },
                "--concurrency",
            ),
            (
                LoadSpec {
                    queries: 0,
                    ..ok.clone()
                },
                "--count",
            ),
            (
                LoadSpec {
                    warmup: MAX_QUERIES + 1,
                    ..ok.clone()
                },
                "--warmup",
            ),
            (
                LoadSpec {
                    timeout: Duration::ZERO,
                    ..ok.clone()
                },
                "--timeout-ms",
            ),
            (
                LoadSpec {
                    max_error_rate: 1.5,
                    ..ok.clone()
                },
                "--max-error-rate",
            ),
        ] {
            assert!(
                spec.validate().unwrap_err().to_string().contains(flag),
                "{flag}"
            );
        }
    }

    #[test]
    fn nothing_listening_fails_the_run_with_the_connect_error() {
        // A port bound and closed again: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let target = LoadTarget::parse(&format!("http://127.0.0.1:{port}"), None).unwrap();
        let spec = LoadSpec {
            concurrency: 3,
            warmup: 2,
            queries: 5,
            offset: 0,
            timeout: Duration::from_secs(5),
            max_error_rate: 0.0,
        };
        let bodies: Arc<[Bytes]> = vec![Bytes::from_static(b"{}")].into();
        let e = run(&target, &spec, bodies, None).unwrap_err().to_string();
        assert!(e.contains("connect to 127.0.0.1"), "{e}");
        assert!(e.contains("more than --max-error-rate 0"), "{e}");
    }
}
