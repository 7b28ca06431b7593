//! `warp reorder`: compute a cluster payload layout from IVF centroids (and an
//! optional query log) and judge it by the co-access gap and the plans it
//! leads to. The centroids and payload sizes come from files
//! (`--centroids`, `--sizes`) or from a built index (`--url`).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use clap::builder::RangedI64ValueParser;
use planner_core::Method;
use planner_core::reorder::{
    Layout, LogPlanSettings, LogPlanTotals, ReorderInput, coaccess_gap, plan_log, reorder,
};
use serde_json::{Value, json};

use super::args::{OutputArgs, at_least_one, parse_bytes_nonzero, parse_layout};
use crate::config::{HostConfigBuilder, InputLimits};
use crate::dataset::RAISE_DATA;
use crate::error::{Error, Result};
use crate::formats::read_vectors;
use crate::formats::reorder_input::{read_query_log, read_sizes};
use crate::input::check_file;
use crate::output::Output;
use crate::query::Index;
use crate::search::runtime;
use crate::store;

/// Payload bytes assumed per cluster when `--sizes` is omitted (1 MiB).
pub const DEFAULT_CLUSTER_BYTES: u64 = 1 << 20;

/// Arguments of `warp reorder`.
#[derive(Debug, Args)]
pub struct ReorderArgs {
    /// IVF centroids, one per cluster in list_no order (.fvecs; also .bvecs,
    /// .ivecs or .npy).
    #[arg(long, required_unless_present = "url", conflicts_with = "url")]
    pub centroids: Option<PathBuf>,
    /// A built index (path, file://, memory:// or s3:// URL): its centroids
    /// and payload sizes are read from its manifest.
    #[arg(long, conflicts_with = "sizes")]
    pub url: Option<String>,
    /// Payload bytes per cluster: one unsigned integer per line, line i for
    /// cluster i (blank lines are skipped). Default: every payload 1 MiB.
    #[arg(long)]
    pub sizes: Option<PathBuf>,
    /// Query log: one query per line, its probed cluster ids separated by
    /// spaces (an empty line is a query probing nothing), or an .ivecs file
    /// with one probe set per vector.
    #[arg(long)]
    pub query_log: Option<PathBuf>,
    /// Payload layout: identity, random, random:SEED, pca_1d, pca_zorder, pca_zorder:DIMS, pca_hilbert, pca_hilbert:DIMS, spectral, spectral:SEED, greedy_tour.
    #[arg(long, default_value = "pca_zorder", value_parser = parse_layout)]
    pub layout: Layout,
    /// K_max of the plans made for each query of the log, 1..=1048576.
    #[arg(long, default_value_t = 16, value_parser = RangedI64ValueParser::<usize>::new().range(1..=(1 << 20)))]
    pub k_max: usize,
    /// Expected request parallelism P of the plans, >= 1 (S3 surrogate: 25 ms + 5 ms/MiB).
    #[arg(long, default_value_t = 8.0, value_parser = at_least_one)]
    pub parallelism: f64,
    /// Largest --sizes or text --query-log file, bytes (K/M/G suffix allowed). Default: $WARP_MAX_INPUT_BYTES or 64M.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_input_bytes: Option<u64>,
    /// Largest vector file (--centroids, .ivecs --query-log), bytes. Default: $WARP_MAX_DATA_BYTES or 3/4 of memory.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_data_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl ReorderArgs {
    /// The limits: environment, then these flags.
    ///
    /// # Errors
    /// An invalid `WARP_*` value.
    pub fn limits(&self) -> Result<InputLimits> {
        let mut b = HostConfigBuilder::from_env();
        if let Some(v) = self.max_input_bytes {
            b = b.with_max_input_bytes(v);
        }
        if let Some(v) = self.max_data_bytes {
            b = b.with_max_data_bytes(v);
        }
        Ok(b.build()?.limits)
    }
}

/// The JSON of one layout's plan totals.
fn totals_json(t: &LogPlanTotals) -> Result<Value> {
    let q = t.queries.max(1) as f64;
    let bytes =
        u64::try_from(t.bytes).map_err(|_| Error::input("plans: byte total overflows u64"))?;
    let overfetch = u64::try_from(t.overfetch_bytes)
        .map_err(|_| Error::input("plans: overfetch overflows u64"))?;
    Ok(json!({
        "queries": t.queries,
        "gets": t.requests,
        "bytes": bytes,
        "overfetch_bytes": overfetch,
        "t_ms": t.t_ms,
        "mean_gets": t.requests as f64 / q,
        "mean_bytes": t.bytes as f64 / q,
        "mean_t_ms": t.t_ms / q,
    }))
}

