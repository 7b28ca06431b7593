//! `warp plan`: the planning JSON contract on the command line (README,
//! "Planning one query: `warp plan`").
//!
//! Plans through the embedded WebAssembly component by default (the code every
//! runtime shares); `--native` calls planner-core directly. Both print the same
//! bytes: the instance is parsed and the plan printed by the same code, only
//! the planning runs in one place or the other. Both run under the same
//! [`InputLimits`]: the input size, the planner workspace
//! and the deadline are checked here, before and around either runtime.

use std::path::PathBuf;

use clap::Args;
use planner_core::Plan;
use planner_core::json::{Instance, PlanJson};

use super::args::{OutputArgs, parse_bytes_nonzero};
use crate::config::{HostConfigBuilder, InputLimits};
use crate::error::{Error, Result};
use crate::input::{RAISE_INPUT, read_text, stdin_is_terminal};
use crate::output::{Output, note};
use crate::query::{BackendError, ComponentBackend, NativeBackend, PlanBackend};

/// Arguments of `warp plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Instance JSON file (`-` for standard input).
    #[arg(long, short, default_value = "-")]
    pub input: PathBuf,
    /// Plan with planner-core compiled into this binary instead of the
    /// WebAssembly component (same output, no wasmtime).
    #[arg(long)]
    pub native: bool,
    /// Largest instance read, bytes (K/M/G suffix allowed). Default: $WARP_MAX_INPUT_BYTES or 64M.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub max_input_bytes: Option<u64>,
    /// Longest planning time, milliseconds. Default: $WARP_PLAN_DEADLINE_MS or 60000.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub plan_deadline_ms: Option<u64>,
    /// Largest planner workspace, bytes (K/M/G suffix allowed). Default: $WARP_PLAN_MEMORY_BYTES or 1G.
    #[arg(long, value_parser = parse_bytes_nonzero)]
    pub plan_memory_bytes: Option<u64>,
    /// Output format.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl PlanArgs {
    /// The limits: environment, then these flags.
    ///
    /// # Errors
    /// An invalid `WARP_*` value or a zero limit.
    pub fn limits(&self) -> Result<InputLimits> {
        let mut b = HostConfigBuilder::from_env();
        if let Some(v) = self.max_input_bytes {
            b = b.with_max_input_bytes(v);
        }
        if let Some(v) = self.plan_deadline_ms {
            b = b.with_plan_deadline_ms(v);
        }
        if let Some(v) = self.plan_memory_bytes {
            b = b.with_plan_memory_bytes(v);
        }
        Ok(b.build()?.limits)
    }
}

/// Plans `inst` natively or in the component under the same
/// [`crate::limits::PlanLimits`]: the workspace bound (sized by the method) and the
/// deadline (native: planner-core's cooperative interrupt; component: the
/// epoch deadline). Refusals print exactly the planner's one line, the same
/// from both runtimes.
fn plan_within(inst: Instance, native: bool, limits: &InputLimits) -> Result<PlanJson> {
    let plan_limits = limits.plan_limits();
    let req = inst.request();
    let planned = if native {
        NativeBackend::new(plan_limits).plan(&req)
    } else {
        ComponentBackend::new(plan_limits).and_then(|mut c| c.plan(&req))
    };
    // Exactly the planner's line (the golden vectors' `error`); the limits
    // it names are `--plan-memory-bytes` / `--plan-deadline-ms` here.
    let (requests, summary) = planned.map_err(|e| match e {
        BackendError::Refused(p) => Error::input(p.to_string()),
        other => Error::from(other),
    })?;
    Ok(PlanJson::from(&Plan {
        requests: &requests,
        summary,
    }))
}

/// Plans the instance and prints the plan JSON on stdout.
///
/// # Errors
/// Closed stdout, unreadable or too large input, the planner's one-line
/// error naming the field, a workspace or deadline over the limits, or a
/// failed write.
pub fn execute(args: &PlanArgs) -> Result<()> {
    let limits = args.limits()?;
    let mut out = Output::stdout(args.output.pretty)?;
    if args.input.as_os_str() == "-" && stdin_is_terminal() {
        note(
            "warp plan: reading the instance JSON from standard input (end it with Ctrl-D), or pass --input FILE",
        );
    }
    let text = read_text(&args.input, "--input", limits.input_bytes, RAISE_INPUT)?;
    // Planner refusals print exactly their one line (the golden vectors'
    // `error`), the same from both runtimes.
    let inst = Instance::from_json(&text).map_err(|e| Error::input(e.to_string()))?;
    let plan = plan_within(inst, args.native, &limits)?;
    if args.output.pretty {
        let _ = out.json(&plan)?;
    } else {
        let _ = out.line(&plan.to_json())?;
    }
    out.finish()
}
