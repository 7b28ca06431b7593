//! `warp tune-greedy`: tune the fixed gap/span coalescing rule by grid search
//! on a validation workload, then run the shift study (seed summary §7.2; see
//! [`crate::calibrate::greedy`]).

use std::path::PathBuf;

use clap::Args;

use super::args::parse_request_size;
use crate::error::{Error, Result};

/// Arguments of `warp tune-greedy`: tune the fixed coalescing rule on a
/// synthetic validation workload and run the shift study (plan totals from
/// planner-core over the probe logs; no store is read).
#[derive(Debug, Args)]
pub struct TuneGreedyArgs {
    /// Clusters (nlist) of the synthetic workload.
    #[arg(long, default_value_t = 1024)]
    pub clusters: usize,
    /// Vector dimension of the synthetic centroids and queries.
    #[arg(long, default_value_t = 128)]
    pub dim: usize,
    /// Queries in each probe log.
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// nprobe of the validation workload.
    #[arg(long, default_value_t = 10)]
    pub nprobe: usize,
    /// nprobe of the shifted workloads.
    #[arg(long, default_value_t = 32)]
    pub shift_nprobe: usize,
    /// Layout of the validation workload (identity, pca_zorder, pca_hilbert, pca_1d, spectral, random).
    #[arg(long, default_value = "pca_zorder")]
    pub layout: String,
    /// Layout of the locality-shifted workloads.
    #[arg(long, default_value = "identity")]
    pub shift_layout: String,
    /// Mean payload bytes per cluster.
    #[arg(long, default_value = "256K")]
    pub mean_size: String,
    /// Expected request parallelism P of the plans.
    #[arg(long, default_value_t = 8.0)]
    pub parallelism: f64,
    /// Surrogate file (DESIGN §5 form, e.g. from `warp calibrate --out`); default the S3 affine 25 ms + 5 ms/MiB.
    #[arg(long)]
    pub surrogate: Option<PathBuf>,
    /// Seed of the validation dataset; the "other dataset" uses seed + 1 and a different mixture.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// Bounds of `warp tune-greedy`.
const TUNE_MAX_CLUSTERS: usize = 1 << 16;
const TUNE_MAX_DIM: usize = 1024;
const TUNE_MAX_QUERIES: usize = 100_000;
const TUNE_MAX_WORK: f64 = 2e10;

/// Runs `warp tune-greedy`.
///
/// # Errors
/// Bad arguments (one line, before any work) and planner errors.
pub fn execute(args: &TuneGreedyArgs) -> Result<()> {
    use crate::calibrate::greedy::{LogRef, coalesce_name, default_grid, evaluate, tune_greedy};
    use planner_core::Method;
    use planner_core::reorder::{Layout, LogPlanSettings, SyntheticParams, clustered, reorder};

    let layout = |name: &str, flag: &str| {
        Layout::from_name(name).ok_or_else(|| {
            Error::config(
                flag,
                name,
                format!("expected one of {}", Layout::NAMES.join(", ")),
            )
        })
    };
    let (val_layout, shift_layout) = (
        layout(&args.layout, "--layout")?,
        layout(&args.shift_layout, "--shift-layout")?,
    );
    if !(1..=TUNE_MAX_CLUSTERS).contains(&args.clusters) {
        return Err(Error::config(
            "--clusters",
            args.clusters,
            format!("expected 1 to {TUNE_MAX_CLUSTERS}"),
        ));
    }
    if !(1..=TUNE_MAX_DIM).contains(&args.dim) {
        return Err(Error::config(
            "--dim",
            args.dim,
            format!("expected 1 to {TUNE_MAX_DIM}"),
        ));
    }
    if !(1..=TUNE_MAX_QUERIES).contains(&args.queries) {
        return Err(Error::config(
            "--queries",
            args.queries,
            format!("expected 1 to {TUNE_MAX_QUERIES}"),
        ));
    }
    for (flag, v) in [
        ("--nprobe", args.nprobe),
        ("--shift-nprobe", args.shift_nprobe),
    ] {
        if v == 0 || v > args.clusters {
            return Err(Error::config(flag, v, "expected 1 to --clusters"));
        }
    }
    let work = args.queries as f64 * args.clusters as f64 * args.dim as f64 * 3.0;
    if work > TUNE_MAX_WORK {
        return Err(Error::config(
            "--queries",
            args.queries,
            "queries x clusters x dim is too large (bound 6.7e9)",
        ));
    }
    if !(args.parallelism.is_finite() && args.parallelism >= 1.0) {
        return Err(Error::config(
            "--parallelism",
            args.parallelism,
            "expected a number >= 1",
        ));
    }
    let mean_size = parse_request_size(&args.mean_size)
        .map_err(|reason| Error::config("--mean-size", &args.mean_size, reason))?;
    let surrogate = match &args.surrogate {
        None => planner_core::Surrogate::S3,
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|source| Error::Io {
                path: p.display().to_string(),
                source,
            })?;
            let spec: crate::calibrate::SurrogateSpec =
                serde_json::from_str(text.trim()).map_err(|e| {
                    Error::config(
                        "--surrogate",
                        p.display(),
                        format!("not a DESIGN §5 surrogate: {e}"),
                    )
                })?;
            spec.to_surrogate()?
        }
    };
    let params = |nprobe: usize, other: bool| SyntheticParams {
        clusters: args.clusters,
        dim: args.dim,
        queries: args.queries,
        nprobe,
        mean_size,
        seed: if other { args.seed + 1 } else { args.seed },
        groups: if other { 64 } else { 16 },
        spread: if other { 0.3 } else { 0.5 },
        ..SyntheticParams::default()
    };
    let cases = [
        (
            "validation",
            params(args.nprobe, false),
            val_layout,
            args.nprobe,
        ),
        (
            "locality shift",
            params(args.nprobe, false),
            shift_layout,
            args.nprobe,
        ),
        (
            "nprobe shift",
            params(args.shift_nprobe, false),
            val_layout,
            args.shift_nprobe,
        ),
        (
            "both",
            params(args.shift_nprobe, false),
            shift_layout,
            args.shift_nprobe,
        ),
        (
            "other dataset",
            params(args.nprobe, true),
            val_layout,
            args.nprobe,
        ),
    ];
    let base = |nprobe: usize| LogPlanSettings {
        k_max: nprobe,
        parallelism: Some(args.parallelism),
        surrogate: surrogate.clone(),
        ..LogPlanSettings::default()
    };
    let mut rows = Vec::new();
    let mut tuned: Option<Method> = None;
    for (name, p, lay, nprobe) in cases {
        let w = clustered(&p);
        let order = reorder(&w.input(), &lay).map_err(|e| Error::input(format!("reorder: {e}")))?;
        let log = LogRef {
            order: &order,
            sizes: &w.sizes,
            probes: &w.probes,
            probe_offsets: &w.probe_offsets,
        };
        let greedy = match tuned {
            None => {
                let (m, t) = tune_greedy(&log, &default_grid(), &base(nprobe))?;
                tuned = Some(m);
                t
            }
            Some(m) => evaluate(&log, m, &base(nprobe))?,
        };
        let warp = evaluate(&log, Method::Warp, &base(nprobe))?;
        let os = evaluate(&log, Method::ObjectStoreRule, &base(nprobe))?;
        rows.push((name, lay.name(), nprobe, p.seed, greedy, warp, os));
    }
    let tuned = tuned.map(|m| coalesce_name(&m)).unwrap_or_default();
    if args.json {
        let doc = serde_json::json!({
            "tuned": tuned,
            "parallelism": args.parallelism,
            "rows": rows.iter().map(|(name, lay, np, seed, g, w, o)| serde_json::json!({
                "workload": name, "layout": lay, "nprobe": np, "seed": seed,
                "greedy": {"gets": g.requests, "bytes": g.bytes as u64, "t_ms": g.t_ms},
                "warp": {"gets": w.requests, "bytes": w.bytes as u64, "t_ms": w.t_ms},
                "object_store": {"gets": o.requests, "bytes": o.bytes as u64, "t_ms": o.t_ms},
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return Ok(());
    }
    println!(
        "tuned greedy (grid of {} rules, least Σ T_P on the validation log): {tuned}",
        default_grid().len()
    );
    println!(
        "{:<15} {:<11} {:>6} {:>5} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} | {:>12}",
        "workload",
        "layout",
        "nprobe",
        "seed",
        "greedy",
        "GiB",
        "ΣT_P s",
        "warp",
        "GiB",
        "ΣT_P s",
        "o_s ΣT_P",
        "greedy/warp"
    );
    for (name, lay, np, seed, g, w, o) in &rows {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        println!(
            "{:<15} {:<11} {:>6} {:>5} | {:>9} {:>9.2} {:>9.1} | {:>9} {:>9.2} {:>9.1} | {:>9.1} | {:>12.3}",
            name,
            lay,
            np,
            seed,
            g.requests,
            gib(g.bytes),
            g.t_ms / 1000.0,
            w.requests,
            gib(w.bytes),
            w.t_ms / 1000.0,
            o.t_ms / 1000.0,
            g.t_ms / w.t_ms
        );
    }
    println!(
        "(GETs and bytes summed over {} queries per row; T_P from planner-core with P = {}, no store read)",
        args.queries, args.parallelism
    );
    Ok(())
}
