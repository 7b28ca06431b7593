//! The HTTP layer: the accept loop (bounded connections), one hyper HTTP/1.1
//! connection per socket, the admin API, and the meter around every S3
//! request (its body bytes and when its response ended).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body as HttpBody, Frame, SizeHint};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use s3s::auth::SimpleAuth;
use s3s::service::{S3Service, S3ServiceBuilder};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};
use tracing::{debug, info, warn};
use warp_latency_model::SimulateConfig;

use crate::access::Access;
use crate::admin::{self, ADMIN_PREFIX};
use crate::bounds;
use crate::context::RequestContext;
use crate::faults::FaultConfig;
use crate::meter::Record;
use crate::s3::Backend;
use crate::state::State;
use crate::storage::{Storage, StorageLimits};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Bounds of the `warp-s3` server itself: its connections, request bodies
/// and stored objects ([`StorageLimits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Most connections open at once; more are answered `503` and closed.
    pub max_connections: usize,
    /// Largest request body (a PUT or one part), bytes.
    pub max_request_body: u64,
    /// Storage bounds (object size, memory, counts).
    pub storage: StorageLimits,
}

impl Default for ServerLimits {
    fn default() -> Self {
        Self {
            max_connections: 256,
            max_request_body: 512 << 20,
            storage: StorageLimits::default(),
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on; must be loopback (port 0: any free port).
    pub bind: SocketAddr,
    /// The access key every request must be signed with (SigV4 or SigV2).
    pub access_key: String,
    /// Its secret key.
    pub secret_key: String,
    /// Buckets created at start.
    pub buckets: Vec<String>,
    /// The latency model every GET follows.
    pub model: SimulateConfig,
    /// The faults injected.
    pub faults: FaultConfig,
    /// Bounds.
    pub limits: ServerLimits,
}

impl ServerConfig {
    /// A server on `127.0.0.1:0` with keys `access_key`/`secret_key`, no
    /// buckets, the default S3 profile, no faults and the default bounds.
    pub fn new(access_key: impl Into<String>, secret_key: impl Into<String>) -> Self {
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            access_key: access_key.into(),
            secret_key: secret_key.into(),
            buckets: Vec::new(),
            model: SimulateConfig::s3(),
            faults: FaultConfig::default(),
            limits: ServerLimits::default(),
        }
    }
}

/// A running server. Dropping it stops the accept loop and closes every
/// connection; [`RunningServer::stop`] does the same and waits for it.
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    state: Arc<State>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl RunningServer {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR`, the endpoint for clients.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The shared state (storage, settings, meter).
    pub fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// Stops accepting, closes every connection and waits for the loop.
    pub async fn stop(mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        let task = std::mem::replace(&mut self.task, tokio::spawn(async {}));
        let _ = task.await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Checks `config` and starts serving it on the current tokio runtime.
///
/// # Errors
/// A one-line message: a non-loopback address, keys missing, a model or
/// fault setting out of range, a bound of zero, a bucket name S3 would
/// refuse, or an address that cannot be bound.
pub async fn start(config: ServerConfig) -> Result<RunningServer, String> {
    if !config.bind.ip().is_loopback() {
        return Err(format!(
            "{} is not a loopback address: warp-s3 (and its unsigned admin API) listens on 127.0.0.0/8 or ::1 only",
            config.bind
        ));
    }
    if config.access_key.is_empty() || config.secret_key.is_empty() {
        return Err(
            "an access key and a secret key are required (--access-key, --secret-key)".into(),
        );
    }
    bounds::check_model(&config.model)?;
    let faults = config.faults.clone().compile()?;
    let l = config.limits;
    if l.max_connections == 0
        || l.max_request_body == 0
        || l.storage.max_object == 0
        || l.storage.max_memory == 0
        || l.storage.max_objects == 0
        || l.storage.max_buckets == 0
        || l.storage.max_uploads == 0
    {
        return Err(format!("every bound must be at least 1: {l:?}"));
    }
    let storage = Storage::new(l.storage);
    for b in &config.buckets {
        if !s3s::path::check_bucket_name(b) {
            return Err(format!("{b:?} is not a valid S3 bucket name"));
        }
        storage
            .create_bucket(b)
            .map_err(|e| format!("bucket {b:?}: {e:?}"))?;
    }
    let state = Arc::new(State::new(
        storage,
        config.model,
        faults,
        l.max_request_body,
    ));
    let mut builder = S3ServiceBuilder::new(Backend::new(Arc::clone(&state)));
    builder.set_auth(SimpleAuth::from_single(
        config.access_key.clone(),
        config.secret_key.clone(),
    ));
    builder.set_access(Access::new(Arc::clone(&state)));
    let s3 = builder.build();
    let listener = TcpListener::bind(config.bind)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.bind))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(accept_loop(
        listener,
        s3,
        Arc::clone(&state),
        l.max_connections,
        rx,
    ));
    info!(%addr, "warp-s3 listening");
    Ok(RunningServer {
        addr,
        state,
        stop: Some(tx),
        task,
    })
}

async fn accept_loop(
    listener: TcpListener,
    s3: S3Service,
    state: Arc<State>,
    max_connections: usize,
    mut stop: oneshot::Receiver<()>,
) {
    let open = Arc::new(AtomicUsize::new(0));
    let mut conns = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            _ = &mut stop => break,
            a = listener.accept() => a,
        };
        while conns.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: back off instead of spinning.
                warn!("warp-s3: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let n = open.load(Ordering::Relaxed);
        if n >= max_connections {
            warn!(
                "warp-s3: refused a connection from {peer}: {n} are open, the bound (--max-connections {max_connections})"
            );
            conns.spawn(refuse(stream, max_connections));
            continue;
        }
        open.fetch_add(1, Ordering::Relaxed);
        let guard = OpenGuard(Arc::clone(&open));
        conns.spawn(serve(stream, s3.clone(), Arc::clone(&state), guard));
    }
    // Dropping the set aborts every connection.
}

/// Decrements the open-connection count when the connection ends.
struct OpenGuard(Arc<AtomicUsize>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

async fn refuse(mut stream: TcpStream, max: usize) {
    let msg = format!("warp-s3: {max} connections are open, the bound (--max-connections)\n");
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        msg.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(msg.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

async fn serve(stream: TcpStream, s3: S3Service, state: Arc<State>, _guard: OpenGuard) {
    let reset = Arc::new(AtomicBool::new(false));
    let io = ConnIo {
        inner: stream,
        reset: Arc::clone(&reset),
    };
    let svc =
        service_fn(move |req| handle(Arc::clone(&state), s3.clone(), Arc::clone(&reset), req));
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(60))
        .serve_connection(TokioIo::new(io), svc);
    if let Err(e) = conn.await {
        debug!("connection ended: {e}");
    }
}

async fn handle(
    state: Arc<State>,
    s3: S3Service,
    reset: Arc<AtomicBool>,
    req: Request<Incoming>,
) -> Result<Response<MeteredBody>, BoxError> {
    if req.uri().path().starts_with(ADMIN_PREFIX) {
        return Ok(admin::handle(&state, req).await.map(MeteredBody::plain));
    }
    let head = req.method() == http::Method::HEAD;
    let method = req.method().as_str().to_string();
    let key = req.uri().path().trim_start_matches('/').to_string();
    let range = req
        .headers()
        .get(http::header::RANGE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let ctx = Arc::new(RequestContext::new(reset));
    let window = {
        let mut m = state.meter();
        if method == "GET" {
            m.get_started();
        }
        m.window()
    };
    let mut pending = Pending {
        record: Some(Record {
            window,
            method,
            key,
            range,
            status: None,
            bytes: 0,
            start: state.now(),
            end: 0.0,
            fault: None,
            flipped: None,
        }),
        state,
        ctx: Arc::clone(&ctx),
    };
    let mut req = req.map(s3s::Body::from);
    req.extensions_mut().insert(Arc::clone(&ctx));
    let mut resp = s3.call(req).await?;
    // A HEAD of a range is `206` in S3, as the GET is; the protocol layer
    // writes every HEAD as `200`, with the `Content-Range` the backend set.
    if head
        && resp.status() == http::StatusCode::OK
        && resp.headers().contains_key(http::header::CONTENT_RANGE)
    {
        *resp.status_mut() = http::StatusCode::PARTIAL_CONTENT;
    }
    if ctx.response_dropped() {
        // The connection is reset instead of answered (the record says so).
        drop(pending);
        return Err("connection reset (injected fault)".into());
    }
    if let Some(r) = &mut pending.record {
        r.status = Some(resp.status().as_u16());
    }
    let (parts, body) = resp.into_parts();
    Ok(Response::from_parts(
        parts,
        MeteredBody {
            inner: Box::pin(body),
            pending: Some(pending),
        },
    ))
}

/// A request's record, added to the meter once its response is done (or
/// abandoned: dropped with the connection).
struct Pending {
    record: Option<Record>,
    state: Arc<State>,
    ctx: Arc<RequestContext>,
}

impl Pending {
    fn finish(&mut self) {
        if let Some(mut r) = self.record.take() {
            r.end = self.state.now();
            r.fault = self.ctx.fault();
            r.flipped = self.ctx.flipped();
            self.state.meter().add(r);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A response body that counts its bytes into the request's record.
pub struct MeteredBody {
    inner: Pin<Box<s3s::Body>>,
    pending: Option<Pending>,
}

impl MeteredBody {
    fn plain(body: s3s::Body) -> Self {
        Self {
            inner: Box::pin(body),
            pending: None,
        }
    }
}

impl std::fmt::Debug for MeteredBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteredBody").finish_non_exhaustive()
    }
}

impl HttpBody for MeteredBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        let frame = ready!(this.inner.as_mut().poll_frame(cx));
        match &frame {
            Some(Ok(f)) => {
                if let (Some(d), Some(p)) = (f.data_ref(), &mut this.pending)
                    && let Some(r) = &mut p.record
                {
                    r.bytes += d.len() as u64;
                }
            }
            Some(Err(_)) | None => {
                if let Some(mut p) = this.pending.take() {
                    p.finish();
                }
            }
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A connection's socket: when its reset flag is set it closes with a TCP
/// RST (`SO_LINGER` 0) and sends no FIN first.
struct ConnIo {
    inner: TcpStream,
    reset: Arc<AtomicBool>,
}

impl AsyncRead for ConnIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.reset.load(Ordering::Relaxed) {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::Relaxed) {
            let _ = self.inner.set_zero_linger();
        }
    }
}
