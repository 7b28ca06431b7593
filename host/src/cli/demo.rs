//! `warp demo`: the whole story on one machine, no cloud — SIFT-like data,
//! an IVF index in two payload layouts, and the planning policies on the
//! project's simulated S3 store (flags → [`DemoConfig`] → [`Suite`](crate::bench::Suite)).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use planner_core::Method;
use planner_core::reorder::Layout;
use serde_json::json;

use super::args::{OutputArgs, parse_layout};
use crate::bench::demo::{DEMO_DIM, DemoConfig, prepare};
use crate::bench::limits::{MAX_SWEEP, check_range, parse_concurrency};
use crate::bench::plot::{PlotContext, command_line, machine_description, write_all};
use crate::bench::{BenchRow, CacheSize, table};
use crate::config::PlannerKind;
use crate::error::{Error, Result};
use crate::output::Output;
use crate::store::SimulateConfig;

/// Arguments of `warp demo` (all optional).
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Base vectors generated (1..=1000000).
    #[arg(long, default_value_t = 100_000)]
    pub n: usize,
    /// Clusters (1..=min(n, 65536)).
    #[arg(long, default_value_t = 1024)]
    pub nlist: usize,
    /// Lists probed per query (1..=nlist).
    #[arg(long, default_value_t = 10)]
    pub nprobe: usize,
    /// Query concurrencies Q, comma-separated (each 1..=4096).
    #[arg(long, default_value = "32")]
    pub concurrency: String,
    /// Queries measured per policy (1..=1000000).
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// Warm-up queries per policy before measuring.
    #[arg(long, default_value_t = 0)]
    pub warmup: usize,
    /// Payload cache sizes, comma-separated: MiB, a percentage of the payload (10%) or all.
    #[arg(long = "cache-mib", value_name = "SIZES", default_value = "0")]
    pub cache_mib: String,
    /// Layout of the second index (the first is identity), e.g. pca_zorder:5 or spectral.
    #[arg(long, alias = "reorder", default_value = "pca_zorder", value_parser = parse_layout)]
    pub layout: Layout,
    /// Global I/O slots (1..=4096).
    #[arg(long, default_value_t = 64)]
    pub io_slots: usize,
    /// Plan with planner-core in the host instead of the component.
    #[arg(long)]
    pub native: bool,
    /// Seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Fetch every list a query misses itself, even one another query in
    /// flight is already fetching (default: await that read).
    #[arg(long)]
    pub no_share_reads: bool,
    /// Directory of the SVG charts (default: warp-demo-plots in the system's temporary directory).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Output format (`--json`: the rows as JSON instead of a table).
    #[command(flatten)]
    pub output: OutputArgs,
}

impl DemoArgs {
    /// The demo configuration of these flags.
    ///
    /// # Errors
    /// [`Error::Config`] naming the first bad flag.
    pub fn config(&self) -> Result<DemoConfig> {
        let cache = CacheSize::parse_sweep(&self.cache_mib)?;
        check_range("--cache-mib (number of sizes)", cache.len(), 1, MAX_SWEEP)?;
        let cfg = DemoConfig {
            n: self.n,
            nlist: self.nlist,
            nprobe: self.nprobe,
            concurrency: parse_concurrency("--concurrency", &self.concurrency)?,
            queries: self.queries,
            warmup: self.warmup,
            layout: self.layout,
            io_slots: self.io_slots,
            planner: if self.native {
                PlannerKind::Native
            } else {
                PlannerKind::Component
            },
            seed: self.seed,
            cache,
            share_reads: !self.no_share_reads,
        };
        cfg.validate()?;
        Ok(cfg)
    }
}

