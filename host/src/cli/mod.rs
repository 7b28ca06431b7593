//! The `warp` subcommands, one module each: clap flags → configuration → a
//! library call. Shared flag parsers live in [`args`].

use clap::{Parser, Subcommand};

use crate::progress::{self, Mode};

pub mod args;
pub mod bench;
pub mod build;
pub mod calibrate;
pub mod demo;
pub mod gc;
pub mod load;
pub mod plan;
pub mod query;
pub mod reorder;
pub mod search_opts;
pub mod serve;
pub mod simulate_args;
pub mod tune_greedy;

/// WaRP: workload-aware request planning for vector search on object storage.
///
/// Results go to stdout, progress and errors to stderr; every error is one
/// line and exits with code 2.
#[derive(Debug, Parser)]
#[command(name = "warp", version, about, long_about = None)]
#[command(mut_subcommands(negative_numbers))]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan one instance (the JSON contract of the README's "Planning one query: `warp plan`") and print the plan as JSON.
    Plan(plan::PlanArgs),
    /// Build an IVF index (from .fvecs/.bvecs/.ivecs/.npy or synthetic SIFT-like data) on a store.
    Build(build::BuildArgs),
    /// Answer one query or a file of them (JSON), optionally explaining the plan.
    Query(query::QueryArgs),
    /// Run every policy at query concurrency Q: QPS, latency, GETs, bytes, $, recall.
    Bench(bench::BenchArgs),
    /// The whole story on one machine: SIFT-like data, two layouts, all policies on simulated S3.
    Demo(demo::DemoArgs),
    /// Lay out cluster payloads (PCA + Z-order, Hilbert, spectral, …) and judge the layout by its co-access gap and plans.
    Reorder(reorder::ReorderArgs),
    /// Measure range-GET latency on a store and fit the request-time surrogate (affine, convex, monotone; held-out MAPE).
    Calibrate(calibrate::CalibrateArgs),
    /// Tune the fixed coalescing rule (greedy baseline) on a validation workload and run the shift study.
    TuneGreedy(tune_greedy::TuneGreedyArgs),
    /// Serve the index over HTTP: POST /v1/search, GET /v1/index, /healthz, /readyz, /metrics, /openapi.json.
    Serve(serve::ServeArgs),
    /// Closed-loop HTTP load against a running `warp serve`: QPS, latency, recall@10 and the client's own CPU.
    Load(load::LoadArgs),
    /// Remove index objects no manifest names any more, after a grace period (--older-than); --dry-run lists them.
    Gc(gc::GcArgs),
}

/// Lets every flag of `cmd` that takes a value take a negative number
/// (`--epsilon -1`, `--nlist -1`), which clap otherwise reads as an unknown
/// flag `-1`: the value then reaches the flag's own parser, which refuses it
/// naming the flag (and its range, for the float and `RangedI64ValueParser`
/// parsers).
fn negative_numbers(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| {
        if a.get_action().takes_values() {
            a.allow_negative_numbers(true)
        } else {
            a
        }
    })
}

/// Sets the progress display from `--progress` and `--json` (which
/// silences it): by default bars on a terminal and nothing otherwise, so a
/// failed command leaves exactly its one `error:` line on stderr.
fn progress_for(output: &args::OutputArgs) {
    use args::ProgressArg;
    progress::set_mode(match (output.json, output.progress) {
        (true, _) | (_, ProgressArg::Off) => Mode::Off,
        (false, ProgressArg::Lines) => Mode::Lines,
        (false, ProgressArg::Bars) => Mode::Bars,
        (false, ProgressArg::Auto) => Mode::Auto,
    });
}

/// Runs the parsed command line.
///
/// # Errors
/// The subcommand's error, printed by `main` as one line.
pub fn execute(cli: Cli) -> crate::error::Result<()> {
    progress_for(cli.command.output());
    crate::config::configure_component();
    crate::config::configure_log()?;
    match &cli.command {
        Command::Plan(args) => plan::execute(args),
        Command::Build(args) => build::execute(args),
        Command::Query(args) => query::execute(args),
        Command::Bench(args) => bench::execute(args),
        Command::Demo(args) => demo::execute(args),
        Command::Reorder(args) => reorder::execute(args),
        Command::Calibrate(args) => calibrate::execute(args),
        Command::TuneGreedy(args) => tune_greedy::execute(args),
        Command::Serve(args) => serve::execute(args),
        Command::Load(args) => load::execute(args),
        Command::Gc(args) => gc::execute(args),
    }
}

impl Command {
    /// The output flags, which every subcommand takes the same way.
    pub fn output(&self) -> &args::OutputArgs {
        match self {
            Command::Plan(a) => &a.output,
            Command::Build(a) => &a.output,
            Command::Query(a) => &a.output,
            Command::Bench(a) => &a.output,
            Command::Demo(a) => &a.output,
            Command::Reorder(a) => &a.output,
            Command::Calibrate(a) => &a.output,
            Command::TuneGreedy(a) => &a.output,
            Command::Serve(a) => &a.output,
            Command::Load(a) => &a.output,
            Command::Gc(a) => &a.output,
        }
    }
}
