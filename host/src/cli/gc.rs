//! `warp gc`: remove index objects no manifest names any more, after a grace
//! period, never those of a build in progress (see [`crate::ivf::gc`] for
//! the rules).

use std::time::Duration;

use clap::Args;
use serde_json::json;

use super::args::OutputArgs;
use crate::error::Result;
use crate::ivf::claim::DEFAULT_TTL;
use crate::ivf::gc::{GcParams, collect};
use crate::output::{Flow, Output};
use crate::search::runtime;
use crate::store;

/// Arguments of `warp gc`.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// The index: a path, file:///dir, memory://name or s3://bucket/prefix.
    #[arg(long)]
    pub url: String,
    /// Grace period, e.g. `30min`, `6h`, `7days` (at least 15min unless
    /// --force): objects younger than this are kept, and nothing is removed
    /// until the current manifest is this old (readers of the previous
    /// manifest keep their objects that long).
    #[arg(long, value_parser = parse_duration, allow_hyphen_values = true)]
    pub older_than: Duration,
    /// Accept a grace period below 15min (tests; a store nobody else reads
    /// or builds on). Builds in progress stay protected by their claims.
    #[arg(long)]
    pub force: bool,
    /// Print what would be removed; remove nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format (JSON lines always; `--pretty` indents each).
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Parses a duration such as `90s`, `15min`, `6h` or `7days` (humantime).
fn parse_duration(s: &str) -> std::result::Result<Duration, String> {
    humantime::parse_duration(s).map_err(|e| {
        format!(
            "{e} (a duration such as 90s, 15min, 6h or 7days; got {:?})",
            crate::error::bound(s, 40)
        )
    })
}

/// Runs `warp gc`: one JSON line per object removed (or to be removed with
/// `--dry-run`), then one summary line saying what was kept and why.
///
/// # Errors
/// A grace period below the floor without `--force` (before anything is
/// read), store errors, an invalid manifest (nothing is removed then), or a
/// write to stdout that fails (a closed pipe ends quietly).
pub fn execute(args: &GcArgs) -> Result<()> {
    let params = GcParams {
        older_than: args.older_than,
        force: args.force,
        dry_run: args.dry_run,
        local_dir: store::local_dir(&args.url),
        claim_ttl: DEFAULT_TTL,
    };
    params.validate()?;
    let loc = store::open_existing(&args.url)?;
    // Before anything is removed: a closed stdout would lose the record.
    let mut out = Output::stdout(args.output.pretty)?;
    let report = runtime()?.block_on(collect(&loc, &params))?;
    for item in &report.items {
        if out.json(item)? == Flow::Stop {
            return Ok(());
        }
    }
    let _ = out.json(&json!({
        "url": loc.display,
        "dry_run": args.dry_run,
        "removed": report.items.len(),
        "removed_bytes": report.items.iter().map(|i| i.bytes).sum::<u64>(),
        "build_id": report.build_id,
        "manifest_age_s": report.manifest_age_s,
        "manifest_changed": report.manifest_changed,
        "kept_referenced": report.kept_referenced,
        "kept_claimed": report.kept_claimed,
        "kept_newer_than_manifest": report.kept_newer,
        "kept_recent": report.kept_recent,
        "kept_foreign": report.kept_foreign,
        "live_claims": report.live_claims,
    }))?;
    out.finish()
}
