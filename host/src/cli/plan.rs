//! `warp plan`: the DESIGN §5 contract on the command line.
//!
//! Plans through the embedded WebAssembly component by default (the code every
//! runtime shares); `--native` calls planner-core directly. Both print the same
//! bytes: the instance is parsed and the plan printed by the same code, only
//! the planning runs in one place or the other.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use planner_core::Plan;
use planner_core::json::{Instance, PlanJson};

use crate::component::PlannerComponent;
use crate::limits::Limits;
use crate::query::{NativeBackend, PlanBackend};

/// Arguments of `warp plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Instance JSON file (`-` for standard input).
    #[arg(long, short, default_value = "-")]
    pub input: PathBuf,
    /// Pretty-print the plan.
    #[arg(long)]
    pub pretty: bool,
    /// Plan with planner-core compiled into this binary instead of the
    /// WebAssembly component (same output, no wasmtime).
    #[arg(long)]
    pub native: bool,
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
    let req = inst.request();
    let out = if args.native {
        let (requests, summary) = NativeBackend::new(Limits::default()).plan(&req)?;
        PlanJson::from(&Plan {
            requests: &requests,
            summary,
        })
    } else {
        let (requests, summary) = PlannerComponent::new()?.plan(&req)?;
        PlanJson::from(&Plan {
            requests: &requests,
            summary,
        })
    };
    if args.pretty {
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{}", out.to_json());
    }
    Ok(())
}
