//! `warp tune-greedy`: tune the fixed gap/span coalescing rule by grid search
//! on a validation workload, then run the shift study (seed summary §7.2):
//! flags → [`ShiftStudy`] → [`ShiftStudy::run`] (synthetic workloads) or
//! [`ShiftStudy::run_on_index`] (`--url`: a built index and its stored
//! queries) → a table or JSON.

use std::path::PathBuf;

use clap::Args;
use planner_core::reorder::Layout;
use serde_json::json;

use super::args::{
    OutputArgs, at_least_one, layout_name, parse_bytes_nonzero, parse_layout, parse_request_size,
};
use crate::calibrate::shift::{ShiftReport, ShiftStudy};
use crate::calibrate::{MAX_SURROGATE_BYTES, SurrogateSpec};
use crate::config::HostConfigBuilder;
use crate::error::{Error, Result};
use crate::ivf::Index;
use crate::output::Output;
use crate::search::runtime;
use crate::store;

/// Arguments of `warp tune-greedy`: tune the fixed coalescing rule on a
/// validation workload and run the shift study (plan totals from
/// planner-core over the probe logs; no payload is read).
#[derive(Debug, Args)]
pub struct TuneGreedyArgs {
    /// A built index (path, file://, memory:// or s3:// URL): its layout, list sizes and stored
    /// queries routed to its centroids are the workload, instead of the synthetic one
    /// (--clusters, --dim, --layout, --mean-size and --seed then do not apply).
    #[arg(long)]
    pub url: Option<String>,
    /// Clusters (nlist) of the synthetic workload (1..=65536).
    #[arg(long, conflicts_with = "url", default_value_t = 1024)]
    pub clusters: usize,
    /// Vector dimension of the synthetic centroids and queries (1..=1024).
    #[arg(long, conflicts_with = "url", default_value_t = 128)]
    pub dim: usize,
    /// Queries in each probe log (1..=100000).
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// nprobe of the validation workload.
    #[arg(long, default_value_t = 10)]
    pub nprobe: usize,
    /// nprobe of the shifted workloads.
    #[arg(long, default_value_t = 32)]
    pub shift_nprobe: usize,
    /// Layout of the validation workload, as `warp build --layout`.
    #[arg(long, conflicts_with = "url", default_value = "pca_zorder", value_parser = parse_layout)]
    pub layout: Layout,
    /// Layout of the locality-shifted workloads.
    #[arg(long, default_value = "identity", value_parser = parse_layout)]
    pub shift_layout: Layout,
    /// Mean payload bytes per cluster (1 B to 1 GiB; K/M/G or KiB/MiB/GiB).
    #[arg(long, conflicts_with = "url", default_value = "256K", value_parser = parse_request_size)]
    pub mean_size: u64,
    /// Expected request parallelism P of the plans, >= 1.
    #[arg(long, default_value_t = 8.0, value_parser = at_least_one)]
    pub parallelism: f64,
    /// Surrogate file (ARCHITECTURE §5 form, e.g. from `warp calibrate --out`; at most 1 MiB unless --max-input-bytes says otherwise); default the S3 affine 25 ms + 5 ms/MiB.
    #[arg(long)]
    pub surrogate: Option<PathBuf>,
    /// Seed of the validation dataset; the "other dataset" uses seed + 1 and a different mixture.
    #[arg(long, conflicts_with = "url", default_value_t = 42)]
    pub seed: u64,
    /// Largest --surrogate file, bytes (K/M/G suffix allowed). Default: 1M, or $WARP_MAX_INPUT_BYTES if smaller.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_input_bytes: Option<u64>,
    /// Output format (`--json`: the report as JSON instead of the table).
    #[command(flatten)]
    pub output: OutputArgs,
}

