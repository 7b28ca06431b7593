//! `warp load`: closed-loop HTTP load against a running `warp serve`
//! ([`crate::bench::load`]): `--concurrency` connections, a warm-up, then
//! the measured queries; prints QPS, latency percentiles, outcomes by
//! status, recall@10 with `--groundtruth`, and the client's own CPU.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use planner_core::Method;

use super::args::{OutputArgs, method_name, parse_bytes_nonzero, parse_method};
use crate::bench::load::{self, LoadSpec, LoadTarget, MAX_CONCURRENCY, MAX_QUERIES, Truth};
use crate::config::default_data_bytes;
use crate::error::{Error, Result};
use crate::formats::{read_ids, read_vectors};
use crate::input::check_file;
use crate::output::Output;
use crate::serve::auth::read_token_file;

/// Arguments of `warp load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The server: `http://host:port` (path `/v1/search`) or a full
    /// `http://host:port/path`.
    #[arg(long)]
    pub url: String,
    /// Query vectors (.fvecs, .bvecs, .npy, .fbin, …), sent in order and
    /// round again when the run needs more.
    #[arg(long)]
    pub queries: PathBuf,
    /// Ground truth ids (.ivecs, .ibin) of the same queries, row for row:
    /// adds recall@10.
    #[arg(long)]
    pub groundtruth: Option<PathBuf>,
    /// Connections, each with one query in flight (Q).
    #[arg(long, default_value_t = 8, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CONCURRENCY as u64))]
    pub concurrency: usize,
    /// Warm-up queries before the measured ones (not measured).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_QUERIES))]
    pub warmup: u64,
    /// Measured queries (default: one per query row).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_QUERIES))]
    pub count: Option<u64>,
    /// Query row the warm-up starts at (the measured queries follow it).
    #[arg(long, default_value_t = 0)]
    pub offset: usize,
    /// Neighbours asked for (`k`); default: the server's.
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub k: Option<usize>,
    /// Lists probed (`nprobe`); default: the server's.
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_048_576))]
    pub nprobe: Option<usize>,
    /// The request's deadline (`deadline_ms`); default: the server's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub deadline_ms: Option<u64>,
    /// Planning method asked for (`method`); default: the server's.
    #[arg(long, value_parser = parse_method)]
    pub method: Option<Method>,
    /// Longest a request may take here, connecting included, ms.
    #[arg(long, default_value_t = 120_000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub timeout_ms: u64,
    /// Failed requests allowed as a share of all sent, 0..=1 (default 0:
    /// the first failure fails the run).
    #[arg(long, default_value_t = 0.0)]
    pub max_error_rate: f64,
    /// A file holding the server's bearer token (never printed).
    #[arg(long)]
    pub auth_token_file: Option<PathBuf>,
    /// Largest --queries / --groundtruth file, bytes (K/M/G suffix allowed).
    /// Default: 3/4 of memory.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_data_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Runs `warp load`: one JSON document with `--json`, else a few lines.
///
/// # Errors
/// Bad flags or files (before any request), a target that cannot be
/// reached, or more failed requests than `--max-error-rate` allows.
pub fn execute(args: &LoadArgs) -> Result<()> {
    let token = args
        .auth_token_file
        .as_deref()
        .map(read_token_file)
        .transpose()?;
    let target = LoadTarget::parse(&args.url, token.as_deref())?;
    let limit = args.max_data_bytes.unwrap_or_else(default_data_bytes);
    check_file(&args.queries, "--queries", limit, "--max-data-bytes")?;
    let (vectors, dim) = read_vectors(&args.queries)?;
    let mut fields = serde_json::Map::new();
    if let Some(k) = args.k {
        fields.insert("k".into(), k.into());
    }
    if let Some(n) = args.nprobe {
        fields.insert("nprobe".into(), n.into());
    }
    if let Some(d) = args.deadline_ms {
        fields.insert("deadline_ms".into(), d.into());
    }
    if let Some(m) = args.method {
        fields.insert("method".into(), method_name(&m).into());
    }
    let bodies: Arc<[bytes::Bytes]> = load::request_bodies(&vectors, dim, &fields)?.into();
    drop(vectors);
    let truth = match &args.groundtruth {
        None => None,
        Some(path) => {
            check_file(path, "--groundtruth", limit, "--max-data-bytes")?;
            let (ids, width) = read_ids(path)?;
            let rows = ids.len().checked_div(width).unwrap_or(0);
            if rows != bodies.len() {
                return Err(Error::Input {
                    reason: format!(
                        "--groundtruth holds {rows} rows, --queries {} vectors: they must match row for row",
                        bodies.len()
                    ),
                });
            }
            Some(Truth { ids, width })
        }
    };
    let spec = LoadSpec {
        concurrency: args.concurrency,
        warmup: args.warmup,
        queries: args.count.unwrap_or(bodies.len() as u64),
        offset: args.offset,
        timeout: Duration::from_millis(args.timeout_ms),
        max_error_rate: args.max_error_rate,
    };
    spec.validate()?;
    let mut out = Output::stdout(args.output.pretty)?;
    let report = load::run(&target, &spec, bodies, truth)?;
    if args.output.json {
        let _ = out.json(&report)?;
        return Ok(());
    }
    let recall = report
        .recall_at_10
        .map_or(String::new(), |r| format!(", recall@10 {r:.4}"));
    let cpu = report
        .client_cores
        .map_or(String::new(), |c| format!(", client CPU {c:.2} cores"));
    let statuses = report
        .statuses
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = out.line(&format!(
        "{}: Q={} {} queries in {:.2} s: {:.1} QPS, p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms{recall}{cpu}",
        report.url,
        report.concurrency,
        report.queries,
        report.elapsed_s,
        report.qps,
        report.p50_ms,
        report.p95_ms,
        report.p99_ms,
        report.max_ms
    ))?;
    let _ = out.line(&format!(
        "outcomes (warm-up included): {statuses}; measured failures {}",
        report.failed
    ))?;
    Ok(())
}
