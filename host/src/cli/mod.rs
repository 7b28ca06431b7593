//! The `warp` subcommands, one module each.

use clap::{Parser, Subcommand};

pub mod plan;

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
}

/// Runs the parsed command line.
///
/// # Errors
/// The subcommand's error, printed by `main` as one line.
pub fn execute(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Plan(args) => plan::execute(&args),
    }
}
