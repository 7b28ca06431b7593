//! `warp reorder`: compute a cluster payload layout from IVF centroids (and an
//! optional query log) and judge it by the co-access gap and the plans it
//! leads to.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use planner_core::Method;
use planner_core::reorder::{
    Layout, LogPlanSettings, LogPlanTotals, ReorderInput, coaccess_gap, plan_log, reorder,
};
use serde_json::{Value, json};

use crate::formats::{read_ivecs, read_vectors};

/// Payload bytes assumed per cluster when `--sizes` is omitted (1 MiB).
pub const DEFAULT_CLUSTER_BYTES: u64 = 1 << 20;

/// Arguments of `warp reorder`.
#[derive(Debug, Args)]
pub struct ReorderArgs {
    /// IVF centroids, one per cluster in list_no order (.fvecs; also .bvecs,
    /// .ivecs or .npy).
    #[arg(long)]
    pub centroids: PathBuf,
    /// Payload bytes per cluster: one unsigned integer per line, line i for
    /// cluster i (blank lines are skipped). Default: every payload 1 MiB.
    #[arg(long)]
    pub sizes: Option<PathBuf>,
    /// Query log: one query per line, its probed cluster ids separated by
    /// spaces (an empty line is a query probing nothing), or an .ivecs file
    /// with one probe set per vector.
    #[arg(long)]
    pub query_log: Option<PathBuf>,
    /// Layout method: identity, random, pca_1d, pca_zorder, pca_hilbert, spectral.
    #[arg(long, default_value = "pca_zorder")]
    pub method: String,
    /// PCA dimensions m of pca_zorder and pca_hilbert (default 5).
    #[arg(long)]
    pub dims: Option<u32>,
    /// Seed of random and spectral (default 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// K_max of the plans made for each query of the log.
    #[arg(long, default_value_t = 16)]
    pub k_max: usize,
    /// Expected request parallelism P of the plans (S3 surrogate: 25 ms + 5 ms/MiB).
    #[arg(long, default_value_t = 8.0)]
    pub parallelism: f64,
    /// Pretty-print the JSON.
    #[arg(long)]
    pub pretty: bool,
}

/// Parses the `--method`, `--dims` and `--seed` flags into a [`Layout`].
///
/// # Errors
/// An unknown method, or `--dims`/`--seed` given to a method without that
/// parameter.
pub fn layout_from_args(args: &ReorderArgs) -> anyhow::Result<Layout> {
    let mut layout = Layout::from_name(&args.method).with_context(|| {
        format!(
            "--method: unknown method {:?} (expected one of {})",
            args.method,
            Layout::NAMES.join(", ")
        )
    })?;
    if let Some(dims) = args.dims {
        layout = layout
            .with_dims(dims)
            .with_context(|| format!("--dims: the {} layout has no PCA dimensions", args.method))?;
    }
    if let Some(seed) = args.seed {
        layout = layout
            .with_seed(seed)
            .with_context(|| format!("--seed: the {} layout takes no seed", args.method))?;
    }
    Ok(layout)
}

/// Reads a sizes file: one unsigned integer per non-blank line.
///
/// # Errors
/// An unreadable file, or a line that is not an unsigned 64-bit integer
/// (named by its 1-based number).
pub fn read_sizes(path: &Path) -> anyhow::Result<Vec<u64>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--sizes: reading {}", path.display()))?;
    let mut sizes = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let v = line.parse::<u64>().map_err(|_| {
            anyhow::anyhow!(
                "--sizes: {} line {}: {line:?} is not an unsigned integer byte count",
                path.display(),
                i + 1
            )
        })?;
        sizes.push(v);
    }
    Ok(sizes)
}

