//! `warp calibrate`: measure range-GET latency on a store and fit the
//! request-time surrogate `t(L)` (see [`crate::calibrate`]).

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::args::{OutputArgs, parse_request_size};
use super::simulate_args::SimulateArgs;
use crate::calibrate::{Calibration, MeasureConfig, Target, log_sizes, measure, plot_svg};
use crate::config::HostConfigBuilder;
use crate::error::{Error, Result};
use crate::ivf::manifest;
use crate::output::Output;
use crate::progress::Progress;
use crate::search::runtime;
use crate::store::{self, StoreLocation};

/// Arguments of `warp calibrate`.
///
/// When --url holds an index (a manifest.json under it), the GETs read its
/// payload object and nothing is written; otherwise (or with --scratch) a
/// scratch object of the largest size, named warp-calibrate-scratch-*.bin, is
/// written under the URL and deleted afterwards.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Store to measure: a path, file:///dir, memory://name or s3://bucket/prefix
    /// (S3 endpoint, region and keys from the AWS_* variables). Default: $WARP_URL or ./warp-index.
    #[arg(long)]
    pub url: Option<String>,
    /// Request sizes: MIN..MAX (doubling, e.g. 4K..64M) or a comma list (4K,1M,16M); K/M/G are binary units.
    #[arg(long, default_value = "4K..64M")]
    pub sizes: String,
    /// GETs per size at concurrency 1; at concurrency c, max(repeats, c) GETs with c in flight.
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Concurrency levels, comma-separated. The surrogate is fitted at the lowest; the others show load.
    #[arg(long, default_value = "1,8,32")]
    pub concurrency: String,
    /// Write the chosen surrogate (ARCHITECTURE §5 form, ready for `warp plan`) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Output format (`--json`: the whole report as JSON instead of the table).
    #[command(flatten)]
    pub output: OutputArgs,
    /// Draw the measured medians and p90s and the fitted curves to this SVG file.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Store the chosen surrogate in the index manifest at --url (query and bench then use it unless flags override).
    #[arg(long)]
    pub write_manifest: bool,
    /// Write and read a scratch object even when --url holds an index.
    #[arg(long)]
    pub scratch: bool,
    /// Seed of the request offsets and scratch bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Simulation flags.
    #[command(flatten)]
    pub sim: SimulateArgs,
}

/// Parses `--sizes`: `MIN..MAX` (doubling) or a comma list.
///
/// # Errors
/// [`Error::Config`] naming `--sizes`.
pub fn parse_sizes(s: &str) -> Result<Vec<u64>> {
    let parse_size =
        |t: &str| parse_request_size(t).map_err(|reason| Error::config("--sizes", t, reason));
    if let Some((lo, hi)) = s.split_once("..") {
        return log_sizes(parse_size(lo)?, parse_size(hi)?);
    }
    let mut v = s.split(',').map(parse_size).collect::<Result<Vec<_>>>()?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}

