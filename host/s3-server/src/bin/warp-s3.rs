//! `warp-s3`: the S3-protocol server for benchmarks and fault tests (see the
//! crate docs and README.md beside Cargo.toml).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use tracing_subscriber::EnvFilter;
use warp_latency_model::SimulateConfig;
use warp_s3_server::{FaultConfig, ServerConfig, ServerLimits, StorageLimits, bounds};

/// The latency profile to start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Profile {
    /// `warp --simulate s3`'s defaults (25 ms, 5 ms/MiB, 4096 MiB/s, 2% tail of 2-4x).
    S3,
    /// No latency at all (every model flag still applies on top).
    None,
}

/// An S3-protocol server on 127.0.0.1: in-memory objects, every GET streamed
/// through warp's simulated-S3 latency model, seeded faults, and a meter
/// (JSON admin API under /__warp/ on the same port).
#[derive(Debug, Parser)]
#[command(name = "warp-s3", version)]
struct Args {
    /// Address to listen on (loopback only; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// Write the bound port here (then a newline) once listening.
    #[arg(long)]
    port_file: Option<PathBuf>,
    /// Access key requests must be signed with.
    #[arg(long, env = "WARP_S3_ACCESS_KEY")]
    access_key: String,
    /// Its secret key.
    #[arg(long, env = "WARP_S3_SECRET_KEY", hide_env_values = true)]
    secret_key: String,
    /// Create this bucket at start (repeatable).
    #[arg(long = "bucket")]
    buckets: Vec<String>,

    /// Latency profile the model flags below change.
    #[arg(long, value_enum, default_value = "s3")]
    latency: Profile,
    /// Median first-byte latency of a tiny GET, ms, 0..=60000.
    #[arg(long, alias = "sim-first-byte-ms", value_parser = latency_ms)]
    first_byte_ms: Option<f64>,
    /// Time per MiB of a GET's body on its own, ms, 0..=60000.
    #[arg(long, alias = "sim-per-mib-ms", value_parser = latency_ms)]
    per_mib_ms: Option<f64>,
    /// Bandwidth of the link all GET bodies share, MiB/s, 0.1..=1e9; 0 = unlimited.
    #[arg(long, alias = "sim-link-mib-s", value_parser = rate)]
    link_mib_s: Option<f64>,
    /// Probability of a long-tail GET, 0..=1.
    #[arg(long, value_parser = probability)]
    sim_tail: Option<f64>,
    /// A tail GET is this many times slower, 1..=1000.
    #[arg(long, value_parser = tail_factor)]
    sim_tail_factor: Option<f64>,
    /// Log-standard-deviation of the lognormal first-byte body, 0..=3.
    #[arg(long, value_parser = sigma)]
    sim_first_byte_sigma: Option<f64>,
    /// Per-connection throughput cap, MiB/s, 0.1..=1e9; 0 = none.
    #[arg(long, value_parser = rate)]
    sim_conn_mib_s: Option<f64>,
    /// Seed of the latency draws.
    #[arg(long)]
    sim_seed: Option<u64>,

    /// Seed of the fault draws.
    #[arg(long, default_value_t = 0)]
    fault_seed: u64,
    /// Only GETs of `bucket/key`s matching this regular expression are faulted.
    #[arg(long, default_value = "")]
    fault_keys: String,
    /// Probability of a 503 SlowDown per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_503: f64,
    /// Probability of a 500 InternalError per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_500: f64,
    /// Probability of a connection reset (no response) per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_reset: f64,
    /// Probability of a truncated body (half, then a reset) per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_truncate: f64,
    /// Probability of a Content-Range shifted by one byte per ranged GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_wrong_range: f64,
    /// Probability of one flipped body byte per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_flip: f64,
    /// Probability of headers delayed by --delay-ms per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_delay: f64,
    /// Probability of a body stalled half-way for --stall-ms per GET.
    #[arg(long, default_value_t = 0.0, value_parser = probability)]
    rate_stall: f64,
    /// Extra wait of a delayed-headers fault, ms, 0..=600000.
    #[arg(long, default_value_t = 300.0, value_parser = fault_ms)]
    delay_ms: f64,
    /// Pause of a stalled-body fault, ms, 0..=600000.
    #[arg(long, default_value_t = 5000.0, value_parser = fault_ms)]
    stall_ms: f64,

    /// Most connections open at once; more are answered 503 and closed.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    max_connections: u32,
    /// Largest request body (a PUT or one part), MiB.
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    max_body_mib: u64,
    /// Largest object, MiB.
    #[arg(long, default_value_t = 5120, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    max_object_mib: u64,
    /// Most bytes held in objects and parts, MiB.
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    max_memory_mib: u64,
    /// Most objects stored.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    max_objects: u64,
    /// Exit after this many seconds (default: run until interrupted).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    max_seconds: Option<u64>,
}

fn latency_ms(s: &str) -> Result<f64, String> {
    bounds::LATENCY_MS.parse(s)
}

fn rate(s: &str) -> Result<f64, String> {
    bounds::RATE_MIB_PER_S.parse(s)
}