/// Reads a query log into CSR form `(probes, probe_offsets)`: text (one query
/// per line, space-separated ids) or `.ivecs` (one query per vector).
///
/// # Errors
/// An unreadable or malformed file (naming the line or vector), a negative
/// id, or more than `u32::MAX` probes.
pub fn read_query_log(path: &Path) -> anyhow::Result<(Vec<u32>, Vec<u32>)> {
    let mut probes = Vec::new();
    let mut offsets = vec![0u32];
    let too_many = || anyhow::anyhow!("--query-log: more than {} probes", u32::MAX);
    if path.extension().and_then(|e| e.to_str()) == Some("ivecs") {
        let (ids, dim) = read_ivecs(path).map_err(|e| anyhow::anyhow!("--query-log: {e}"))?;
        for (q, row) in ids.chunks_exact(dim).enumerate() {
            for &id in row {
                let id = u32::try_from(id).map_err(|_| {
                    anyhow::anyhow!(
                        "--query-log: {} vector {q}: cluster id {id} is negative",
                        path.display()
                    )
                })?;
                probes.push(id);
            }
            offsets.push(u32::try_from(probes.len()).map_err(|_| too_many())?);
        }
        return Ok((probes, offsets));
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--query-log: reading {}", path.display()))?;
    for (i, line) in text.lines().enumerate() {
        for tok in line.split_whitespace() {
            let id = tok.parse::<u32>().map_err(|_| {
                anyhow::anyhow!(
                    "--query-log: {} line {}: {tok:?} is not a cluster id",
                    path.display(),
                    i + 1
                )
            })?;
            probes.push(id);
        }
        offsets.push(u32::try_from(probes.len()).map_err(|_| too_many())?);
    }
    Ok((probes, offsets))
}

/// The JSON of one layout's plan totals.
fn totals_json(t: &LogPlanTotals) -> anyhow::Result<Value> {
    let q = t.queries.max(1) as f64;
    let bytes = u64::try_from(t.bytes).context("plans: byte total overflows u64")?;
    let overfetch = u64::try_from(t.overfetch_bytes).context("plans: overfetch overflows u64")?;
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

/// Computes the layout and prints `{"method", "dims", "seed", "clusters",
/// "dim", "queries", "order", "weighted_gap", "identity_gap", "plans",
/// "reorder_ms"}` as JSON (README, `warp reorder`).
///
/// # Errors
/// Unreadable or malformed files, bad flags, or the reorder error naming the
/// field (e.g. `probes: query 3 probes cluster 1024, but there are only 1024
/// clusters`).
pub fn execute(args: &ReorderArgs) -> anyhow::Result<()> {
    let layout = layout_from_args(args)?;
    if args.k_max == 0 {
        bail!("--k-max: must be >= 1");
    }
    if !(args.parallelism.is_finite() && args.parallelism >= 1.0) {
        bail!(
            "--parallelism: must be a finite number >= 1, got {}",
            args.parallelism
        );
    }
    let (centroids, dim) =
        read_vectors(&args.centroids).map_err(|e| anyhow::anyhow!("--centroids: {e}"))?;
    let clusters = centroids.len() / dim.max(1);
    let sizes = match &args.sizes {
        Some(p) => read_sizes(p)?,
        None => vec![DEFAULT_CLUSTER_BYTES; clusters],
    };
    let (probes, offsets) = match &args.query_log {
        Some(p) => read_query_log(p)?,
        None => (Vec::new(), Vec::new()),
    };
    let input = ReorderInput {
        centroids: &centroids,
        dim,
        sizes: &sizes,
        probes: &probes,
        probe_offsets: &offsets,
    };
    let started = Instant::now();
    let order = reorder(&input, &layout)?;
    let reorder_ms = started.elapsed().as_secs_f64() * 1e3;
    let identity: Vec<u32> = (0..clusters as u32).collect();
    let has_log = offsets.len() >= 2;
    let (gap, identity_gap, plans) = if has_log {
        let gap = coaccess_gap(&order, &sizes, &probes, &offsets)?;
        let identity_gap = coaccess_gap(&identity, &sizes, &probes, &offsets)?;
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
                let t = plan_log(o, &sizes, &probes, &offsets, &settings)?;
                per_method.insert(method.name().to_string(), totals_json(&t)?);
            }
            plans.insert(name.to_string(), Value::Object(per_method));
        }
        (json!(gap), json!(identity_gap), Value::Object(plans))
    } else {
        (Value::Null, Value::Null, Value::Null)
    };
    let out = json!({
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
    if args.pretty {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{out}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner_core::reorder::DEFAULT_DIMS;

    fn args(method: &str) -> ReorderArgs {
        ReorderArgs {
            centroids: PathBuf::from("c.fvecs"),
            sizes: None,
            query_log: None,
            method: method.to_string(),
            dims: None,
            seed: None,
            k_max: 16,
            parallelism: 8.0,
            pretty: false,
        }
    }

    #[test]
    fn flags_become_layouts() {
        assert_eq!(
            layout_from_args(&args("pca_zorder")).unwrap(),
            Layout::PcaZOrder { dims: DEFAULT_DIMS }
        );
        let a = ReorderArgs {
            dims: Some(3),
            ..args("pca_hilbert")
        };
        assert_eq!(
            layout_from_args(&a).unwrap(),
            Layout::PcaHilbert { dims: 3 }
        );
        let a = ReorderArgs {
            seed: Some(7),
            ..args("spectral")
        };
        assert_eq!(layout_from_args(&a).unwrap(), Layout::Spectral { seed: 7 });
        let e = layout_from_args(&ReorderArgs {
            dims: Some(3),
            ..args("pca_1d")
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--dims: the pca_1d layout has no PCA dimensions"
        );
        let e = layout_from_args(&args("zorder")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--method: unknown method \"zorder\"")
        );
    }

    #[test]
    fn text_files_parse_and_errors_name_the_line() {
        let dir = std::env::temp_dir().join(format!("warp-reorder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("log.txt");
        std::fs::write(&log, "0 2 5\n\n3  1\n").unwrap();
        assert_eq!(
            read_query_log(&log).unwrap(),
            (vec![0, 2, 5, 3, 1], vec![0, 3, 3, 5])
        );
        std::fs::write(&log, "0 2\n1 x\n").unwrap();
        let e = read_query_log(&log).unwrap_err().to_string();
        assert!(e.ends_with("line 2: \"x\" is not a cluster id"), "{e}");
        let sizes = dir.join("sizes.txt");
        std::fs::write(&sizes, "10\n 20 \n\n30\n").unwrap();
        assert_eq!(read_sizes(&sizes).unwrap(), vec![10, 20, 30]);
        std::fs::write(&sizes, "10\n-1\n").unwrap();
        let e = read_sizes(&sizes).unwrap_err().to_string();
        assert!(
            e.ends_with("line 2: \"-1\" is not an unsigned integer byte count"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