impl TuneGreedyArgs {
    /// The study of these flags. Its bounds are checked by
    /// [`ShiftStudy::run`] (synthetic) or [`ShiftStudy::run_on_index`]
    /// (nprobe against the index's lists), each before any work.
    ///
    /// # Errors
    /// An unreadable, too large or invalid `--surrogate` file.
    pub fn study(&self) -> Result<ShiftStudy> {
        let surrogate = match &self.surrogate {
            None => planner_core::Surrogate::S3,
            Some(p) => {
                let mut b = HostConfigBuilder::from_env();
                if let Some(v) = self.max_input_bytes {
                    b = b.with_max_input_bytes(v);
                }
                let general = b.build()?.limits.input_bytes;
                // A surrogate is small: its own bound, unless the flag sets one;
                // a smaller general bound (WARP_MAX_INPUT_BYTES) still applies.
                let limit = match self.max_input_bytes {
                    Some(_) => general,
                    None => general.min(MAX_SURROGATE_BYTES),
                };
                SurrogateSpec::read(p, "--surrogate", limit, "--max-input-bytes")?
            }
        };
        Ok(ShiftStudy {
            clusters: self.clusters,
            dim: self.dim,
            queries: self.queries,
            nprobe: self.nprobe,
            shift_nprobe: self.shift_nprobe,
            layout: self.layout,
            shift_layout: self.shift_layout,
            mean_size: self.mean_size,
            parallelism: self.parallelism,
            surrogate,
            seed: self.seed,
        })
    }
}

/// Runs `warp tune-greedy`.
///
/// # Errors
/// Bad arguments (one line, before any work) and planner errors.
pub fn execute(args: &TuneGreedyArgs) -> Result<()> {
    let study = args.study()?;
    let mut out = Output::stdout(args.output.pretty)?;
    let report = match &args.url {
        None => study.run()?,
        Some(url) => runtime()?.block_on(async {
            let index = Index::open(store::open_existing(url)?).await?;
            let (queries, _) = index.queries().await?.ok_or_else(|| {
                Error::input(format!(
                    "{url}: the index stores no queries (build it with --queries or synthetic data)"
                ))
            })?;
            study.run_on_index(&index, &queries)
        })?,
    };
    let _ = if args.output.json {
        out.json(&report_json(&study, &report))?
    } else {
        out.text(&report_table(&study, &report))?
    };
    out.finish()
}

/// The report as JSON: `{"tuned", "parallelism", "rows": [{"workload",
/// "layout", "nprobe", "seed", "greedy", "warp", "object_store"}]}`, each
/// policy `{"gets", "bytes", "t_ms"}` summed over the log.
fn report_json(study: &ShiftStudy, report: &ShiftReport) -> serde_json::Value {
    let totals = |t: &planner_core::reorder::LogPlanTotals| json!({"gets": t.requests, "bytes": u64::try_from(t.bytes).unwrap_or(u64::MAX), "t_ms": t.t_ms});
    json!({
        "tuned": report.tuned.to_string(),
        "parallelism": study.parallelism,
        "rows": report.rows.iter().map(|r| json!({
            "workload": r.workload,
            "layout": layout_name(&r.layout),
            "nprobe": r.nprobe,
            "seed": r.seed,
            "greedy": totals(&r.greedy),
            "warp": totals(&r.warp),
            "object_store": totals(&r.object_store),
        })).collect::<Vec<_>>(),
    })
}

/// The report as the fixed-width table of BENCHMARKS.md's shift study.
fn report_table(study: &ShiftStudy, report: &ShiftReport) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "tuned greedy (grid of {} rules, least Σ T_P on the validation log): {}",
        report.grid_len, report.tuned
    );
    let _ = writeln!(
        s,
        "{:<15} {:<14} {:>6} {:>5} | {:>9} {:>9} {:>9} | {:>9} {:>9} {:>9} | {:>9} | {:>12}",
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
    let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
    for r in &report.rows {
        let (g, w) = (&r.greedy, &r.warp);
        let _ = writeln!(
            s,
            "{:<15} {:<14} {:>6} {:>5} | {:>9} {:>9.2} {:>9.1} | {:>9} {:>9.2} {:>9.1} | {:>9.1} | {:>12.3}",
            r.workload,
            layout_name(&r.layout),
            r.nprobe,
            r.seed.map_or_else(|| "-".to_string(), |s| s.to_string()),
            g.requests,
            gib(g.bytes),
            g.t_ms / 1000.0,
            w.requests,
            gib(w.bytes),
            w.t_ms / 1000.0,
            r.object_store.t_ms / 1000.0,
            g.t_ms / w.t_ms
        );
    }
    let _ = writeln!(
        s,
        "(GETs and bytes summed over {} queries per row; T_P from planner-core with P = {}, no store read)",
        study.queries, study.parallelism
    );
    s
}
