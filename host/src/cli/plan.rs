//! `warp plan`: the DESIGN §5 contract on the command line.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use planner_core::json::{Instance, PlanJson};
use planner_core::{Capacity, Planner};

/// Arguments of `warp plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Instance JSON file (`-` for standard input).
    #[arg(long, short, default_value = "-")]
    pub input: PathBuf,
    /// Pretty-print the plan.
    #[arg(long)]
    pub pretty: bool,
}

/// Reads `path` (`-` = stdin) to a string.
///
/// # Errors
/// When the file cannot be read.
pub fn read_input(path: &PathBuf) -> anyhow::Result<String> {
    let mut text = String::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading standard input")?;
    } else {
        text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    }
    Ok(text)
}

/// Plans the instance and prints the plan JSON on stdout.
///
/// # Errors
/// Unreadable input, or the planner's one-line error naming the field.
pub fn execute(args: &PlanArgs) -> anyhow::Result<()> {
    let text = read_input(&args.input)?;
    let inst = Instance::from_json(&text)?;
    let n = inst.intervals.len();
    let mut planner = Planner::new(Capacity::new(n, inst.k_max.min(n)))?;
    let plan = planner.plan(&inst.request())?;
    let out = PlanJson::from(&plan);
    if args.pretty {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{}", out.to_json());
    }
    Ok(())
}
