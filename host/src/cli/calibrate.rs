//! `warp calibrate`: measure range-GET latency on a store and fit the
//! request-time surrogate `t(L)` (see [`crate::calibrate`]).

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use object_store::ObjectStoreExt;
use object_store::path::Path;

use super::query::runtime;
use crate::calibrate::{
    Calibration, MAX_SIZE, MeasureConfig, log_sizes, measure, plot_svg, scratch_bytes,
};
use crate::config::HostConfigBuilder;
use crate::error::{Error, Result};
use crate::ivf::manifest::{MANIFEST, Manifest};
use crate::progress::Progress;
use crate::store::{self, SimulateConfig, StoreLocation};

/// The simulated-S3 flags (`--simulate s3` and its parameters; see
/// [`SimulateConfig`] for the model and the defaults' sources).
#[derive(Debug, Clone, Default, Args)]
pub struct SimulateArgs {
    /// Simulate S3 latency on every GET: "s3" or "none" (default: $WARP_SIMULATE or none).
    #[arg(long)]
    pub simulate: Option<String>,
    /// Simulated S3: median first-byte latency of a tiny GET, ms (default 25).
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
    /// Simulated S3: a tail GET is this many times slower (sets both ends of the factor range; default 2..4).
    #[arg(long)]
    pub sim_tail_factor: Option<f64>,
    /// Simulated S3: log-standard-deviation of the lognormal first-byte body (default 0).
    #[arg(long)]
    pub sim_first_byte_sigma: Option<f64>,
    /// Simulated S3: per-connection throughput cap, MiB/s per GET; 0 = none (default 0).
    #[arg(long)]
    pub sim_conn_mib_s: Option<f64>,
    /// Simulated S3: seed of the latency draws (default 7).
    #[arg(long)]
    pub sim_seed: Option<u64>,
}

impl SimulateArgs {
    /// Applies `--simulate` and the overrides to `b`. Setting any `--sim-*`
    /// flag implies `--simulate s3` unless `--simulate none` is given.
    pub fn apply(&self, mut b: HostConfigBuilder) -> HostConfigBuilder {
        if let Some(s) = &self.simulate {
            b = b.with_config("simulate", s);
        }
        let any = self.sim_first_byte_ms.is_some()
            || self.sim_per_mib_ms.is_some()
            || self.sim_link_mib_s.is_some()
            || self.sim_tail.is_some()
            || self.sim_tail_factor.is_some()
            || self.sim_first_byte_sigma.is_some()
            || self.sim_conn_mib_s.is_some()
            || self.sim_seed.is_some();
        if any && self.simulate.as_deref() != Some("none") {
            let base = b.simulate().unwrap_or_default();
            b = b.with_simulate(Some(SimulateConfig {
                first_byte_ms: self.sim_first_byte_ms.unwrap_or(base.first_byte_ms),
                per_mib_ms: self.sim_per_mib_ms.unwrap_or(base.per_mib_ms),
                link_mib_per_s: self.sim_link_mib_s.unwrap_or(base.link_mib_per_s),
                tail_probability: self.sim_tail.unwrap_or(base.tail_probability),
                tail_min_factor: self.sim_tail_factor.unwrap_or(base.tail_min_factor),
                tail_max_factor: self.sim_tail_factor.unwrap_or(base.tail_max_factor),
                first_byte_sigma: self.sim_first_byte_sigma.unwrap_or(base.first_byte_sigma),
                per_conn_mib_per_s: self.sim_conn_mib_s.unwrap_or(base.per_conn_mib_per_s),
                seed: self.sim_seed.unwrap_or(base.seed),
            }));
        }
        b
    }
}

