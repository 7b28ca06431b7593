//! `warp query`: answer one query or a file of them, as JSON.
//!
//! Each neighbour's `distance` is in the index's metric: squared L2 (`l2`),
//! `1 − cos` (`cosine`, the query normalised first) or the negated inner
//! product `−q·x` (`dot`); smaller is nearer under each.
//!
//! One JSON object per query on stdout (`--pretty` indents each). In a
//! `--queries` batch a query that fails (a store, checksum or planner error)
//! does not stop the others: its object is `{"query": i, "error": "…"}`, and
//! once every query has been answered the command exits with code 2 and one
//! line saying how many failed.

use std::path::PathBuf;

use clap::Args;
use planner_core::Method;
use serde_json::json;

use super::args::{OutputArgs, parse_bytes_nonzero, parse_method};
use crate::dataset::RAISE_DATA;
use crate::error::one_line;
use crate::error::{Error, Result};
use crate::input::check_file;
use crate::ivf::Metric;
use crate::output::{Flow, Output};

use super::search_opts::SearchOpts;
use crate::query::Searcher;
use crate::search::{open_searcher_at, runtime, within};
use crate::store::{self, Deadline};

/// Arguments of `warp query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Index and search options.
    #[command(flatten)]
    pub search: SearchOpts,
    /// One query vector, comma-separated (`--vector -1.5,2,…` takes a
    /// leading minus as the first component's sign).
    #[arg(long, allow_hyphen_values = true, conflicts_with_all = ["queries", "query_index"])]
    pub vector: Option<String>,
    /// A file of query vectors (.fvecs, .bvecs, .ivecs, .npy); one JSON object per query.
    /// A query that fails prints {"query": i, "error": "…"} and the others go on;
    /// the exit code is 2 if any failed.
    #[arg(long, conflicts_with = "query_index")]
    pub queries: Option<PathBuf>,
    /// Query number N of the query set stored with the index (default 0).
    #[arg(long)]
    pub query_index: Option<usize>,
    /// Planning method: warp, separate, lance_rule, object_store_rule, coalesce:GAP, coalesce:GAP:SPAN, min_w, min_b, frontier, lagrangian, exact.
    #[arg(long, alias = "policy", default_value = "warp", value_parser = parse_method)]
    pub method: Method,
    /// The metric the index must rank by (l2, cosine, dot); refused when the index was built
    /// with another. Default: the index's own (its manifest's `metric`).
    #[arg(long, value_parser = Metric::parse)]
    pub metric: Option<Metric>,
    /// Also print the probe intervals and the plan (the `warp plan` instance and plan JSON).
    #[arg(long)]
    pub explain: bool,
    /// Largest --queries file, bytes (K/M/G suffix allowed). Default: $WARP_MAX_DATA_BYTES or 3/4 of memory.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_data_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Checks `--metric` (when given) against the metric `index` ranks by.
///
/// # Errors
/// [`Error::Config`] on `--metric` naming both metrics.
pub fn check_metric(wanted: Option<Metric>, index: &crate::ivf::Index) -> Result<()> {
    match wanted {
        Some(w) if w != index.metric() => Err(Error::config(
            "--metric",
            w,
            format!(
                "the index at {} ranks by {} (rebuild it with --metric {w}, or drop --metric)",
                index.location().display,
                index.metric()
            ),
        )),
        _ => Ok(()),
    }
}

/// Parses `--vector`: comma-separated finite numbers.
///
/// # Errors
/// [`Error::Config`] on `--vector` naming the bad value.
pub fn parse_vector(v: &str) -> Result<Vec<f32>> {
    v.split(',')
        .map(|x| {
            x.trim()
                .parse::<f32>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    Error::config(
                        "--vector",
                        one_line(x),
                        "expected comma-separated finite numbers",
                    )
                })
        })
        .collect()
}