/// Runs `warp calibrate`.
///
/// # Errors
/// Bad arguments (before any I/O), store errors, and file errors of
/// `--out`/`--plot`.
pub fn execute(args: &CalibrateArgs) -> Result<()> {
    let mut b = HostConfigBuilder::from_env();
    if let Some(u) = &args.url {
        b = b.with_url(u.clone());
    }
    let cfg = args.sim.apply(b).build()?;
    let concurrency = crate::bench::limits::parse_concurrency("--concurrency", &args.concurrency)?;
    let mut mcfg = MeasureConfig {
        sizes: parse_sizes(&args.sizes)?,
        repeats: args.repeats,
        concurrency,
        seed: args.seed,
    };
    mcfg.concurrency.sort_unstable();
    mcfg.concurrency.dedup();
    // Bounds that do not depend on the object, before any I/O.
    mcfg.validate(u64::MAX)?;
    // Calibration measures a store; it never creates one (a mistyped
    // directory would otherwise be made, measured and reported as fine).
    if store::is_missing_local_dir(&cfg.url) {
        return Err(Error::config(
            "--url",
            crate::error::redact_url(&cfg.url),
            "no such directory (calibrate measures an existing store or index; create it first)",
        ));
    }
    // The files it writes, checked before the minutes of measuring.
    for (flag, path) in [("--out", &args.out), ("--plot", &args.plot)] {
        if let Some(path) = path {
            check_writable(flag, path)?;
        }
    }
    let loc = store::open(&cfg.url)?;
    let mut out = Output::stdout(args.output.pretty)?;
    let cal = runtime()?.block_on(async {
        let largest = mcfg.sizes.last().copied().unwrap_or(1);
        let target =
            Target::pick(&loc, args.scratch, args.write_manifest, largest, args.seed).await?;
        if let Err(e) = mcfg.validate(target.size) {
            remove(&loc, &target).await;
            return Err(e);
        }
        let read = match cfg.simulate {
            Some(sim) => loc.simulated(sim),
            None => loc.clone(),
        };
        if !args.output.json {
            eprintln!(
                "calibrating {} over {} ({}, {} bytes): {} GETs, {} MiB",
                read.display,
                target.path,
                if target.scratch {
                    "scratch object, deleted afterwards"
                } else {
                    "the index payload, read only"
                },
                target.size,
                mcfg.total_gets(),
                mcfg.total_bytes() >> 20
            );
        }
        let bar = Progress::new(
            mcfg.total_gets(),
            if args.output.json { "" } else { "range GETs" },
        );
        let measured = measure(
            Arc::clone(&read.store),
            &target.path,
            target.size,
            &mcfg,
            |n| bar.inc(n),
        )
        .await;
        bar.finish();
        remove(&loc, &target).await;
        let (samples, batches) = measured?;
        let cal = Calibration::from_measurements(&samples, &batches)?;
        if args.write_manifest {
            manifest::set_surrogate(&loc, cal.surrogate_spec()).await?;
        }
        Ok::<_, Error>(cal)
    })?;
    if let Some(path) = &args.out {
        let text = format!("{}\n", cal.surrogate_spec().to_json());
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    if let Some(path) = &args.plot {
        std::fs::write(path, plot_svg(&cal)?).map_err(|source| Error::Io {
            path: path.display().to_string(),
            source,
        })?;
    }
    let _ = if args.output.json {
        out.json(&cal.to_json())?
    } else {
        let mut text = cal.table();
        if args.write_manifest {
            text.push_str(&format!(
                "stored in the index manifest at {}\n",
                loc.display
            ));
        }
        out.text(&text)?
    };
    out.finish()
}

/// Deletes a scratch target, warning on stderr when that fails (the
/// measurement stands; the object is left for the user).
async fn remove(loc: &StoreLocation, target: &Target) {
    if let Err(e) = target.remove(loc).await {
        eprintln!("warning: could not delete {}: {e}", target.path);
    }
}

/// Checks that `path` (the value of `flag`) can be written once the run is
/// done: not a directory, in a directory that exists. `O(1)`.
///
/// # Errors
/// [`Error::Config`] naming `flag` and the path.
fn check_writable(flag: &str, path: &std::path::Path) -> Result<()> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let reason = if path.is_dir() {
        "is a directory"
    } else if !parent.is_dir() {
        "is in no existing directory"
    } else {
        return Ok(());
    };
    Err(Error::config(flag, path.display(), reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert!(parse_sizes("4X").is_err());
        assert!(
            parse_sizes("4K..2G")
                .unwrap_err()
                .to_string()
                .contains("--sizes")
        );
        assert!(parse_sizes("0,4K").is_err());
        assert_eq!(parse_sizes("4K..16K").unwrap(), vec![4096, 8192, 16384]);
        assert_eq!(parse_sizes("1M,4K").unwrap(), vec![4096, 1 << 20]);
        assert_eq!(parse_sizes("4K..64M").unwrap().len(), 15);
    }
}
