//! `warp query`: answer one query or a file of them, as JSON.
//!
//! One JSON object per query on stdout (`--pretty` indents each). In a
//! `--queries` batch a query that fails (a store, checksum or planner error)
//! does not stop the others: its object is `{"query": i, "error": "…"}`, and
//! once every query has been answered the command exits with code 2 and one
//! line saying how many failed.

use std::path::PathBuf;

use clap::Args;
use clap::builder::RangedU64ValueParser;
use planner_core::{Method, Surrogate};
use serde_json::{Value, json};

use super::args::{
    OutputArgs, at_least_one_or_inf, epsilon, latency_ms, non_negative, parse_bytes_nonzero,
    parse_method, probability,
};
use crate::config::{HostConfig, HostConfigBuilder, PlannerKind};
use crate::dataset::RAISE_DATA;
use crate::error::{Error, Result};
use crate::input::check_file;
use crate::output::{Flow, Output, one_line};
use crate::query::{ReadConfig, SearchParams, SearchResult};
use std::time::Duration;

pub use crate::search::{backend_factory, open_searcher, runtime};

/// Largest `--k` (neighbours returned per query).
pub const MAX_K: u64 = 100_000;
/// Largest `--nprobe`.
pub const MAX_NPROBE: u64 = 1 << 20;
/// Largest `--k-max`.
pub const MAX_K_MAX: u64 = 1 << 20;
/// Largest `--io-slots`.
pub const MAX_IO_SLOTS: u64 = 4096;
/// Largest `--rerank` factor.
pub const MAX_RERANK: u64 = 1000;

/// Options shared by `warp query` and `warp bench`.
#[derive(Debug, Clone, Args)]
pub struct SearchOpts {
    /// Index location: a path, file:///dir, memory://name or s3://bucket/prefix
    /// (S3 endpoint, region and keys from the AWS_* variables). Default: $WARP_URL or ./warp-index.
    #[arg(long)]
    pub url: Option<String>,
    /// Lists probed per query (faiss nprobe), 1..=1048576.
    #[arg(long, default_value_t = 16, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_NPROBE))]
    pub nprobe: usize,
    /// Neighbours returned, 1..=100000.
    #[arg(long, default_value_t = 10, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_K))]
    pub k: usize,
    /// Request budget K_max per planned fetch, 1..=1048576 (default: one per interval).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_K_MAX))]
    pub k_max: Option<usize>,
    /// Expected request parallelism P of one query, >= 1 or "inf" (default: io_slots / Q, at least 1).
    #[arg(long, value_parser = at_least_one_or_inf)]
    pub parallelism: Option<String>,
    /// Global limit on concurrent GETs, 1..=4096 (default: $WARP_IO_SLOTS or 64).
    #[arg(long, value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_IO_SLOTS))]
    pub io_slots: Option<usize>,
    /// Payload cache capacity, MiB; 0 disables; at most the memory limit (default: $WARP_CACHE_BYTES or 64 MiB for query, 0 for bench).
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=(1 << 30)))]
    pub cache_mib: Option<u64>,
    /// Simulate S3 latency on every GET: "s3" or "none" (default: $WARP_SIMULATE or none).
    #[arg(long, value_parser = ["s3", "none"])]
    pub simulate: Option<String>,
    /// Simulated S3: first-byte latency of a tiny GET, ms, 0..=60000 (default 25).
    #[arg(long, value_parser = latency_ms)]
    pub sim_first_byte_ms: Option<f64>,
    /// Simulated S3: extra latency per MiB, ms, 0..=60000 (default 5).
    #[arg(long, value_parser = latency_ms)]
    pub sim_per_mib_ms: Option<f64>,
    /// Simulated S3: bandwidth of the link shared by all GETs, MiB/s; 0 = unlimited (default 4096).
    #[arg(long, value_parser = non_negative)]
    pub sim_link_mib_s: Option<f64>,
    /// Simulated S3: probability of a long-tail GET, 0..=1 (default 0.02).
    #[arg(long, value_parser = probability)]
    pub sim_tail: Option<f64>,
    /// Plan with planner-core compiled into the host instead of the component.
    #[arg(long)]
    pub native: bool,
    /// Copy the index into memory first, so reading the (simulated) store costs
    /// no CPU of this machine; use with --simulate for benchmarks.
    #[arg(long)]
    pub preload: bool,
    /// IVF-PQ: rerank the best k*RERANK ADC candidates exactly, 0..=1000 (0: no rerank).
    #[arg(long, default_value_t = 4, value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_RERANK))]
    pub rerank: usize,
    /// Surrogate fixed cost per request, ms, 0..=60000 (default 25, or the simulation's).
    #[arg(long, value_parser = latency_ms)]
    pub fixed_ms: Option<f64>,
    /// Surrogate cost per MiB, ms, 0..=60000 (default 5, or the simulation's).
    #[arg(long, value_parser = latency_ms)]
    pub per_mib_ms: Option<f64>,
    /// Tolerance ε of the warp planner, 0..=1.
    #[arg(long, default_value_t = 0.01, value_parser = epsilon)]
    pub epsilon: f64,
    /// Per-query deadline, ms, 1..=3600000: a query whose reads (payload,
    /// rerank and re-fetches) are not done by then fails with its own error.
    /// Default: none.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub deadline_ms: Option<u64>,
    /// Abandon and retry once a GET whose body makes no progress for this
    /// long, ms, 1..=600000. Default 10000.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub stall_timeout_ms: Option<u64>,
    /// Do not hedge straggling GETs (default: hedge after the observed p95,
    /// at most 5% extra GETs).
    #[arg(long)]
    pub no_hedge: bool,
}

