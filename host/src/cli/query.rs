//! `warp query`: answer one query or a file of them, as JSON.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use planner_core::Surrogate;
use serde_json::{Value, json};

use crate::config::{HostConfig, HostConfigBuilder, PlannerKind};
use crate::error::{Error, Result};
use crate::query::{
    BackendFactory, Index, SearchParams, SearchResult, Searcher, native_factory, parse_policy,
};
use crate::store::{self, SimulateConfig};

/// Options shared by `warp query` and `warp bench`.
#[derive(Debug, Clone, Args)]
pub struct SearchOpts {
    /// Index location: a path, file:///dir, memory://name or s3://bucket/prefix
    /// (S3 endpoint, region and keys from the AWS_* variables). Default: $WARP_URL or ./warp-index.
    #[arg(long)]
    pub url: Option<String>,
    /// Lists probed per query (faiss nprobe).
    #[arg(long, default_value_t = 16)]
    pub nprobe: usize,
    /// Neighbours returned.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Request budget K_max per planned fetch (default: one per interval).
    #[arg(long)]
    pub k_max: Option<usize>,
    /// Expected request parallelism P of one query (default: io_slots / Q, at least 1; "inf" for unbounded).
    #[arg(long)]
    pub parallelism: Option<String>,
    /// Global limit on concurrent GETs (default: $WARP_IO_SLOTS or 64).
    #[arg(long)]
    pub io_slots: Option<usize>,
    /// Payload cache capacity, MiB; 0 disables (default: $WARP_CACHE_BYTES or 64 MiB for query, 0 for bench).
    #[arg(long)]
    pub cache_mib: Option<u64>,
    /// Simulate S3 latency on every GET: "s3" or "none" (default: $WARP_SIMULATE or none).
    #[arg(long)]
    pub simulate: Option<String>,
    /// Simulated S3: first-byte latency of a tiny GET, ms (default 25).
    #[arg(long)]
    pub sim_first_byte_ms: Option<f64>,
    /// Simulated S3: extra latency per MiB, ms (default 5).
    #[arg(long)]
    pub sim_per_mib_ms: Option<f64>,
    /// Simulated S3: bandwidth of the link shared by all GETs, MiB/s; 0 = unlimited (default 4096).
    #[arg(long)]
    pub sim_link_mib_s: Option<f64>,
    /// Simulated S3: probability of a long-tail GET (default 0.02).
    #[arg(long)]
    pub sim_tail: Option<f64>,
    /// Plan with planner-core compiled into the host instead of the component.
    #[arg(long)]
    pub native: bool,
    /// Copy the index into memory first, so reading the (simulated) store costs
    /// no CPU of this machine; use with --simulate for benchmarks.
    #[arg(long)]
    pub preload: bool,
    /// IVF-PQ: rerank the best k*RERANK ADC candidates exactly (0: no rerank).
    #[arg(long, default_value_t = 4)]
    pub rerank: usize,
    /// Surrogate fixed cost per request, ms (default 25, or the simulation's).
    #[arg(long)]
    pub fixed_ms: Option<f64>,
    /// Surrogate cost per MiB, ms (default 5, or the simulation's).
    #[arg(long)]
    pub per_mib_ms: Option<f64>,
    /// Tolerance of the warp planner.
    #[arg(long, default_value_t = 0.01)]
    pub epsilon: f64,
}

impl SearchOpts {
    /// The host configuration: environment, then these flags.
    ///
    /// # Errors
    /// An invalid setting.
    pub fn config(&self, default_cache: Option<u64>) -> Result<HostConfig> {
        let mut b = HostConfigBuilder::from_env();
        if let Some(c) = default_cache
            && std::env::var("WARP_CACHE_BYTES").is_err()
        {
            b = b.with_cache_bytes(c);
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
        let sim_set = [
            self.sim_first_byte_ms,
            self.sim_per_mib_ms,
            self.sim_link_mib_s,
            self.sim_tail,
        ];
        if sim_set.iter().any(Option::is_some) {
            let base = b.simulate().unwrap_or_default();
            b = b.with_simulate(Some(SimulateConfig {
                first_byte_ms: self.sim_first_byte_ms.unwrap_or(base.first_byte_ms),
                per_mib_ms: self.sim_per_mib_ms.unwrap_or(base.per_mib_ms),
                link_mib_per_s: self.sim_link_mib_s.unwrap_or(base.link_mib_per_s),
                tail_probability: self.sim_tail.unwrap_or(base.tail_probability),
                ..base
            }));
        }
        if self.native {
            b = b.with_planner(PlannerKind::Native);
        }
        b.build()
    }

    /// Search parameters for query concurrency `q`.
    ///
    /// # Errors
    /// [`Error::Config`] for a bad P, policy or surrogate.
    pub fn params(&self, cfg: &HostConfig, policy: &str, q: usize) -> Result<SearchParams> {
        let parallelism = match self.parallelism.as_deref() {
            None => Some((cfg.io_slots as f64 / q.max(1) as f64).max(1.0)),
            Some("inf") => None,
            Some(p) => Some(
                p.parse::<f64>()
                    .ok()
                    .filter(|p| p.is_finite() && *p >= 1.0)
                    .ok_or_else(|| {
                        Error::config("--parallelism", p, "expected a number >= 1 or inf")
                    })?,
            ),
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
            method: parse_policy(policy)?,
            k_max: self.k_max,
            parallelism,
            surrogate,
            epsilon: self.epsilon,
            rerank: self.rerank,
            explain: false,
        })
    }
}