/// Arguments of `warp calibrate`.
///
/// When --url holds an index (a manifest.json under it), the GETs read its
/// payload object and nothing is written; otherwise (or with --scratch) a
/// scratch object of the largest size, named warp-calibrate-scratch-*.bin, is
/// written under the URL and deleted afterwards.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Store to measure: a path, file:///dir, memory://name or s3://bucket/prefix
    /// (S3 endpoint, region and keys from the AWS_* variables). Default: $WARP_URL or ./warp-index.
    #[arg(long)]
    pub url: Option<String>,
    /// Request sizes: MIN..MAX (doubling, e.g. 4K..64M) or a comma list (4K,1M,16M); K/M/G are binary units.
    #[arg(long, default_value = "4K..64M")]
    pub sizes: String,
    /// GETs per size at concurrency 1; at concurrency c, max(repeats, c) GETs with c in flight.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Concurrency levels, comma-separated. The surrogate is fitted at the lowest; the others show load.
    #[arg(long, default_value = "1,8,32")]
    pub concurrency: String,
    /// Write the chosen surrogate (DESIGN §5 form, ready for `warp plan`) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the whole report as JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the measured medians and p90s and the fitted curves to this SVG file.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Store the chosen surrogate in the index manifest at --url (query and bench then use it unless flags override).
    #[arg(long)]
    pub write_manifest: bool,
    /// Write and read a scratch object even when --url holds an index.
    #[arg(long)]
    pub scratch: bool,
    /// Seed of the request offsets and scratch bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Simulation flags.
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// Parses `4096`, `4K`, `4KiB`, `1.5M`, `64MB`, `1G` (binary units) into bytes.
///
/// # Errors
/// [`Error::Config`] naming `--sizes`.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let bad = || Error::config("--sizes", t, "expected a size like 4096, 4K, 1.5M or 1G");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(bad()),
    };
    let v: f64 = num.parse().map_err(|_| bad())?;
    let bytes = v * mult as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > MAX_SIZE as f64 {
        return Err(Error::config(
            "--sizes",
            t,
            format!("sizes must be 1 B to {} MiB", MAX_SIZE >> 20),
        ));
    }
    Ok(bytes.round() as u64)
}

/// Parses `--sizes`: `MIN..MAX` (doubling) or a comma list.
///
/// # Errors
/// [`Error::Config`] naming `--sizes`.
pub fn parse_sizes(s: &str) -> Result<Vec<u64>> {
    if let Some((lo, hi)) = s.split_once("..") {
        return log_sizes(parse_size(lo)?, parse_size(hi)?);
    }
    let mut v = s.split(',').map(parse_size).collect::<Result<Vec<_>>>()?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// The object GETs read: a payload of an index, or a scratch object.
struct Target {
    path: Path,
    size: u64,
    scratch: bool,
}

/// Runs `warp calibrate`.
///
/// # Errors
/// Bad arguments (before any I/O), store errors, and file errors of
/// `--out`/`--plot`.
pub fn execute(args: &CalibrateArgs) -> Result<()> {
    let mut b = HostConfigBuilder::from_env();
    if let Some(u) = &args.url {
        b = b.with_url(u.clone());
    }
    let cfg = args.sim.apply(b).build()?;
    let concurrency = crate::bench::limits::parse_concurrency("--concurrency", &args.concurrency)?;
    let mut mcfg = MeasureConfig {
        sizes: parse_sizes(&args.sizes)?,
        repeats: args.repeats,
        concurrency,
        seed: args.seed,
    };
    mcfg.concurrency.sort_unstable();
    mcfg.concurrency.dedup();
    // Bounds that do not depend on the object, before any I/O.
    mcfg.validate(u64::MAX)?;
    let loc = store::open(&cfg.url)?;
    let cal = runtime()?.block_on(async {
        let target = pick_target(&loc, args).await?;
        if let Err(e) = mcfg.validate(target.size) {
            cleanup(&loc, &target).await;
            return Err(e);
        }
        let read = match cfg.simulate {
            Some(sim) => loc.simulated(sim),
            None => loc.clone(),
        };
        if !args.json {
            eprintln!(
                "calibrating {} over {} ({}, {} bytes): {} GETs, {} MiB",
                read.display,
                target.path,
                if target.scratch {
                    "scratch object, deleted afterwards"
                } else {
                    "the index payload, read only"
                },
                target.size,
                mcfg.total_gets(),
                mcfg.total_bytes() >> 20
            );
        }
        let bar = Progress::new(mcfg.total_gets(), if args.json { "" } else { "range GETs" });
        let measured = measure(
            Arc::clone(&read.store),
            &target.path,
            target.size,
            &mcfg,
            |n| bar.inc(n),
        )
        .await;
        bar.finish();
        cleanup(&loc, &target).await;
        let (samples, batches) = measured?;
        let cal = Calibration::from_measurements(&samples, &batches)?;
        if args.write_manifest {
            write_manifest(&loc, &cal).await?;
        }
        Ok::<_, Error>(cal)
    })?;
    if let Some(path) = &args.out {
        let text = format!("{}\n", cal.surrogate_spec().to_json());
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, plot_svg(&cal)?).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&cal.to_json()).unwrap_or_default()
        );
    } else {
        print!("{}", cal.table());
        if args.write_manifest {
            println!("stored in the index manifest at {}", loc.display);
        }
    }
    Ok(())
}

