//! `warp bench`: every policy at every query concurrency on one index.

use std::sync::Arc;

use clap::Args;
use planner_core::Pricing;

use super::query::{SearchOpts, open_searcher, runtime};
use crate::bench::{Answers, BenchRow, check_identical, run, table};
use crate::error::{Error, Result};

/// Arguments of `warp bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Index and search options.
    #[command(flatten)]
    pub search: SearchOpts,
    /// Policies, comma-separated: separate, lance_rule, object_store_rule, coalesce:GAP, warp, …
    #[arg(long, default_value = "separate,lance_rule,object_store_rule,warp")]
    pub policies: String,
    /// Query concurrencies Q, comma-separated.
    #[arg(long, default_value = "32")]
    pub concurrency: String,
    /// Queries per run (cycling through the stored query set).
    #[arg(long, default_value_t = 1000)]
    pub queries: usize,
    /// Print the rows as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Parses a comma-separated list of concurrencies.
///
/// # Errors
/// [`Error::Config`] for a non-number or 0.
pub fn parse_concurrency(s: &str) -> Result<Vec<usize>> {
    s.split(',')
        .map(|x| {
            x.trim()
                .parse::<usize>()
                .ok()
                .filter(|&q| q >= 1)
                .ok_or_else(|| Error::config("--concurrency", x, "expected integers >= 1"))
        })
        .collect()
}

/// Runs `warp bench`.
///
/// # Errors
/// Bad arguments, store and index errors, and [`Error::ResultMismatch`] when
/// two policies answer differently.
pub fn execute(args: &BenchArgs) -> Result<()> {
    let cfg = args.search.config(Some(0))?;
    let qs = parse_concurrency(&args.concurrency)?;
    let policies: Vec<&str> = args.policies.split(',').map(str::trim).collect();
    for p in &policies {
        args.search.params(&cfg, p, 1)?;
    }
    let rows = runtime()?.block_on(async {
        let (searcher, _) = open_searcher(&cfg, args.search.preload).await?;
        let index = Arc::clone(searcher.index());
        let (queries, _) = index.queries().await?.ok_or_else(|| {
            Error::input("the index stores no queries (build it with --queries or synthetic data)")
        })?;
        let gt = index.groundtruth().await?;
        let queries = Arc::new(queries);
        let mut rows: Vec<BenchRow> = Vec::new();
        let mut reference: Option<(String, Answers)> = None;
        for &q in &qs {
            for p in &policies {
                let params = args.search.params(&cfg, p, q)?;
                let (row, answers) = run(
                    Arc::clone(&searcher),
                    &index.manifest.reorder,
                    Arc::clone(&queries),
                    gt.as_ref().map(|(g, k)| (&g[..], *k)),
                    &params,
                    q,
                    args.queries,
                    Pricing::default(),
                )
                .await?;
                let name = format!("{p} (Q={q})");
                match &reference {
                    None => reference = Some((name, answers)),
                    Some((rn, ra)) => check_identical((rn, ra), (&name, &answers))?,
                }
                if !args.json {
                    eprint!(".");
                }
                rows.push(row);
            }
        }
        if !args.json {
            eprintln!();
        }
        Ok::<_, Error>(rows)
    })?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
    } else {
        print!("{}", table(&rows));
        println!("all policies returned identical neighbours for every query");
    }
    Ok(())
}
