//! The index and search flags every searching subcommand shares (`warp
//! query`, `warp bench`): [`SearchOpts`] and the configuration, read policy
//! and search parameters they give.

use std::time::Duration;

use clap::Args;
use clap::builder::RangedI64ValueParser;
use planner_core::{Method, Surrogate};

use super::args::{at_least_one_or_inf, epsilon, latency_ms, parse_method};
use super::simulate_args::SimulateArgs;
use crate::config::{HostConfig, HostConfigBuilder, PlannerKind};
use crate::error::{Error, Result};
use crate::query::{PlanOptions, ReadConfig, SearchParams};

/// Largest `--k` (neighbours returned per query).
pub const MAX_K: u64 = 100_000;
/// Largest `--nprobe`.
pub const MAX_NPROBE: u64 = 1 << 20;
/// Largest `--k-max`.
pub const MAX_K_MAX: u64 = 1 << 20;
/// Largest `--io-slots`: the store's own bound.
pub const MAX_IO_SLOTS: u64 = crate::store::planned::MAX_IO_SLOTS as u64;
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
    #[arg(long, default_value_t = 16, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_NPROBE as i64))]
    pub nprobe: usize,
    /// Neighbours returned, 1..=100000.
    #[arg(long, default_value_t = 10, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_K as i64))]
    pub k: usize,
    /// Request budget K_max per planned fetch, 1..=1048576 (default: one per interval).
    #[arg(long, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_K_MAX as i64))]
    pub k_max: Option<usize>,
    /// Expected request parallelism P of one query, >= 1 or "inf" (default: io_slots / Q, at least 1).
    #[arg(long, value_parser = at_least_one_or_inf)]
    pub parallelism: Option<String>,
    /// Global limit on concurrent GETs, 1..=4096 (default: $WARP_IO_SLOTS or 64).
    #[arg(long, value_parser = RangedI64ValueParser::<usize>::new().range(1..=MAX_IO_SLOTS as i64))]
    pub io_slots: Option<usize>,
    /// Payload cache capacity, MiB; 0 disables; at most the memory limit (default: $WARP_CACHE_BYTES or 64 MiB for query, 0 for bench).
    #[arg(long, value_parser = RangedI64ValueParser::<u64>::new().range(0..=(1 << 30)))]
    pub cache_mib: Option<u64>,
    /// The simulated-S3 flags (`--simulate s3`, `--sim-*`).
    #[command(flatten)]
    pub sim: SimulateArgs,
    /// Plan with planner-core compiled into the host instead of the component.
    #[arg(long)]
    pub native: bool,
    /// Copy the index into memory first, so reading the (simulated) store costs
    /// no CPU of this machine; use with --simulate for benchmarks.
    #[arg(long)]
    pub preload: bool,
    /// IVF-PQ: rerank the best k*RERANK ADC candidates exactly, 0..=1000 (0: no rerank).
    #[arg(long, default_value_t = 4, value_parser = RangedI64ValueParser::<usize>::new().range(0..=MAX_RERANK as i64))]
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
    #[arg(long, value_parser = RangedI64ValueParser::<u64>::new().range(1..=3_600_000))]
    pub deadline_ms: Option<u64>,
    /// Abandon and retry once a GET whose body makes no progress for this
    /// long, ms, 1..=600000. Default 10000.
    #[arg(long, value_parser = RangedI64ValueParser::<u64>::new().range(1..=600_000))]
    pub stall_timeout_ms: Option<u64>,
    /// Bytes all queries in progress may hold fetched or in flight at once,
    /// MiB, 1..=1048576 (a query waits for its plan's bytes before its first
    /// GET; one plan larger than this runs alone). Default 4096 or a
    /// quarter of the machine's memory, whichever is less.
    #[arg(long, value_parser = RangedI64ValueParser::<u64>::new().range(1..=1_048_576))]
    pub max_fetch_mib: Option<u64>,
    /// Do not hedge straggling GETs (default: hedge a GET once 3x slower than
    /// the median, at most 5-25% extra GETs following the straggler rate).
    #[arg(long)]
    pub no_hedge: bool,
    /// Fetch every list a query misses itself, even one another query in
    /// progress is already fetching (default: await that read: one GET and
    /// one transfer for both).
    #[arg(long)]
    pub no_share_reads: bool,
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
        b = self.sim.apply(b);
        if self.native {
            b = b.with_planner(PlannerKind::Native);
        }
        b.build()
    }

    /// How the searcher reads: hedging (unless `--no-hedge`), shared reads
    /// (unless `--no-share-reads`), `--deadline-ms`, `--stall-timeout-ms`.
    pub fn read_config(&self) -> ReadConfig {
        let mut read = ReadConfig::default();
        if self.no_hedge {
            read.hedge = None;
        }
        read.share_reads = !self.no_share_reads;
        read.deadline = self.deadline_ms.map(Duration::from_millis);
        if let Some(ms) = self.stall_timeout_ms {
            read.stall_timeout = Duration::from_millis(ms);
        }
        if let Some(mib) = self.max_fetch_mib {
            read.fetch_budget = mib << 20;
        }
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
            None => Some(planner_core::Parallelism::per_call(cfg.io_slots, q)),
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
            plan: PlanOptions {
                method,
                k_max: self.k_max,
                parallelism,
                surrogate,
                load_aware: !self.surrogate_fixed(),
                epsilon: self.epsilon,
            },
            rerank: self.rerank,
            explain: false,
        })
    }
}
