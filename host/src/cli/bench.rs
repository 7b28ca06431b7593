//! `warp bench`: every policy at every query concurrency and payload-cache
//! size on one index (flags → [`Suite`] → table, JSON and charts).

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use planner_core::Pricing;

use super::args::{OutputArgs, parse_method};
use super::search_opts::MAX_NPROBE;
use super::search_opts::SearchOpts;
use crate::bench::limits::{
    MAX_QUERIES, MAX_REPEAT, MAX_SWEEP, MAX_WARMUP, check_range, parse_concurrency, parse_list,
};
use crate::bench::plot::{PlotContext, command_line, machine_description, write_all};
use crate::bench::{CacheSize, DEFAULT_MAX_ERROR_RATE, RunSpec, Suite, Target, Workload, table};
use crate::error::{Error, Result};
use crate::ivf::Metric;
use crate::output::Output;
use crate::progress::Progress;
use crate::query::Index;
use crate::search::{backend_factory, open_searcher, open_searcher_at, runtime};
use crate::store;

/// Arguments of `warp bench`.
#[derive(Debug, Args)]
// The shared search options' single `--cache-mib` (if it has one) gives way
// to the sweep below; `mut_args` rather than `mut_arg`, which panics when the
// argument is gone.
// The same for `--nprobe`: the bench sweeps a list of values.
#[command(mut_args(|a| match a.get_id().as_str() {
    "cache_mib" => a.long("search-cache-mib").hide(true),
    "nprobe" => a.long("search-nprobe").hide(true),
    _ => a,
}))]
pub struct BenchArgs {
    /// Index and search options.
    #[command(flatten)]
    pub search: SearchOpts,
    /// Another layout of the same index (the same build laid out otherwise, e.g. by
    /// `warp reorder`), repeatable (at most 8): every run is repeated on it, its rows name
    /// its layout, and its answers must equal the main index's.
    #[arg(long = "also-url", value_name = "URL")]
    pub also_url: Vec<String>,
    /// Policies, comma-separated: separate, lance_rule, object_store_rule, coalesce:GAP, warp, …
    #[arg(long, default_value = "separate,lance_rule,object_store_rule,warp")]
    pub policies: String,
    /// Lists probed per query, comma-separated (each 1..=1048576, at most the index's nlist):
    /// a sweep gives one row per value, the recall–cost trade-off (`--plot` draws recall.svg).
    #[arg(long = "nprobe", value_name = "NPROBES", default_value = "16")]
    pub nprobe_sweep: String,
    /// Query concurrencies Q, comma-separated (each 1..=4096).
    #[arg(long, default_value = "32")]
    pub concurrency: String,
    /// Queries measured per run, cycling through the stored query set (1..=1000000).
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// Warm-up queries per run before measuring (0..=100000), as the paper:
    /// the load-aware plans need to have seen the link busy once.
    #[arg(long, default_value_t = 200)]
    pub warmup: usize,
    /// Run each (policy, Q, cache) this many times (1..=20), each with a
    /// fresh searcher and its own warm-up, and report the repeat of median
    /// QPS (JSON rows also carry qps_min, qps_max and each round's
    /// qps_repeats). The repeats run in rounds of all runs, every other round
    /// in reverse order, so a load that changes over time falls on every run
    /// alike.
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
    /// Payload cache sizes to sweep, comma-separated: MiB, a percentage of the
    /// payload bytes (10%) or all (everything fits); each run starts with an
    /// empty cache. The cache is moka's (TinyLFU admission, LRU eviction).
    #[arg(long = "cache-mib", value_name = "SIZES", default_value = "0")]
    pub cache_sweep: String,
    /// The largest fraction of a run's queries (warm-up included) that may
    /// fail, 0..=1. A failed query is counted (the err % column, `errors` in
    /// JSON) and measuring goes on; a run with more failures stops the bench
    /// with one line and exit 2, as do answers that differ between policies.
    #[arg(long, default_value_t = DEFAULT_MAX_ERROR_RATE, value_parser = error_rate)]
    pub max_error_rate: f64,
    /// The metric the index must rank by (l2, cosine, dot); refused when the index was built
    /// with another. Default: the index's own.
    #[arg(long, value_parser = Metric::parse)]
    pub metric: Option<Metric>,
    /// Write SVG charts (qps, io, latency, cache sweep; recall against bytes, GETs and QPS
    /// for an --nprobe sweep) and rows.json, the rows behind them, into DIR.
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Output format (`--json`: the rows as JSON instead of a table).
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Parses `--max-error-rate`: a number in `[0, 1]`.
fn error_rate(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{s:?} is not a fraction in 0..=1 (0.01 = 1 % of a run's queries)"
        )),
    }
}

