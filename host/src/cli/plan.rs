//! `warp plan`: the planning JSON contract on the command line (README,
//! "Planning one query: `warp plan`").
//!
//! Plans through the embedded WebAssembly component by default (the code every
//! runtime shares); `--native` calls planner-core directly. Both print the same
//! bytes: the instance is parsed and the plan printed by the same code, only
//! the planning runs in one place or the other. Both run under the same
//! [`Limits`](crate::config::Limits): the input size, the planner workspace
//! and the deadline are checked here, before and around either runtime.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use clap::Args;
use planner_core::json::{Instance, PlanJson};
use planner_core::{Capacity, Plan, Planner};

use super::args::{OutputArgs, parse_bytes_nonzero};
use crate::component::PlannerComponent;
use crate::config::{HostConfigBuilder, Limits};
use crate::dataset::human_bytes;
use crate::error::{Error, Result};
use crate::input::{read_text, stdin_is_terminal};
use crate::output::{Output, note};

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
    pub fn limits(&self) -> Result<Limits> {
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

/// Refuses an instance whose planner workspace
/// ([`Capacity::workspace_bytes`] for `n` intervals and `k_max`) exceeds
/// `limit`, naming what to change.
///
/// # Errors
/// [`Error::Input`] naming `k_max` and the limit.
pub fn check_workspace(n: usize, k_max: usize, limit: u64) -> Result<()> {
    let need = Capacity::new(n, k_max.min(n))
        .workspace_bytes()
        .map_or(u64::MAX, |b| b as u64);
    if need > limit {
        return Err(Error::input(format!(
            "k_max: planning {n} intervals with k_max {k_max} needs {} of planner workspace, above the limit of {} (lower k_max, or raise --plan-memory-bytes or WARP_PLAN_MEMORY_BYTES)",
            human_bytes(need),
            human_bytes(limit)
        )));
    }
    Ok(())
}

/// Plans `inst` natively or in the component, on a worker thread bounded
/// by `deadline_ms`.
fn plan_within(inst: Instance, native: bool, deadline_ms: u64) -> Result<PlanJson> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("warp-plan".into())
        .spawn(move || {
            let req = inst.request();
            let out = if native {
                let n = inst.intervals.len();
                Planner::new(Capacity::new(n, inst.k_max.min(n)))
                    .and_then(|mut p| p.plan(&req).map(|plan| PlanJson::from(&plan)))
                    .map_err(|e| Error::input(e.to_string()))
            } else {
                PlannerComponent::new()
                    .and_then(|mut c| c.plan(&req))
                    .map(|(requests, summary)| {
                        PlanJson::from(&Plan {
                            requests: &requests,
                            summary,
                        })
                    })
                    .map_err(|e| Error::input(e.to_string()))
            };
            let _ = tx.send(out);
        })
        .map_err(|source| Error::Io {
            path: "planner thread".into(),
            source,
        })?;
    match rx.recv_timeout(Duration::from_millis(deadline_ms)) {
        Ok(r) => r,
        // The worker is left running; the process exits with this error.
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Error::input(format!(
            "plan: no plan within the deadline of {deadline_ms} ms (raise it with --plan-deadline-ms or WARP_PLAN_DEADLINE_MS, or choose a faster method)"
        ))),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(Error::Planner {
            reason: "the planner thread stopped without an answer".into(),
        }),
    }
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
    let text = read_text(
        &args.input,
        "--input",
        limits.input_bytes,
        "--max-input-bytes or WARP_MAX_INPUT_BYTES",
    )?;
    // Planner refusals print exactly their one line (the golden vectors'
    // `error`), the same from both runtimes.
    let inst = Instance::from_json(&text).map_err(|e| Error::input(e.to_string()))?;
    check_workspace(inst.intervals.len(), inst.k_max, limits.plan_memory_bytes)?;
    let plan = plan_within(inst, args.native, limits.plan_deadline_ms)?;
    if args.output.pretty {
        let _ = out.json(&plan)?;
    } else {
        let _ = out.line(&plan.to_json())?;
    }
    out.finish()
}