/// The planner factory for `kind`.
///
/// # Errors
/// [`Error::Planner`] when the component cannot be loaded.
pub fn backend_factory(kind: PlannerKind) -> Result<(BackendFactory, &'static str)> {
    match kind {
        PlannerKind::Native => Ok((native_factory(), "native")),
        PlannerKind::Component => Ok((crate::query::component_factory()?, "component")),
    }
}

/// Opens the index of `cfg` (with simulation if configured) and a searcher.
///
/// # Errors
/// Store, index and planner errors.
pub async fn open_searcher(
    cfg: &HostConfig,
    preload: bool,
) -> Result<(Arc<Searcher>, &'static str)> {
    let mut loc = store::open_existing(&cfg.url)?;
    if preload {
        loc = store::preload(&loc).await?;
    }
    if let Some(sim) = cfg.simulate {
        loc = loc.simulated(sim);
    }
    let index = Arc::new(Index::open(loc).await?);
    let (factory, name) = backend_factory(cfg.planner)?;
    Ok((
        Arc::new(Searcher::new(index, cfg.io_slots, cfg.cache_bytes, factory)),
        name,
    ))
}

/// A tokio runtime for a command.
///
/// # Errors
/// [`Error::Io`] when the runtime cannot start.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            path: "tokio runtime".into(),
            source,
        })
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
    /// A file of query vectors (.fvecs, .bvecs, .ivecs, .npy); one JSON line per query.
    #[arg(long, conflicts_with = "query_index")]
    pub queries: Option<PathBuf>,
    /// Query number N of the query set stored with the index (default 0).
    #[arg(long)]
    pub query_index: Option<usize>,
    /// Planning policy: separate, lance_rule, object_store_rule, coalesce:GAP, warp.
    #[arg(long, default_value = "warp")]
    pub policy: String,
    /// Also print the probe intervals and the plan (DESIGN §5 instance and plan).
    #[arg(long)]
    pub explain: bool,
}

fn result_json(i: usize, r: &SearchResult, planner: &str) -> Value {
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

/// Runs `warp query`.
///
/// # Errors
/// Bad arguments, store, index, planner and checksum errors.
pub fn execute(args: &QueryArgs) -> Result<()> {
    let cfg = args.search.config(None)?;
    let mut params = args.search.params(&cfg, &args.policy, 1)?;
    params.explain = args.explain;
    runtime()?.block_on(async {
        let (searcher, planner) = open_searcher(&cfg, args.search.preload).await?;
        let dim = searcher.index().manifest.dim;
        let queries: Vec<f32> = if let Some(v) = &args.vector {
            v.split(',')
                .map(|x| {
                    x.trim().parse::<f32>().map_err(|_| {
                        Error::config("--vector", x, "expected comma-separated numbers")
                    })
                })
                .collect::<Result<_>>()?
        } else if let Some(path) = &args.queries {
            let (q, d) = crate::formats::read_vectors(path)?;
            if d != dim {
                return Err(Error::input(format!(
                    "{}: queries have dimension {d}, the index has {dim}",
                    path.display()
                )));
            }
            q
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
                    format!("the index stores {nq} queries"),
                ));
            }
            q[i * dim..(i + 1) * dim].to_vec()
        };
        if !queries.len().is_multiple_of(dim) || queries.is_empty() {
            return Err(Error::input(format!(
                "query has {} values, the index has dimension {dim}",
                queries.len()
            )));
        }
        let many = queries.len() > dim;
        let mut out = std::io::stdout().lock();
        for (i, q) in queries.chunks_exact(dim).enumerate() {
            let r = searcher.search(q, &params).await?;
            let v = result_json(i, &r, planner);
            let text = if many {
                serde_json::to_string(&v)
            } else {
                serde_json::to_string_pretty(&v)
            };
            match writeln!(out, "{}", text.unwrap_or_default()) {
                Ok(()) => {}
                // The reader went away (`| head`): stop quietly.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                Err(source) => {
                    return Err(Error::Io {
                        path: "stdout".into(),
                        source,
                    });
                }
            }
        }
        Ok(())
    })
}