impl SearchOpts {
    /// The host configuration: environment, then these flags;
    /// `default_cache` is the cache capacity when neither `WARP_CACHE_BYTES`
    /// nor `--cache-mib` gives one.
    ///
    /// # Errors
    /// An invalid setting.
    pub fn config(&self, default_cache: Option<u64>) -> Result<HostConfig> {
        let mut b = HostConfigBuilder::from_env();
        if let Some(c) = default_cache {
            b = b.with_default_cache_bytes(c);
        }
        if let Some(u) = &self.url {
            b = b.with_url(u.clone());
        }
        if let Some(s) = self.io_slots {
            b = b.with_io_slots(s);
        }
        if let Some(m) = self.cache_mib {
            b = b.with_cache_bytes(m << 20);
        }
        if let Some(s) = &self.simulate {
            b = b.with_config("simulate", s);
        }
        b = b.with_simulate_overrides(
            self.sim_first_byte_ms,
            self.sim_per_mib_ms,
            self.sim_link_mib_s,
            self.sim_tail,
        );
        if self.native {
            b = b.with_planner(PlannerKind::Native);
        }
        b.build()
    }

    /// How the searcher reads: hedging (unless `--no-hedge`), `--deadline-ms`,
    /// `--stall-timeout-ms`, and the load-aware surrogate unless the user
    /// fixed it with `--fixed-ms`/`--per-mib-ms`.
    pub fn read_config(&self) -> ReadConfig {
        let mut read = ReadConfig::default();
        if self.no_hedge {
            read.hedge = None;
        }
        read.deadline = self.deadline_ms.map(Duration::from_millis);
        if let Some(ms) = self.stall_timeout_ms {
            read.stall_timeout = Duration::from_millis(ms);
        }
        read.load_aware = !self.surrogate_fixed();
        read
    }

    /// Whether `--fixed-ms` or `--per-mib-ms` fixes the surrogate (then it
    /// is used as given: no manifest calibration, no load adaptation).
    pub fn surrogate_fixed(&self) -> bool {
        self.fixed_ms.is_some() || self.per_mib_ms.is_some()
    }

    /// The surrogate calibrated into the index manifest (`warp calibrate
    /// --write-manifest`), unless flags fix one.
    ///
    /// # Errors
    /// [`Error::Config`] for an invalid stored surrogate.
    pub fn manifest_surrogate(&self, index: &crate::query::Index) -> Result<Option<Surrogate>> {
        if self.surrogate_fixed() {
            return Ok(None);
        }
        index
            .manifest
            .surrogate
            .as_ref()
            .map(|s| s.to_surrogate())
            .transpose()
    }