fn fault_ms(s: &str) -> Result<f64, String> {
    bounds::FAULT_MS.parse(s)
}

fn probability(s: &str) -> Result<f64, String> {
    bounds::PROBABILITY.parse(s)
}

fn tail_factor(s: &str) -> Result<f64, String> {
    bounds::TAIL_FACTOR.parse(s)
}

fn sigma(s: &str) -> Result<f64, String> {
    bounds::FIRST_BYTE_SIGMA.parse(s)
}

impl Args {
    fn model(&self) -> SimulateConfig {
        let base = match self.latency {
            Profile::S3 => SimulateConfig::s3(),
            Profile::None => SimulateConfig {
                first_byte_ms: 0.0,
                per_mib_ms: 0.0,
                link_mib_per_s: 0.0,
                tail_probability: 0.0,
                ..SimulateConfig::s3()
            },
        };
        SimulateConfig {
            first_byte_ms: self.first_byte_ms.unwrap_or(base.first_byte_ms),
            per_mib_ms: self.per_mib_ms.unwrap_or(base.per_mib_ms),
            link_mib_per_s: self.link_mib_s.unwrap_or(base.link_mib_per_s),
            tail_probability: self.sim_tail.unwrap_or(base.tail_probability),
            tail_min_factor: self.sim_tail_factor.unwrap_or(base.tail_min_factor),
            tail_max_factor: self.sim_tail_factor.unwrap_or(base.tail_max_factor),
            first_byte_sigma: self.sim_first_byte_sigma.unwrap_or(base.first_byte_sigma),
            per_conn_mib_per_s: self.sim_conn_mib_s.unwrap_or(base.per_conn_mib_per_s),
            seed: self.sim_seed.unwrap_or(base.seed),
        }
    }

    fn config(&self) -> ServerConfig {
        ServerConfig {
            bind: self.bind,
            access_key: self.access_key.clone(),
            secret_key: self.secret_key.clone(),
            buckets: self.buckets.clone(),
            model: self.model(),
            faults: FaultConfig {
                seed: self.fault_seed,
                fault_keys: self.fault_keys.clone(),
                rate_503: self.rate_503,
                rate_500: self.rate_500,
                rate_reset: self.rate_reset,
                rate_truncate: self.rate_truncate,
                rate_wrong_range: self.rate_wrong_range,
                rate_flip: self.rate_flip,
                rate_delay: self.rate_delay,
                rate_stall: self.rate_stall,
                delay_ms: self.delay_ms,
                stall_ms: self.stall_ms,
            },
            limits: ServerLimits {
                max_connections: self.max_connections as usize,
                max_request_body: self.max_body_mib << 20,
                storage: StorageLimits {
                    max_object: self.max_object_mib << 20,
                    max_memory: self.max_memory_mib << 20,
                    max_objects: self.max_objects as usize,
                    ..StorageLimits::default()
                },
            },
        }
    }
}

/// Writes `port` to `path` atomically (a temporary file renamed over it).
fn write_port(path: &PathBuf, port: u16) -> std::io::Result<()> {
    let mut tmp = path.clone().into_os_string();
    tmp.push(".tmp");
    std::fs::write(&tmp, format!("{port}\n"))?;
    std::fs::rename(&tmp, path)
}

async fn run(args: Args) -> Result<(), String> {
    let server = warp_s3_server::start(args.config()).await?;
    let addr = server.addr();
    if let Some(p) = &args.port_file {
        write_port(p, addr.port())
            .map_err(|e| format!("cannot write --port-file {}: {e}", p.display()))?;
    }
    println!("warp-s3: listening on http://{addr}");
    let stop = async {
        let term = async {
            #[cfg(unix)]
            {
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(mut s) => {
                        s.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            }
            #[cfg(not(unix))]
            std::future::pending::<()>().await;
        };
        let limit = async {
            match args.max_seconds {
                Some(s) => tokio::time::sleep(Duration::from_secs(s)).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => "interrupted",
            () = term => "terminated",
            () = limit => "--max-seconds reached",
        }
    };
    let why = stop.await;
    eprintln!("warp-s3: {why}, stopping");
    server.stop().await;
    Ok(())
}

/// Parses the command line. Help and version go to stdout (exit 0); an
/// error is one line on stderr, clap's message and usage with its "For more
/// information" tip left out (exit 2).
fn parse_args() -> Result<Args, ExitCode> {
    Args::try_parse().map_err(|e| {
        let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        if !e.use_stderr() {
            let _ = e.print();
            return code;
        }
        eprintln!("{}", one_line(&e.render().to_string()));
        code
    })
}

/// `text` (clap's rendered error) on one line, without the `--help` tip.
fn one_line(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("For more information"))
        .flat_map(str::split_whitespace)
        .collect::<Vec<_>>()
        .join(" ")
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(code) => return code,
    };
    let filter =
        EnvFilter::try_from_env("RUST_LOG").unwrap_or_else(|_| EnvFilter::new("warn,s3s=off"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("warp-s3: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("warp-s3: {}", e.lines().next().unwrap_or(""));
            ExitCode::from(2)
        }
    }
}
