//! The routes and their handlers (axum), and the accept loop (hyper, HTTP/1.1)
//! with its header-read timeout, connection bound and graceful drain.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};

use super::admission::{Admission, Refused};
use super::api::{self, ApiError, RequestBounds};
use super::auth::Access;
use super::body::{BodyBudget, read_body};
use super::generation::{Generation, Served};
use super::metrics::Metrics;
use crate::error::Error;
use crate::query::SearchParams;
use crate::store::{Deadline, deadline_exceeded};

/// The OpenAPI document of the API (served at `/openapi.json`).
pub const OPENAPI: &str = include_str!("openapi.json");

/// What every handler shares.
#[derive(Debug)]
pub struct AppState {
    /// The generation served.
    pub served: Arc<Served>,
    /// The admission gate.
    pub admission: Admission,
    /// The metrics.
    pub metrics: Metrics,
    /// Per-request bounds.
    pub bounds: RequestBounds,
    /// Defaults of every query (k, nprobe, method, surrogate, …).
    pub base: SearchParams,
    /// I/O slots of the shared store: `P = io_slots / max(1, in flight)`.
    pub io_slots: usize,
    /// Plan every query at this `P` instead of the live one (for comparing).
    pub fixed_parallelism: Option<f64>,
    /// The index location for `/v1/index` (credentials removed).
    pub display: String,
    /// Who may call.
    pub access: Access,
    /// Longest wait for a query slot.
    pub queue_wait: Duration,
    /// Longest time to read a request body.
    pub body_timeout: Duration,
    /// The bound on request-body bytes buffered at once, over all requests.
    pub body_budget: BodyBudget,
    /// Set when draining: `/readyz` answers 503.
    pub draining: AtomicBool,
}

/// The `Router` of every route.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/search", post(search))
        .route("/v1/index", get(index))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(Arc::clone(&state), observe))
        .with_state(state)
}

/// A JSON response of `status`.
fn json_response(status: u16, body: &Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = json_response(self.status, &self.body());
        if self.status == 503 {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        r
    }
}

/// Counts, times and logs every request (one line at info); checks the
/// bearer token on every route but the probes and the API document.
async fn observe(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("other", |p| match p.as_str() {
            "/v1/search" => "/v1/search",
            "/v1/index" => "/v1/index",
            "/healthz" => "/healthz",
            "/readyz" => "/readyz",
            "/metrics" => "/metrics",
            "/openapi.json" => "/openapi.json",
            _ => "other",
        });
    let method = req.method().clone();
    let open_route = matches!(route, "/healthz" | "/readyz" | "/openapi.json");
    let allowed = open_route
        || state.access.allows(
            req.headers()
                .get(header::AUTHORIZATION)
                .map(HeaderValue::as_bytes),
        );
    let response = if allowed {
        next.run(req).await
    } else {
        let mut r = ApiError::status(401, "missing or wrong bearer token").into_response();
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        r
    };
    let status = response.status().as_u16();
    let seconds = started.elapsed().as_secs_f64();
    state.metrics.request(route, status, seconds);
    tracing::info!(%method, route, status, ms = seconds * 1e3, "request");
    response
}

async fn not_found() -> ApiError {
    ApiError::status(404, "no such route (see /openapi.json)")
}

async fn healthz() -> Response {
    json_response(200, &json!({"status": "ok"}))
}

async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    if state.draining.load(Ordering::Acquire) {
        return ApiError::status(503, "draining").into_response();
    }
    let g = state.served.current();
    json_response(200, &json!({"status": "ready", "generation": g.build_id()}))
}

async fn index(State(state): State<Arc<AppState>>) -> Response {
    json_response(200, &state.served.current().describe(&state.display))
}

async fn metrics(State(state): State<Arc<AppState>>) -> Response {
    let g = state.served.current();
    let text = state.metrics.render(
        g.build_id(),
        g.opened,
        state.admission.in_flight(),
        state.admission.waiting(),
        state.body_budget.held(),
        &g.searcher.io_stats(),
        &g.searcher.store().load(),
    );
    let mut r = Response::new(Body::from(text));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
    );
    r
}