/// The centroids (`C × dim`), their dimension and the payload sizes: from
/// the files, or from the index at `--url`.
fn clusters(args: &ReorderArgs, limits: &InputLimits) -> Result<(Vec<f32>, usize, Vec<u64>)> {
    if let Some(url) = &args.url {
        let loc = store::open_existing(url)?;
        let index = runtime()?.block_on(Index::open(loc))?;
        let sizes = index.manifest.lists.iter().map(|l| l.len).collect();
        return Ok((index.centroids, index.manifest.dim, sizes));
    }
    let Some(path) = &args.centroids else {
        return Err(Error::input("--centroids or --url: give one"));
    };
    check_file(path, "--centroids", limits.data_bytes, RAISE_DATA)?;
    let (centroids, dim) =
        read_vectors(path).map_err(|e| Error::input(format!("--centroids: {e}")))?;
    let clusters = centroids.len() / dim.max(1);
    let sizes = match &args.sizes {
        Some(p) => read_sizes(p, limits.input_bytes)?,
        None => vec![DEFAULT_CLUSTER_BYTES; clusters],
    };
    Ok((centroids, dim, sizes))
}

/// Computes the layout and prints `{"layout", "method", "dims", "seed",
/// "clusters", "dim", "queries", "order", "weighted_gap", "identity_gap",
/// "plans", "reorder_ms"}` as JSON (README, `warp reorder`).
///
/// # Errors
/// Unreadable, too large or malformed files, an index that cannot be
/// opened, or the reorder error naming the field (e.g. `probes: query 3
/// probes cluster 1024, but there are only 1024 clusters`).
pub fn execute(args: &ReorderArgs) -> Result<()> {
    let limits = args.limits()?;
    let layout = args.layout;
    let mut out = Output::stdout(args.output.pretty)?;
    let (centroids, dim, sizes) = clusters(args, &limits)?;
    let clusters = centroids.len() / dim.max(1);
    let (probes, offsets) = match &args.query_log {
        Some(p) => read_query_log(p, &limits)?,
        None => (Vec::new(), Vec::new()),
    };
    let input = ReorderInput {
        centroids: &centroids,
        dim,
        sizes: &sizes,
        probes: &probes,
        probe_offsets: &offsets,
    };
    let bad = |e: planner_core::reorder::ReorderError| Error::input(e.to_string());
    let started = Instant::now();
    let order = reorder(&input, &layout).map_err(bad)?;
    let reorder_ms = started.elapsed().as_secs_f64() * 1e3;
    let identity: Vec<u32> = (0..clusters as u32).collect();
    let has_log = offsets.len() >= 2;
    let (gap, identity_gap, plans) = if has_log {
        let gap = coaccess_gap(&order, &sizes, &probes, &offsets).map_err(bad)?;
        let identity_gap = coaccess_gap(&identity, &sizes, &probes, &offsets).map_err(bad)?;
        let mut plans = serde_json::Map::new();
        for (name, o) in [("layout", &order), ("identity", &identity)] {
            let mut per_method = serde_json::Map::new();
            for method in [Method::Warp, Method::LanceRule] {
                let settings = LogPlanSettings {
                    method,
                    k_max: args.k_max,
                    parallelism: Some(args.parallelism),
                    ..LogPlanSettings::default()
                };
                let t = plan_log(o, &sizes, &probes, &offsets, &settings).map_err(bad)?;
                per_method.insert(method.name().to_string(), totals_json(&t)?);
            }
            plans.insert(name.to_string(), Value::Object(per_method));
        }
        (json!(gap), json!(identity_gap), Value::Object(plans))
    } else {
        (Value::Null, Value::Null, Value::Null)
    };
    let doc = json!({
        "layout": super::args::layout_name(&layout),
        "method": layout.name(),
        "dims": layout.dims(),
        "seed": layout.seed(),
        "clusters": clusters,
        "dim": dim,
        "queries": offsets.len().saturating_sub(1),
        "order": order,
        "weighted_gap": gap,
        "identity_gap": identity_gap,
        "plans": plans,
        "reorder_ms": reorder_ms,
    });
    let _ = out.json(&doc)?;
    out.finish()
}