/// Runs `warp query`.
///
/// # Errors
/// Bad arguments, store, index, planner and checksum errors; for a batch,
/// [`Error::Input`] after the last query when any query failed.
pub fn execute(args: &QueryArgs) -> Result<()> {
    let mut cfg = args.search.config(None)?;
    if let Some(b) = args.max_data_bytes {
        cfg.limits.data_bytes = b;
    }
    let mut params = args.search.params_for(&cfg, args.method, 1)?;
    params.explain = args.explain;
    if let Some(path) = &args.queries {
        check_file(path, "--queries", cfg.limits.data_bytes, RAISE_DATA)?;
    }
    // Given queries (`--vector`, `--queries`) are read before the deadline
    // starts: it bounds what the query does with the index, not local files.
    let given = match (&args.vector, &args.queries) {
        (Some(v), _) => Some((parse_vector(v)?, None)),
        (None, Some(path)) => {
            let (q, d) = crate::formats::read_vectors(path)?;
            Some((q, Some((path, d))))
        }
        (None, None) => None,
    };
    let mut out = Output::stdout(args.output.pretty)?;
    let read = args.search.read_config();
    let budget = read.deadline;
    let loc = store::open_existing(&cfg.url)?;
    runtime()?.block_on(async {
        // The first query's deadline starts now: it covers opening the
        // index (manifest, centroids, …) and reading stored queries too.
        let first_deadline = budget.map(Deadline::after);
        let display = loc.display.clone();
        let (searcher, planner, queries, first) = within(first_deadline, "open", &display, async {
            let (searcher, planner) =
                open_searcher_at(loc, &cfg, args.search.preload, read).await?;
            let (queries, first) = load_queries(args, &searcher, given).await?;
            Ok((searcher, planner, queries, first))
        })
        .await?;
        check_metric(args.metric, searcher.index())?;
        if let Some(s) = args.search.manifest_surrogate(searcher.index())? {
            params.plan.surrogate = s;
        }
        let dim = searcher.index().manifest.dim;
        if !queries.len().is_multiple_of(dim) || queries.is_empty() {
            return Err(Error::input(format!(
                "query has {} values, the index has dimension {dim}",
                queries.len()
            )));
        }
        let many = queries.len() > dim;
        let (mut failed, total) = (0usize, queries.len() / dim);
        for (j, q) in queries.chunks_exact(dim).enumerate() {
            let i = first + j;
            // Each later query gets its own deadline.
            let deadline = if j == 0 {
                first_deadline
            } else {
                budget.map(Deadline::after)
            };
            let v = match searcher.search_by(q, &params, deadline).await {
                Ok(r) => r.to_json(i, planner),
                // One query alone fails as the command.
                Err(e) if !many => return Err(e),
                Err(e) => {
                    failed += 1;
                    json!({"query": i, "error": one_line(&e.to_string())})
                }
            };
            if out.json(&v)? == Flow::Stop {
                // The reader went away (`| head`): stop quietly.
                return Ok(());
            }
        }
        out.finish()?;
        if failed > 0 {
            return Err(Error::input(format!(
                "{failed} of {total} queries failed (each error is in its output object)"
            )));
        }
        Ok(())
    })
}

/// Queries given on the command line: the values, and for a `--queries`
/// file its path and dimension.
type Given<'a> = Option<(Vec<f32>, Option<(&'a PathBuf, usize)>)>;

/// The queries of `warp query` (`given`, or one stored with the index) and
/// the number of the first one.
async fn load_queries(
    args: &QueryArgs,
    searcher: &Searcher,
    given: Given<'_>,
) -> Result<(Vec<f32>, usize)> {
    let dim = searcher.index().manifest.dim;
    match given {
        Some((_, Some((path, d)))) if d != dim => Err(Error::input(format!(
            "{}: queries have dimension {d}, the index has {dim}",
            path.display()
        ))),
        Some((q, _)) => Ok((q, 0)),
        None => {
            let i = args.query_index.unwrap_or(0);
            let (q, _) = searcher.index().queries().await?.ok_or_else(|| {
                Error::input("the index stores no queries: pass --vector or --queries")
            })?;
            let nq = q.len() / dim;
            if i >= nq {
                return Err(Error::config(
                    "--query-index",
                    i,
                    format!(
                        "the index stores {nq} queries (0..={})",
                        nq.saturating_sub(1)
                    ),
                ));
            }
            Ok((q[i * dim..(i + 1) * dim].to_vec(), i))
        }
    }
}