async fn openapi() -> Response {
    let mut r = Response::new(Body::from(OPENAPI));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// The HTTP status of a failed query: a deadline miss is `504`, the
/// store's or the index's failure `502`, a refused plan `422`, bad input
/// `400`.
fn query_status(e: &Error) -> u16 {
    if deadline_exceeded(e).is_some() {
        return 504;
    }
    match e {
        Error::Input { .. } | Error::Config { .. } => 400,
        Error::Plan(_) => 422,
        Error::Store { .. } | Error::Checksum { .. } | Error::Index { .. } => 502,
        _ => 500,
    }
}

/// `POST /v1/search`.
async fn search(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let arrived = Instant::now();
    let body = read_body(
        &headers,
        body,
        state.bounds.max_body_bytes,
        &state.body_budget,
        state.body_timeout,
    )
    .await
    .inspect_err(|e| {
        if e.status == 503 {
            state.metrics.rejected();
        }
    })?;
    let request = api::parse(body.bytes())?;
    // The body's bytes, and its share of the budget, go back here.
    drop(body);
    // One generation for the whole request.
    let generation = state.served.current();
    let mut base = state.base.clone();
    if let Some(s) = &generation.surrogate {
        base.plan.surrogate = s.clone();
    }
    let dim = generation.searcher.index().manifest.dim;
    let checked = request.validate(dim, &base, &state.bounds)?;
    let deadline = Deadline {
        at: tokio::time::Instant::from_std(arrived) + checked.deadline,
        budget: checked.deadline,
    };
    let wait = state
        .queue_wait
        .min(checked.deadline.saturating_sub(arrived.elapsed()));
    let ticket = state.admission.admit(wait).await.map_err(|why| {
        state.metrics.rejected();
        ApiError::status(
            503,
            match why {
                Refused::QueueFull => "busy: every query slot is taken and the wait queue is full",
                Refused::WaitedTooLong => "busy: no query slot came free in time",
            },
        )
    })?;
    let answers = run(&state, &generation, &checked, deadline).await;
    drop(ticket);
    let answers = answers?;
    let body = if checked.batch {
        json!({"generation": generation.build_id(), "results": answers})
    } else {
        let mut one = answers.into_iter().next().unwrap_or(Value::Null);
        one["generation"] = json!(generation.build_id());
        one
    };
    Ok(json_response(200, &body))
}

/// Runs the checked queries in order on `generation`, each planned at the
/// live `P`; the first failure fails the request.
async fn run(
    state: &AppState,
    generation: &Generation,
    checked: &api::Checked,
    deadline: Deadline,
) -> Result<Vec<Value>, ApiError> {
    let dim = generation.searcher.index().manifest.dim;
    let mut out = Vec::with_capacity(checked.queries.len() / dim.max(1));
    for (i, q) in checked.queries.chunks_exact(dim).enumerate() {
        let mut params = checked.params.clone();
        params.plan.parallelism = Some(state.fixed_parallelism.unwrap_or_else(|| {
            planner_core::Parallelism::per_call(state.io_slots, state.admission.in_flight())
        }));
        let t = Instant::now();
        match generation
            .searcher
            .search_by(q, &params, Some(deadline))
            .await
        {
            Ok(r) => {
                state
                    .metrics
                    .query("ok", t.elapsed().as_secs_f64(), Some(&r.stats));
                out.push(r.to_json(i, generation.planner));
            }
            Err(e) => {
                let status = query_status(&e);
                let outcome = if status == 504 { "deadline" } else { "error" };
                state
                    .metrics
                    .query(outcome, t.elapsed().as_secs_f64(), None);
                let message = if checked.batch {
                    format!("vectors[{i}]: {e}")
                } else {
                    e.to_string()
                };
                return Err(ApiError::status(status, message));
            }
        }
    }
    Ok(out)
}

/// Most bytes hyper buffers per connection to read a request's head and
/// body, and to queue a response (`http1::Builder::max_buf_size`): 64 KiB,
/// against hyper's default of 400 KiB. Request heads larger than this are
/// refused with `431` before more is read, so the connections' buffers take
/// at most `max_connections × 64 KiB` (64 MiB at the defaults, against
/// 400 MiB), besides the bodies' own budget ([`BodyBudget`]). The largest
/// head a client of this API sends (a bearer token and a few headers) is
/// well under 8 KiB.
pub const CONNECTION_BUFFER_BYTES: usize = 64 << 10;

/// Bounds of the accept loop.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionBounds {
    /// Connections served at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Longest time to receive a request's headers.
    pub header_timeout: Duration,
    /// Longest drain of the requests in flight after a stop.
    pub grace: Duration,
}

/// Serves `app` on `listener` until `stop` turns true, then stops accepting,
/// lets the requests in flight finish within the grace period, and returns.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    bounds: ConnectionBounds,
    mut stop: watch::Receiver<bool>,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(bounds.max_connections.max(1)));
    loop {
        let permit = tokio::select! {
            p = Arc::clone(&connections).acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = stop.changed() => break,
        };
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = stop.changed() => break,
        };
        let (stream, peer): (_, SocketAddr) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors, a reset before accept: go on.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = hyper::service::service_fn({
            let app = app.clone();
            move |req: hyper::Request<hyper::body::Incoming>| {
                let app = app.clone();
                async move {
                    use tower::ServiceExt;
                    Ok::<_, Infallible>(
                        app.oneshot(req.map(Body::new))
                            .await
                            .unwrap_or_else(|e| match e {}),
                    )
                }
            }
        });
        let conn = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(bounds.header_timeout)
            .max_buf_size(CONNECTION_BUFFER_BYTES)
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(bounds.grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace_ms = bounds.grace.as_millis() as u64,
            "requests still running after the grace period were cut off"
        );
    }
}