/// Runs `warp demo`.
///
/// # Errors
/// Bad flags (before any work), build or query errors, and
/// [`Error::ResultMismatch`] if policies or layouts answer differently.
pub fn execute(args: &DemoArgs) -> Result<()> {
    let cfg = args.config()?;
    let mut out = Output::stdout(args.output.pretty)?;
    let plot_dir = args
        .plot
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("warp-demo-plots"));
    std::fs::create_dir_all(&plot_dir).map_err(|source| Error::Io {
        path: plot_dir.display().to_string(),
        source,
    })?;
    let t0 = Instant::now();
    let say = |m: String| {
        if !args.output.json {
            eprintln!("[{:6.1}s] {m}", t0.elapsed().as_secs_f64());
        }
    };
    let rt = crate::search::runtime()?;
    let sim = SimulateConfig::s3();
    let rows = rt.block_on(async {
        let suite = prepare(&cfg, say).await?;
        say(format!(
            "layouts written ({}); benchmarking on simulated S3 (the project's simulator: {} ms first byte, +{} ms/MiB, {}% tail), Q = {}, nprobe = {}",
            cfg.layouts()
                .iter()
                .map(Layout::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            sim.first_byte_ms,
            sim.per_mib_ms,
            sim.tail_probability * 100.0,
            args.concurrency,
            cfg.nprobe
        ));
        suite
            .run(|r| {
                say(format!(
                    "{} on {} (Q={}, cache {}): {:.0} QPS, {:.2} GETs/query",
                    r.policy, r.layout, r.concurrency, r.cache, r.qps, r.gets_per_query
                ));
            })
            .await
    })?;
    let ctx = PlotContext {
        workload: format!(
            "warp demo: {}k × {DEMO_DIM} SIFT-like (synthetic), IVF-Flat nlist {}, nprobe {}, {} queries/policy, simulated S3 (the project's simulator: {} ms + {} ms/MiB, {}% tail)",
            cfg.n / 1000,
            cfg.nlist,
            cfg.nprobe,
            cfg.queries,
            sim.first_byte_ms,
            sim.per_mib_ms,
            sim.tail_probability * 100.0
        ),
        machine: machine_description(),
        command: command_line(),
    };
    let plots = write_all(&plot_dir, &rows, &ctx)?;
    if args.output.json {
        let _ = out.json(&json!({
            "n": cfg.n, "dim": DEMO_DIM, "nlist": cfg.nlist, "rows": rows,
            "plots": plots.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        }))?;
        return out.finish();
    }
    let mut text = format!("\n{}", table(&rows));
    text.push_str(&format!(
        "every policy and layout returned identical neighbours for all {} queries\n",
        cfg.queries
    ));
    let best = cfg.layouts().last().map(Layout::to_string);
    if let Some(line) = headline(&rows, best.as_deref().unwrap_or("identity")) {
        text.push_str(&format!(
            "{line} ({:.0} s total)\n",
            t0.elapsed().as_secs_f64()
        ));
    }
    for p in &plots {
        text.push_str(&format!("chart: {}\n", p.display()));
    }
    let _ = out.text(&text)?;
    out.finish()
}

/// `warp` on the `best` layout against the Lance rule on identity, at the
/// first Q and cache size.
fn headline(rows: &[BenchRow], best: &str) -> Option<String> {
    let first = rows.first()?;
    let find = |layout: &str, m: Method| {
        let name = m.to_string();
        rows.iter().find(|r| {
            r.layout == layout
                && r.policy == name
                && r.concurrency == first.concurrency
                && r.cache == first.cache
        })
    };
    let (l, w) = (
        find("identity", Method::LanceRule)?,
        find(best, Method::Warp)?,
    );
    Some(format!(
        "{} on {best} vs {} on identity (Q={}): {:.1}x fewer GETs/query, {:.2}x QPS, p99 {:.0} vs {:.0} ms",
        w.policy,
        l.policy,
        first.concurrency,
        l.gets_per_query / w.gets_per_query.max(1e-9),
        w.qps / l.qps.max(1e-9),
        w.p99_ms,
        l.p99_ms,
    ))
}