/// Checks that `other` (an `--also-url` index) is `main` laid out otherwise:
/// the same kind, metric, size and centroids (by CRC32C), so that it must
/// answer every query as `main` does, and a layout none of `seen` has.
///
/// # Errors
/// [`Error::Config`] on `--also-url` naming what differs.
fn check_same_build(main: &Index, other: &Index, seen: &[Target]) -> Result<()> {
    let (a, b) = (&main.manifest, &other.manifest);
    let differs = if (a.kind, a.n, a.dim, a.nlist, a.pq_m) != (b.kind, b.n, b.dim, b.nlist, b.pq_m)
    {
        Some("its kind, size, dimension, nlist or pq_m")
    } else if a.metric != b.metric {
        Some("its metric")
    } else if a.centroids.crc32c != b.centroids.crc32c {
        Some("its centroids (another build: its answers may differ)")
    } else {
        None
    };
    let display = &other.location().display;
    if let Some(what) = differs {
        return Err(Error::config(
            "--also-url",
            display,
            format!(
                "{what} differ from the index at {}",
                main.location().display
            ),
        ));
    }
    if seen.iter().any(|t| t.layout == b.layout) {
        return Err(Error::config(
            "--also-url",
            display,
            format!("layout {} is already benchmarked", b.layout),
        ));
    }
    Ok(())
}