    /// Search parameters for planning method `method` (see
    /// [`parse_method`]) at query concurrency `q`.
    ///
    /// # Errors
    /// [`Error::Config`] for a bad P, method or surrogate.
    pub fn params(&self, cfg: &HostConfig, method: &str, q: usize) -> Result<SearchParams> {
        let m = parse_method(method).map_err(|reason| Error::config("--method", method, reason))?;
        self.params_for(cfg, m, q)
    }

    /// Search parameters for `method` at query concurrency `q`.
    ///
    /// # Errors
    /// [`Error::Config`] for a bad P or surrogate, or a zero `--k`,
    /// `--nprobe` or `--k-max` (possible when the struct is filled by hand).
    pub fn params_for(&self, cfg: &HostConfig, method: Method, q: usize) -> Result<SearchParams> {
        let parallelism = match self.parallelism.as_deref() {
            None => Some((cfg.io_slots as f64 / q.max(1) as f64).max(1.0)),
            Some(p) => at_least_one_or_inf(p)
                .map_err(|reason| Error::config("--parallelism", p, reason))
                .map(|s| if s == "inf" { None } else { s.parse().ok() })?,
        };
        let sim = cfg.simulate.unwrap_or_default();
        let surrogate = Surrogate::Affine {
            fixed_ms: self.fixed_ms.unwrap_or(sim.first_byte_ms),
            per_mib_ms: self.per_mib_ms.unwrap_or(sim.per_mib_ms),
        };
        surrogate.validate()?;
        if self.nprobe == 0 || self.k == 0 {
            return Err(Error::config(
                if self.k == 0 { "--k" } else { "--nprobe" },
                0,
                "must be >= 1",
            ));
        }
        if self.k_max == Some(0) {
            return Err(Error::config("--k-max", 0, "must be >= 1"));
        }
        Ok(SearchParams {
            k: self.k,
            nprobe: self.nprobe,
            method,
            k_max: self.k_max,
            parallelism,
            surrogate,
            epsilon: self.epsilon,
            rerank: self.rerank,
            explain: false,
        })
    }
}

/// Arguments of `warp query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Index and search options.
    #[command(flatten)]
    pub search: SearchOpts,
    /// One query vector, comma-separated.
    #[arg(long, conflicts_with_all = ["queries", "query_index"])]
    pub vector: Option<String>,
    /// A file of query vectors (.fvecs, .bvecs, .ivecs, .npy); one JSON object per query.
    /// A query that fails prints {"query": i, "error": "…"} and the others go on;
    /// the exit code is 2 if any failed.
    #[arg(long, conflicts_with = "query_index")]
    pub queries: Option<PathBuf>,
    /// Query number N of the query set stored with the index (default 0).
    #[arg(long)]
    pub query_index: Option<usize>,
    /// Planning method: warp, separate, lance_rule, object_store_rule, coalesce:GAP[:SPAN], min_w, min_b, frontier, lagrangian, exact.
    #[arg(long, alias = "policy", default_value = "warp", value_parser = parse_method)]
    pub method: Method,
    /// Also print the probe intervals and the plan (the `warp plan` instance and plan JSON).
    #[arg(long)]
    pub explain: bool,
    /// Largest --queries file, bytes (K/M/G suffix allowed). Default: $WARP_MAX_DATA_BYTES or 3/4 of memory.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_data_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The JSON object of query number `i` answered by `planner`.