/// The index payload when `--url` holds an index (and `--scratch` is not
/// set), else a freshly written scratch object of the largest size.
async fn pick_target(loc: &StoreLocation, args: &CalibrateArgs) -> Result<Target> {
    let manifest = read_manifest(loc).await?;
    if args.write_manifest && manifest.is_none() {
        return Err(Error::input(format!(
            "--write-manifest: no index at {} (no {MANIFEST})",
            loc.display
        )));
    }
    if let Some(m) = manifest.filter(|_| !args.scratch) {
        return Ok(Target {
            path: loc.child(&m.payload.name),
            size: m.payload.size,
            scratch: false,
        });
    }
    let sizes = parse_sizes(&args.sizes)?;
    let size = sizes.last().copied().unwrap_or(1);
    let name = format!(
        "warp-calibrate-scratch-{}-{}.bin",
        std::process::id(),
        args.seed
    );
    let path = loc.child(&name);
    let bytes = scratch_bytes(size as usize, args.seed);
    loc.store
        .put(&path, bytes.into())
        .await
        .map_err(|source| Error::Store {
            op: "put",
            path: path.to_string(),
            source,
        })?;
    Ok(Target {
        path,
        size,
        scratch: true,
    })
}

/// Deletes a scratch object (best effort: a failure is reported on stderr).
async fn cleanup(loc: &StoreLocation, target: &Target) {
    if target.scratch
        && let Err(e) = loc.store.delete(&target.path).await
    {
        eprintln!("warning: could not delete {}: {e}", target.path);
    }
}

/// The manifest under `loc`, if there is one.
async fn read_manifest(loc: &StoreLocation) -> Result<Option<Manifest>> {
    let path = loc.child(MANIFEST);
    match loc.store.get(&path).await {
        Ok(r) => {
            let bytes = r.bytes().await.map_err(|source| Error::Store {
                op: "get",
                path: path.to_string(),
                source,
            })?;
            Ok(Some(Manifest::from_bytes(&bytes)?))
        }
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(source) => Err(Error::Store {
            op: "get",
            path: path.to_string(),
            source,
        }),
    }
}

/// Rewrites the manifest with the chosen surrogate.
async fn write_manifest(loc: &StoreLocation, cal: &Calibration) -> Result<()> {
    let mut m = read_manifest(loc)
        .await?
        .ok_or_else(|| Error::input(format!("no index at {} (no {MANIFEST})", loc.display)))?;
    m.surrogate = Some(cal.surrogate_spec());
    m.validate()?;
    let path = loc.child(MANIFEST);
    loc.store
        .put(&path, m.to_bytes().into())
        .await
        .map_err(|source| Error::Store {
            op: "put",
            path: path.to_string(),
            source,
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("1.5M").unwrap(), 3 << 19);
        assert_eq!(parse_size("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("4X").is_err());
        assert!(parse_size("2G").is_err());
        assert!(parse_size("0").is_err());
        assert_eq!(parse_sizes("4K..16K").unwrap(), vec![4096, 8192, 16384]);
        assert_eq!(parse_sizes("1M,4K").unwrap(), vec![4096, 1 << 20]);
        assert_eq!(parse_sizes("4K..64M").unwrap().len(), 15);
    }

    #[test]
    fn sim_flags_override_the_profile() {
        let args = SimulateArgs {
            sim_tail: Some(0.05),
            sim_tail_factor: Some(10.0),
            sim_conn_mib_s: Some(90.0),
            ..SimulateArgs::default()
        };
        let cfg = args.apply(HostConfigBuilder::new()).build().unwrap();
        let sim = cfg.simulate.unwrap();
        assert_eq!(sim.tail_probability, 0.05);
        assert_eq!((sim.tail_min_factor, sim.tail_max_factor), (10.0, 10.0));
        assert_eq!(sim.per_conn_mib_per_s, 90.0);
        assert_eq!(sim.first_byte_ms, 25.0);
        let bad = SimulateArgs {
            sim_first_byte_sigma: Some(-1.0),
            ..SimulateArgs::default()
        };
        let e = bad.apply(HostConfigBuilder::new()).build().unwrap_err();
        assert!(e.to_string().contains("first_byte_sigma"), "{e}");
        let none = SimulateArgs {
            simulate: Some("none".into()),
            sim_tail: Some(0.5),
            ..SimulateArgs::default()
        };
        assert_eq!(
            none.apply(HostConfigBuilder::new())
                .build()
                .unwrap()
                .simulate,
            None
        );
    }
}

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
pub fn execute_tune_greedy(args: &TuneGreedyArgs) -> Result<()> {
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
    let mean_size = parse_size(&args.mean_size)
        .map_err(|_| Error::config("--mean-size", &args.mean_size, "expected a size like 256K"))?;
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
