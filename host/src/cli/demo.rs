//! `warp demo`: the whole story on one machine, no cloud — SIFT-like data,
//! an IVF index in two payload layouts, and the planning policies on a
//! simulated S3 store.

use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use planner_core::Pricing;
use serde_json::json;

use super::build::{ground_truth, order_for};
use super::query::{SearchOpts, backend_factory, runtime};
use crate::bench::{Answers, BenchRow, check_identical, run, table};
use crate::config::PlannerKind;
use crate::error::{Error, Result};
use crate::ivf::synthetic::{SyntheticParams, generate};
use crate::ivf::{self, IvfBuildParams, Workload};
use crate::query::{Index, Searcher};
use crate::store::{self, SimulateConfig};

/// Arguments of `warp demo` (all optional).
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Base vectors generated.
    #[arg(long, default_value_t = 100_000)]
    pub n: usize,
    /// Clusters.
    #[arg(long, default_value_t = 1024)]
    pub nlist: usize,
    /// Lists probed per query.
    #[arg(long, default_value_t = 10)]
    pub nprobe: usize,
    /// Query concurrency Q.
    #[arg(long, default_value_t = 32)]
    pub concurrency: usize,
    /// Queries per policy.
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// Reorder method of the second layout.
    #[arg(long, default_value = "pca_zorder")]
    pub reorder: String,
    /// Global I/O slots.
    #[arg(long, default_value_t = 64)]
    pub io_slots: usize,
    /// Plan with planner-core in the host instead of the component.
    #[arg(long)]
    pub native: bool,
    /// Seed.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// Print the rows as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Runs `warp demo`.
///
/// # Errors
/// Any build or query error, and [`Error::ResultMismatch`] if policies or
/// layouts answer differently.
pub fn execute(args: &DemoArgs) -> Result<()> {
    let t0 = Instant::now();
    let say = |m: String| {
        if !args.json {
            eprintln!("[{:6.1}s] {m}", t0.elapsed().as_secs_f64());
        }
    };
    let dim = 128;
    let nq = 1000;
    say(format!(
        "generating {} SIFT-like vectors (128-d, Gaussian mixture) and {nq} queries",
        args.n
    ));
    let (base, queries) = generate(&SyntheticParams {
        n: args.n,
        nq,
        dim,
        seed: args.seed,
        ..SyntheticParams::default()
    });
    let gt_k = 10;
    let gt = ground_truth(&queries, &base, dim, gt_k);
    say(format!("k-means, nlist = {}", args.nlist));
    let trained = ivf::train(
        &base,
        dim,
        &IvfBuildParams {
            nlist: args.nlist,
            seed: args.seed,
            ..IvfBuildParams::default()
        },
    )?;
    let mut layouts = vec!["identity".to_string()];
    if args.reorder != "identity" {
        layouts.push(args.reorder.clone());
    }
    let orders = layouts
        .iter()
        .map(|m| order_for(m, &trained, &base, args.seed))
        .collect::<Result<Vec<_>>>()?;
    let opts = SearchOpts {
        url: None,
        nprobe: args.nprobe,
        k: 10,
        k_max: None,
        parallelism: None,
        io_slots: Some(args.io_slots),
        cache_mib: Some(0),
        simulate: Some("s3".into()),
        sim_first_byte_ms: None,
        sim_per_mib_ms: None,
        sim_link_mib_s: None,
        sim_tail: None,
        native: args.native,
        preload: false,
        rerank: 0,
        fixed_ms: None,
        per_mib_ms: None,
        epsilon: 0.01,
    };
    let rt = runtime()?;
    let rows = rt.block_on(async {
        let mut searchers = Vec::new();
        for (m, order) in layouts.iter().zip(&orders) {
            let url = format!("memory://warp-demo-{}-{m}", std::process::id());
            let loc = store::open(&url)?;
            ivf::write(
                &loc,
                &base,
                &trained,
                order,
                m,
                Workload {
                    queries: Some(&queries),
                    groundtruth: Some((&gt, gt_k)),
                },
            )
            .await?;
            let index = Arc::new(Index::open(loc.simulated(SimulateConfig::s3())).await?);
            let kind = if args.native { PlannerKind::Native } else { PlannerKind::Component };
            let (factory, _) = backend_factory(kind)?;
            searchers.push(Arc::new(Searcher::new(index, args.io_slots, 0, factory)));
        }
        say(format!(
            "layouts written ({}); benchmarking on simulated S3 (25 ms first byte, +5 ms/MiB, 2% tail), Q = {}, nprobe = {}",
            layouts.join(", "),
            args.concurrency,
            args.nprobe
        ));
        let cfg = opts.config(Some(0))?;
        let mut runs: Vec<(usize, &str)> = vec![(0, "separate"), (0, "lance_rule"), (0, "object_store_rule"), (0, "warp")];
        if layouts.len() > 1 {
            runs.push((1, "lance_rule"));
            runs.push((1, "warp"));
        }
        let queries = Arc::new(queries.clone());
        let mut rows: Vec<BenchRow> = Vec::new();
        let mut reference: Option<(String, Answers)> = None;
        for (li, policy) in runs {
            let params = opts.params(&cfg, policy, args.concurrency)?;
            let (row, answers) = run(
                Arc::clone(&searchers[li]),
                &layouts[li],
                Arc::clone(&queries),
                Some((&gt, gt_k)),
                &params,
                args.concurrency,
                args.queries,
                Pricing::default(),
            )
            .await?;
            let name = format!("{policy} on {}", layouts[li]);
            say(format!("{name}: {:.0} QPS, {:.2} GETs/query", row.qps, row.gets_per_query));
            match &reference {
                None => reference = Some((name, answers)),
                Some((rn, ra)) => check_identical((rn, ra), (&name, &answers))?,
            }
            rows.push(row);
        }
        Ok::<_, Error>(rows)
    })?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({"n": args.n, "dim": dim, "nlist": args.nlist, "rows": rows})
            )
            .unwrap_or_default()
        );
        return Ok(());
    }
    println!();
    print!("{}", table(&rows));
    println!(
        "every policy and layout returned identical neighbours for all {} queries",
        args.queries
    );
    let find = |layout: &str, policy: &str| {
        rows.iter()
            .find(|r| r.layout == layout && r.policy == policy)
    };
    let best = layouts.last().map_or("identity", String::as_str);
    if let (Some(l), Some(w)) = (find("identity", "lance_rule"), find(best, "warp")) {
        println!(
            "warp on {best} vs lance on identity: {:.1}x fewer GETs/query, {:.2}x QPS, p99 {:.0} vs {:.0} ms ({:.0} s total)",
            l.gets_per_query / w.gets_per_query.max(1e-9),
            w.qps / l.qps.max(1e-9),
            w.p99_ms,
            l.p99_ms,
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