pub fn result_json(i: usize, r: &SearchResult, planner: &str) -> Value {
    let mut v = json!({
        "query": i,
        "neighbors": r.neighbors.iter().map(|n| json!({"id": n.id, "distance": n.distance})).collect::<Vec<_>>(),
        "stats": {
            "probes": r.stats.probes, "cache_hits": r.stats.cache_hits, "gets": r.stats.gets,
            "bytes": r.stats.bytes, "overfetch_bytes": r.stats.overfetch_bytes,
            "plan_us": r.stats.plan_us, "planner": planner,
        },
    });
    if !r.explain.is_empty() {
        v["explain"] = r
            .explain
            .iter()
            .map(|e| {
                let key = if e.stage == "payload" { "lists" } else { "rows" };
                json!({"stage": e.stage, key: e.items, "instance": e.doc["instance"], "plan": e.doc["plan"]})
            })
            .collect();
    }
    v
}

/// Parses `--vector`: comma-separated finite numbers.
///
/// # Errors
/// [`Error::Config`] on `--vector` naming the bad value.
pub fn parse_vector(v: &str) -> Result<Vec<f32>> {
    v.split(',')
        .map(|x| {
            x.trim()
                .parse::<f32>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    Error::config(
                        "--vector",
                        one_line(x),
                        "expected comma-separated finite numbers",
                    )
                })
        })
        .collect()
}

/// Runs `warp query`.
///
/// # Errors
/// Bad arguments, store, index, planner and checksum errors; for a batch,
/// [`Error::Input`] after the last query when any query failed.
pub fn execute(args: &QueryArgs) -> Result<()> {
    let mut cfg = args.search.config(None)?;
    if let Some(b) = args.max_data_bytes {
        cfg.limits.data_bytes = b;
    }
    let mut params = args.search.params_for(&cfg, args.method, 1)?;
    params.explain = args.explain;
    if let Some(path) = &args.queries {
        check_file(path, "--queries", cfg.limits.data_bytes, RAISE_DATA)?;
    }
    let vector = args.vector.as_deref().map(parse_vector).transpose()?;
    let mut out = Output::stdout(args.output.pretty)?;
    runtime()?.block_on(async {
        let (searcher, planner) =
            open_searcher(&cfg, args.search.preload, args.search.read_config()).await?;
        if let Some(s) = args.search.manifest_surrogate(searcher.index())? {
            params.surrogate = s;
        }
        let dim = searcher.index().manifest.dim;
        // The queries and the number of the first one.
        let (queries, first): (Vec<f32>, usize) = if let Some(v) = vector {
            (v, 0)
        } else if let Some(path) = &args.queries {
            let (q, d) = crate::formats::read_vectors(path)?;
            if d != dim {
                return Err(Error::input(format!(
                    "{}: queries have dimension {d}, the index has {dim}",
                    path.display()
                )));
            }
            (q, 0)
        } else {
            let i = args.query_index.unwrap_or(0);
            let (q, _) = searcher.index().queries().await?.ok_or_else(|| {
                Error::input("the index stores no queries: pass --vector or --queries")
            })?;
            let nq = q.len() / dim;
            if i >= nq {
                return Err(Error::config(
                    "--query-index",
                    i,
                    format!(
                        "the index stores {nq} queries (0..={})",
                        nq.saturating_sub(1)
                    ),
                ));
            }
            (q[i * dim..(i + 1) * dim].to_vec(), i)
        };
        if !queries.len().is_multiple_of(dim) || queries.is_empty() {
            return Err(Error::input(format!(
                "query has {} values, the index has dimension {dim}",
                queries.len()
            )));
        }
        let many = queries.len() > dim;
        let (mut failed, total) = (0usize, queries.len() / dim);
        for (j, q) in queries.chunks_exact(dim).enumerate() {
            let i = first + j;
            let v = match searcher.search(q, &params).await {
                Ok(r) => result_json(i, &r, planner),
                // One query alone fails as the command.
                Err(e) if !many => return Err(e),
                Err(e) => {
                    failed += 1;
                    json!({"query": i, "error": one_line(&e.to_string())})
                }
            };
            if out.json(&v)? == Flow::Stop {
                // The reader went away (`| head`): stop quietly.
                return Ok(());
            }
        }
        out.finish()?;
        if failed > 0 {
            return Err(Error::input(format!(
                "{failed} of {total} queries failed (each error is in its output object)"
            )));
        }
        Ok(())
    })
}
