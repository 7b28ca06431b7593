//! `warp serve`: the vector search as an HTTP service (ARCHITECTURE §10).
//!
//! One process opens the index once and answers JSON over HTTP/1.1:
//! `POST /v1/search`, `GET /v1/index`, `GET /healthz`, `GET /readyz`,
//! `GET /metrics` (Prometheus text), `GET /openapi.json` (the contract,
//! checked in as `host/src/serve/openapi.json`).
//!
//! - **One read path**: every request goes through the generation's one
//!   `PlannedStore` (one set of I/O slots, one hedger, one load estimate),
//!   one payload cache and one planner pool. Each query plans at
//!   `P = io_slots / max(1, in flight)`, the live number of queries in
//!   flight observed when it starts ([`admission`]).
//! - **Bounds**: at most `max_in_flight` queries run and `max_queue` wait
//!   (each at most `queue_wait`); beyond that `503` with `Retry-After`.
//!   A large plan runs off the async workers (the planned store's
//!   `block_in_place`), so the probes, the metrics and accepting
//!   connections go on whatever a query costs to plan.
//!   Body size (a larger `Content-Length` is refused unread), batch size,
//!   `k`, `nprobe` and the deadline are bounded ([`api::RequestBounds`]);
//!   so are the bytes of request bodies buffered at once over all
//!   connections, `max_buffered_body_bytes` ([`body`]: a body that does not
//!   fit in what is left is refused at once with `503`);
//!   headers must arrive within `header_timeout`, the body within
//!   `body_timeout`; at most `max_connections` connections.
//!   A bad request is a `4xx` whose JSON names the field.
//! - **Lifecycle**: [`Server::shutdown`] (SIGTERM/SIGINT in `warp serve`)
//!   stops accepting, and requests in flight finish within `grace`.
//!   [`generation`] swaps to a rebuilt index atomically; a manifest that
//!   does not open is logged once (retried, and counted, at every check).
//! - **Access**: [`auth::Access`] — loopback open, any other address only
//!   with a bearer token or `--insecure-no-auth`.

pub mod admission;
pub mod api;
pub mod auth;
pub mod body;
pub mod generation;
pub mod http;
pub mod metrics;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::error::{Error, Result};
use crate::query::SearchParams;

pub use api::RequestBounds;
pub use auth::Access;
pub use body::DEFAULT_MAX_BUFFERED_BODY_BYTES;
pub use generation::{Generation, Opener, Served};
pub use http::OPENAPI;

/// Everything `warp serve` is configured with.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// How to open (and reopen) the index.
    pub opener: Opener,
    /// Address to listen on (port 0: any free port).
    pub bind: SocketAddr,
    /// Who may call.
    pub access: Access,
    /// Defaults of every query (k, nprobe, method, rerank, ε, surrogate).
    pub base: SearchParams,
    /// Per-request bounds.
    pub bounds: RequestBounds,
    /// Queries running at once.
    pub max_in_flight: usize,
    /// Requests waiting for a query slot at once.
    pub max_queue: usize,
    /// Longest wait for a query slot.
    pub queue_wait: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Request-body bytes buffered at once over all connections; at least
    /// `bounds.max_body_bytes`, or a body within that limit may never fit
    /// (`warp serve` refuses such flags).
    pub max_buffered_body_bytes: usize,
    /// Longest time to receive a request's headers.
    pub header_timeout: Duration,
    /// Longest time to receive a request's body.
    pub body_timeout: Duration,
    /// Longest drain after a stop.
    pub grace: Duration,
    /// How often the manifest is checked for a new generation (`None`: never).
    pub watch_interval: Option<Duration>,
    /// Plan at this `P` instead of `io_slots / in flight` (for comparisons).
    pub fixed_parallelism: Option<f64>,
}

impl ServeConfig {
    /// Defaults around `opener`: loopback port 0, open access, 64 queries in
    /// flight, a queue of 256 waiting at most 1 s, 1024 connections,
    /// [`DEFAULT_MAX_BUFFERED_BODY_BYTES`] of request bodies buffered at
    /// once, 10 s for headers and for the body, a 30 s grace, a manifest
    /// check every 2 s, live `P`, [`RequestBounds::default`].
    pub fn new(opener: Opener) -> Self {
        Self {
            opener,
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            access: Access::Open,
            base: SearchParams::default(),
            bounds: RequestBounds::default(),
            max_in_flight: 64,
            max_queue: 256,
            queue_wait: Duration::from_secs(1),
            max_connections: 1024,
            max_buffered_body_bytes: DEFAULT_MAX_BUFFERED_BODY_BYTES,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            grace: Duration::from_secs(30),
            watch_interval: Some(Duration::from_secs(2)),
            fixed_parallelism: None,
        }
    }
}

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    stop: watch::Sender<bool>,
    state: Arc<http::AppState>,
    accept: JoinHandle<()>,
    watcher: Option<JoinHandle<()>>,
}

impl Server {
    /// Opens the index, binds `cfg.bind` and starts serving (and watching
    /// the manifest) on the current tokio runtime.
    ///
    /// # Errors
    /// Store, index and planner errors of the first open; [`Error::Io`]
    /// when the address cannot be bound.
    pub async fn start(cfg: ServeConfig) -> Result<Self> {
        let first = cfg.opener.open().await?;
        let listener = tokio::net::TcpListener::bind(cfg.bind)
            .await
            .map_err(|source| Error::Io {
                path: format!("--bind {}", cfg.bind),
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| Error::Io {
            path: format!("--bind {}", cfg.bind),
            source,
        })?;
        let served = Arc::new(Served::new(first));
        let state = Arc::new(http::AppState {
            served: Arc::clone(&served),
            admission: admission::Admission::new(cfg.max_in_flight, cfg.max_queue),
            metrics: metrics::Metrics::new(),
            bounds: cfg.bounds.clone(),
            base: cfg.base.clone(),
            io_slots: cfg.opener.host.io_slots,
            fixed_parallelism: cfg.fixed_parallelism,
            display: cfg.opener.loc.display.clone(),
            access: cfg.access.clone(),
            queue_wait: cfg.queue_wait,
            body_timeout: cfg.body_timeout,
            body_budget: body::BodyBudget::new(cfg.max_buffered_body_bytes),
            draining: AtomicBool::new(false),
        });
        let (stop, stopped) = watch::channel(false);
        let watcher = cfg.watch_interval.map(|interval| {
            let state = Arc::clone(&state);
            tokio::spawn(generation::watch(
                served,
                cfg.opener.clone(),
                interval,
                stopped.clone(),
                move |event| state.metrics.watched(&event),
            ))
        });
        let accept = tokio::spawn(http::serve(
            listener,
            http::router(Arc::clone(&state)),
            http::ConnectionBounds {
                max_connections: cfg.max_connections,
                header_timeout: cfg.header_timeout,
                grace: cfg.grace,
            },
            stopped,
        ));
        tracing::info!(%addr, generation = %state.served.current().build_id(), "serving");
        Ok(Self {
            addr,
            stop,
            state,
            accept,
            watcher,
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The generation served now.
    pub fn generation(&self) -> Arc<Generation> {
        self.state.served.current()
    }

    /// Stops accepting; requests in flight finish within the grace period
    /// ([`Server::wait`] returns when they have).
    pub fn shutdown(&self) {
        self.state.draining.store(true, Ordering::Release);
        let _ = self.stop.send(true);
    }

    /// Waits until the server has stopped (after [`Server::shutdown`]).
    pub async fn wait(self) {
        let _ = self.accept.await;
        if let Some(w) = self.watcher {
            let _ = w.await;
        }
    }
}