/// Runs `warp bench`.
///
/// # Errors
/// Bad arguments (before any work), store and index errors,
/// [`Error::TooManyFailures`] when a run fails more queries than
/// `--max-error-rate` allows, and [`Error::ResultMismatch`] when two runs
/// answer a query differently.
pub fn execute(args: &BenchArgs) -> Result<()> {
    check_range("--queries", args.queries, 1, MAX_QUERIES)?;
    check_range("--warmup", args.warmup, 0, MAX_WARMUP)?;
    check_range("--repeat", args.repeat, 1, MAX_REPEAT)?;
    let qs = parse_concurrency("--concurrency", &args.concurrency)?;
    let nprobes = parse_list("--nprobe", &args.nprobe_sweep, MAX_NPROBE as usize)?;
    let caches = CacheSize::parse_sweep(&args.cache_sweep)?;
    check_range("--cache-mib (number of sizes)", caches.len(), 1, MAX_SWEEP)?;
    let policies = args
        .policies
        .split(',')
        .map(|p| {
            let p = p.trim();
            parse_method(p).map_err(|reason| Error::config("--policies", p, reason))
        })
        .collect::<Result<Vec<_>>>()?;
    check_range(
        "--policies (number of policies)",
        policies.len(),
        1,
        MAX_SWEEP,
    )?;
    check_range(
        "--also-url (number of indexes)",
        args.also_url.len(),
        0,
        MAX_SWEEP,
    )?;
    let cfg = args.search.config(Some(0))?;
    let mut runs: Vec<RunSpec> = Vec::new();
    for target in 0..=args.also_url.len() {
        for &cache in &caches {
            for &q in &qs {
                for &nprobe in &nprobes {
                    for &method in &policies {
                        let mut params = args.search.params_for(&cfg, method, q)?;
                        params.nprobe = nprobe;
                        runs.push(RunSpec {
                            target,
                            params,
                            concurrency: q,
                            cache,
                        });
                    }
                }
            }
        }
    }
    if let Some(dir) = &args.plot {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::config(
                "--plot",
                dir.display(),
                format!("cannot make the chart directory: {e}"),
            )
        })?;
    }
    let (factory, _) = backend_factory(cfg.planner, &cfg.limits)?;
    let mut out = Output::stdout(args.output.pretty)?;
    let (rows, workload) = runtime()?.block_on(async {
        let (searcher, _) = open_searcher(&cfg, args.search.preload, args.search.read_config()).await?;
        let index = Arc::clone(searcher.index());
        drop(searcher);
        let m = &index.manifest;
        super::query::check_metric(args.metric, &index)?;
        if let Some(&p) = nprobes.iter().find(|&&p| p > m.nlist) {
            return Err(Error::config(
                "--nprobe",
                p,
                format!("the index has {} lists", m.nlist),
            ));
        }
        if let Some(s) = args.search.manifest_surrogate(&index)? {
            for r in &mut runs {
                r.params.plan.surrogate = s.clone();
            }
        }
        let (queries, dim) = index.queries().await?.ok_or_else(|| {
            Error::input("the index stores no queries (build it with --queries or synthetic data)")
        })?;
        let gt = index.groundtruth().await?;
        let mut targets = vec![Target {
            layout: m.layout.clone(),
            index: Arc::clone(&index),
        }];
        for url in &args.also_url {
            let loc = store::open_existing(url)?;
            let (other, _) =
                open_searcher_at(loc, &cfg, args.search.preload, args.search.read_config()).await?;
            let other = Arc::clone(other.index());
            check_same_build(&index, &other, &targets)?;
            targets.push(Target {
                layout: other.manifest.layout.clone(),
                index: other,
            });
        }
        let layouts: Vec<&str> = targets.iter().map(|t| t.layout.as_str()).collect();
        let sim = cfg.simulate.map_or_else(
            || format!("store {}", index.location().display),
            |s| {
                format!(
                    "simulated S3 (the project's simulator: {} ms first byte + {} ms/MiB, {}% tail)",
                    s.first_byte_ms,
                    s.per_mib_ms,
                    s.tail_probability * 100.0
                )
            },
        );
        let workload_text = format!(
            "{} × {} {} ({}), nlist {}, nprobe {}, layout {}, {} queries/run after {} warm-up, {}",
            m.n,
            m.dim,
            serde_json::to_value(m.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(), m.metric, m.nlist, args.nprobe_sweep, layouts.join(", "), args.queries, args.warmup, sim
        );
        let suite = Suite {
            targets,
            runs,
            workload: Workload {
                queries: Arc::new(queries),
                dim,
                groundtruth: gt.map(|(g, k)| (Arc::new(g), k)),
                warmup: args.warmup,
                queries_per_run: args.queries,
                pricing: Pricing::default(),
                repeats: args.repeat,
            },
            io_slots: cfg.io_slots,
            factory,
            read: args.search.read_config(),
            max_error_rate: args.max_error_rate,
        };
        // Shown as `--progress` says: nothing when stderr is not a terminal
        // (by default), so that a failure leaves exactly one error line.
        let bar = Progress::new(suite.runs.len() as u64, "bench runs");
        let rows = suite.run(|_| bar.inc(1)).await?;
        bar.finish();
        Ok::<_, Error>((rows, workload_text))
    })?;
    let plots = match &args.plot {
        Some(dir) => write_all(
            dir,
            &rows,
            &PlotContext {
                workload,
                machine: machine_description(),
                command: command_line(),
            },
        )?,
        None => Vec::new(),
    };
    let _ = if args.output.json {
        out.json(&rows)?
    } else {
        let mut text = table(&rows);
        let failed: usize = rows.iter().map(|r| r.errors).sum();
        if failed == 0 {
            text.push_str("all policies returned identical neighbours for every query\n");
        } else {
            text.push_str(&format!(
                "all policies returned identical neighbours for every query they answered; {failed} queries failed (within --max-error-rate {})\n",
                args.max_error_rate
            ));
        }
        for p in &plots {
            text.push_str(&format!("chart: {}\n", p.display()));
        }
        out.text(&text)?
    };
    out.finish()
}
