//! `warp serve`: flags → [`ServeConfig`] → [`Server`] until SIGTERM/SIGINT.
//!
//! Prints one JSON line on stdout once listening (`{"listening":
//! "127.0.0.1:8080", "generation": …}`), logs one line per request on stderr
//! (`--log`), and on SIGTERM or SIGINT drains the requests in flight within
//! `--grace-ms`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use planner_core::Method;
use serde_json::json;

use super::args::{OutputArgs, parse_bytes_nonzero, parse_method};
use super::search_opts::SearchOpts;
use crate::error::{Error, Result};
use crate::output::Output;
use crate::search::runtime;
use crate::serve::{Access, Opener, RequestBounds, ServeConfig, Server};
use crate::store;

/// Arguments of `warp serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Index and search options (the query defaults; --deadline-ms is the
    /// default request deadline; --parallelism fixes P instead of
    /// io_slots / queries in flight).
    #[command(flatten)]
    pub search: SearchOpts,
    /// Address to listen on. Any address but loopback needs --auth-token-file
    /// or --insecure-no-auth.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,
    /// Default planning method of a request that names none.
    #[arg(long, default_value = "warp", value_parser = parse_method)]
    pub method: Method,
    /// A file holding the bearer token clients must send (`Authorization:
    /// Bearer …`; at least 16 printable characters).
    #[arg(long)]
    pub auth_token_file: Option<PathBuf>,
    /// Serve a non-loopback address without a token.
    #[arg(long)]
    pub insecure_no_auth: bool,
    /// Queries running at once, 1..=4096 (default: --io-slots).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub max_in_flight: Option<usize>,
    /// Requests waiting for a query slot at once, 0..=65536; beyond: 503.
    #[arg(long, default_value_t = 256, value_parser = RangedU64ValueParser::<usize>::new().range(0..=65536))]
    pub max_queue: usize,
    /// Longest wait for a query slot, ms, 1..=60000; then 503.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=60_000))]
    pub queue_wait_ms: u64,
    /// Largest request body (K/M/G suffix allowed, at most 64M).
    #[arg(long, default_value = "4M", value_parser = parse_bytes_nonzero)]
    pub max_body_bytes: u64,
    /// Most vectors in one request, 1..=4096.
    #[arg(long, default_value_t = 64, value_parser = RangedU64ValueParser::<usize>::new().range(1..=4096))]
    pub max_batch: usize,
    /// Largest k a request may ask, 1..=100000.
    #[arg(long, default_value_t = 1000, value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub max_k: usize,
    /// Largest nprobe a request may ask, 1..=1048576.
    #[arg(long, default_value_t = 4096, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1 << 20))]
    pub max_nprobe: usize,
    /// Largest deadline_ms a request may ask, 1..=3600000.
    #[arg(long, default_value_t = 60_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub max_deadline_ms: u64,
    /// Connections served at once, 1..=65536.
    #[arg(long, default_value_t = 1024, value_parser = RangedU64ValueParser::<usize>::new().range(1..=65536))]
    pub max_connections: usize,
    /// Request-body bytes buffered at once over all connections (K/M/G
    /// suffix allowed, at least --max-body-bytes, at most 64G); a body that
    /// does not fit in what is left: 503.
    #[arg(long, default_value = "256M", value_parser = parse_bytes_nonzero)]
    pub max_buffered_body_bytes: u64,
    /// Longest time for a request's headers, ms, 1..=600000.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub header_timeout_ms: u64,
    /// Longest time for a request's body, ms, 1..=600000.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub body_timeout_ms: u64,
    /// Longest drain of requests in flight after SIGTERM/SIGINT, ms, 0..=600000.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub grace_ms: u64,
    /// How often to check the manifest for a rebuilt index, ms (0: never), at most 3600000.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=3_600_000))]
    pub watch_interval_ms: u64,
    /// Request log on stderr: info (one line per request), warn, or off.
    #[arg(long, value_enum, default_value_t = LogLevel::Info)]
    pub log: LogLevel,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--log`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogLevel {
    /// One line per request, and swaps.
    Info,
    /// Only problems (a failed manifest check, a cut-off drain).
    Warn,
    /// Nothing.
    Off,
}

/// The largest `--max-body-bytes`.
pub const MAX_BODY_BYTES: u64 = 64 << 20;

/// The largest `--max-buffered-body-bytes`.
pub const MAX_BUFFERED_BODY_BYTES: u64 = 64 << 30;

impl ServeArgs {
    /// The server configuration these flags give.
    ///
    /// # Errors
    /// An invalid setting, an unusable token file or an unprotected
    /// non-loopback `--bind` (each naming the flag).
    pub fn config(&self) -> Result<ServeConfig> {
        let host = self.search.config(None)?;
        if self.max_body_bytes > MAX_BODY_BYTES {
            return Err(Error::config(
                "--max-body-bytes",
                self.max_body_bytes,
                format!("at most {MAX_BODY_BYTES}"),
            ));
        }
        if self.max_buffered_body_bytes > MAX_BUFFERED_BODY_BYTES {
            return Err(Error::config(
                "--max-buffered-body-bytes",
                self.max_buffered_body_bytes,
                format!("at most {MAX_BUFFERED_BODY_BYTES}"),
            ));
        }
        if self.max_buffered_body_bytes < self.max_body_bytes {
            return Err(Error::config(
                "--max-buffered-body-bytes",
                self.max_buffered_body_bytes,
                format!(
                    "at least --max-body-bytes ({}): a body within that limit must fit",
                    self.max_body_bytes
                ),
            ));
        }
        let access = Access::for_bind(
            self.bind,
            self.auth_token_file.as_deref(),
            self.insecure_no_auth,
        )?;
        let mut base = self.search.params_for(&host, self.method, 1)?;
        let fixed_parallelism = self.search.parallelism.as_ref().and(base.plan.parallelism);
        base.plan.parallelism = None;
        let max_deadline = Duration::from_millis(self.max_deadline_ms);
        let default_deadline = self
            .search
            .deadline_ms
            .map_or(Duration::from_secs(10), Duration::from_millis)
            .min(max_deadline);
        let loc = store::open_existing(&host.url)?;
        let mut read = self.search.read_config();
        // The deadline is per request (from the body or the default).
        read.deadline = None;
        let io_slots = host.io_slots;
        let opener = Opener {
            loc,
            host,
            preload: self.search.preload,
            read,
            surrogate_fixed: self.search.surrogate_fixed(),
        };
        let mut cfg = ServeConfig::new(opener);
        cfg.bind = self.bind;
        cfg.access = access;
        cfg.base = base;
        cfg.bounds = RequestBounds {
            max_body_bytes: self.max_body_bytes as usize,
            max_batch: self.max_batch,
            max_k: self.max_k,
            max_nprobe: self.max_nprobe,
            default_deadline,
            max_deadline,
        };
        cfg.max_in_flight = self.max_in_flight.unwrap_or(io_slots);
        cfg.max_queue = self.max_queue;
        cfg.queue_wait = Duration::from_millis(self.queue_wait_ms);
        cfg.max_connections = self.max_connections;
        cfg.max_buffered_body_bytes =
            usize::try_from(self.max_buffered_body_bytes).map_err(|_| {
                Error::config(
                    "--max-buffered-body-bytes",
                    self.max_buffered_body_bytes,
                    "more than this machine's address space",
                )
            })?;
        cfg.header_timeout = Duration::from_millis(self.header_timeout_ms);
        cfg.body_timeout = Duration::from_millis(self.body_timeout_ms);
        cfg.grace = Duration::from_millis(self.grace_ms);
        cfg.watch_interval =
            (self.watch_interval_ms > 0).then(|| Duration::from_millis(self.watch_interval_ms));
        cfg.fixed_parallelism = fixed_parallelism;
        Ok(cfg)
    }
}

/// Installs the request log on stderr at `level` (once per process).
fn init_log(level: LogLevel) {
    let filter = match level {
        LogLevel::Info => tracing::level_filters::LevelFilter::INFO,
        LogLevel::Warn => tracing::level_filters::LevelFilter::WARN,
        LogLevel::Off => tracing::level_filters::LevelFilter::OFF,
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(filter)
        .with_target(false)
        .with_ansi(false)
        .try_init();
}

/// Resolves when SIGTERM or SIGINT arrives.
async fn stop_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// Runs `warp serve` until SIGTERM or SIGINT.
///
/// # Errors
/// Bad flags (before any I/O), the first open of the index, binding.
pub fn execute(args: &ServeArgs) -> Result<()> {
    let cfg = args.config()?;
    init_log(args.log);
    let mut out = Output::stdout(args.output.pretty)?;
    runtime()?.block_on(async {
        let server = Server::start(cfg).await?;
        // A closed stdout (Flow::Stop) does not stop the server.
        let _ = out.json(&json!({
            "listening": server.local_addr().to_string(),
            "generation": server.generation().build_id(),
        }))?;
        out.finish()?;
        stop_signal().await;
        tracing::info!("stopping: draining requests in flight");
        server.shutdown();
        server.wait().await;
        Ok(())
    })
}
