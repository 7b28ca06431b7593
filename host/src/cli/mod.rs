//! The `warp` subcommands, one module each.

use clap::{Parser, Subcommand};

pub mod bench;
pub mod build;
pub mod demo;
pub mod gc;
pub mod plan;
pub mod query;
pub mod reorder;

/// WaRP: workload-aware request planning for vector search on object storage.
#[derive(Debug, Parser)]
#[command(name = "warp", version, about, long_about = None)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan one instance (DESIGN §5 JSON) and print the plan as JSON.
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
    /// Remove index objects no manifest names any more, after a grace period (--older-than); --dry-run lists them.
    Gc(gc::GcArgs),
}

/// Runs the parsed command line.
///
/// # Errors
/// The subcommand's error, printed by `main` as one line.
pub fn execute(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Plan(args) => plan::execute(&args),
        Command::Build(args) => Ok(build::execute(&args)?),
        Command::Query(args) => Ok(query::execute(&args)?),
        Command::Bench(args) => Ok(bench::execute(&args)?),
        Command::Demo(args) => Ok(demo::execute(&args)?),
        Command::Reorder(args) => reorder::execute(&args),
        Command::Gc(args) => Ok(gc::execute(&args)?),
    }
}
