//! Flag parsing shared by every subcommand: one parser per concept, used as
//! clap value parsers, so a bad value is refused before any work with clap's
//! one-line error naming the flag.
//!
//! - [`parse_method`]: the planning method (`--method`, its parameters
//!   checked too), and [`parse_layout`]: the payload layout (`--layout
//!   NAME[:PARAM]`), both from [`crate::vocabulary`].
//! - [`parse_bytes`]: byte counts with an optional `K`/`M`/`G` suffix (powers of 1024),
//!   and [`parse_request_size`]: one request's size, `1 B..=1 GiB`.
//! - [`latency_ms`], [`non_negative`], [`probability`], [`at_least_one`]:
//!   bounded floats.
//!

use clap::Args;

pub use crate::vocabulary::{
    LAYOUTS, METHODS, layout_name, method_name, parse_layout, parse_method,
};

use crate::store::planned::simulate_bounds::{LATENCY_MS, PROBABILITY};

/// Output options every subcommand takes the same way.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct OutputArgs {
    /// Machine-readable output: JSON on stdout and no progress on stderr
    /// (the same in every subcommand: bench, demo, calibrate and tune-greedy
    /// print JSON instead of their table; plan, build, query, reorder and gc
    /// always print JSON, so there it only silences progress).
    #[arg(long)]
    pub json: bool,
    /// Indent the JSON printed on stdout.
    #[arg(long)]
    pub pretty: bool,
    /// Progress of long steps on stderr: `auto` (default: bars on a
    /// terminal, nothing otherwise, so that a failure leaves exactly one
    /// error line), `lines` (a line when each step starts and ends, for
    /// logs), `bars`, or `off`. `--json` implies `off`.
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
}

/// `--progress`: how long steps report on stderr.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressArg {
    /// Bars when stderr is a terminal, nothing otherwise.
    #[default]
    Auto,
    /// One line when each step starts and one when it ends.
    Lines,
    /// Bars (seen only on a terminal).
    Bars,
    /// Nothing.
    Off,
}

pub use crate::config::parse_bytes;

/// A byte count `>= 1` (see [`parse_bytes`]), for limits.
///
/// # Errors
/// Not a byte count, or zero.
pub fn parse_bytes_nonzero(s: &str) -> Result<u64, String> {
    match parse_bytes(s)? {
        0 => Err("must be at least 1 byte".into()),
        v => Ok(v),
    }
}

/// One request's size (`--sizes`, `--mean-size`): a byte count (see
/// [`parse_bytes`]) from 1 B to 1 GiB.
///
/// # Errors
/// Not a byte count, or out of that range.
pub fn parse_request_size(s: &str) -> Result<u64, String> {
    const MAX: u64 = crate::calibrate::MAX_SIZE;
    match parse_bytes(s)? {
        v if (1..=MAX).contains(&v) => Ok(v),
        _ => Err(format!(
            "{:?}: a request size must be 1 B to {} MiB",
            s.trim(),
            MAX >> 20
        )),
    }
}

fn finite(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{s:?} is not a finite number"))
}

/// A latency in milliseconds within the simulated model's own bound
/// ([`LATENCY_MS`], `0..=60000`: a larger value would only make a run hang),
/// so that a flag and a model file accept alike.
///
/// # Errors
/// Not a finite number, or outside [`LATENCY_MS`].
pub fn latency_ms(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if LATENCY_MS.contains(v) {
        Ok(v)
    } else {
        Err(format!("{v} ms is outside {LATENCY_MS} ms"))
    }
}

/// A finite number `>= 0`.
///
/// # Errors
/// Not a finite number, or negative.
pub fn non_negative(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{v} is negative"))
    }
}

/// A probability in `[0, 1]`.
///
/// # Errors
/// Not a finite number in `[0, 1]`.
pub fn probability(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if PROBABILITY.contains(v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside {PROBABILITY}"))
    }
}

/// A finite number `>= 1` (request parallelism `P`).
///
/// # Errors
/// Not a finite number `>= 1`.
pub fn at_least_one(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if v >= 1.0 {
        Ok(v)
    } else {
        Err(format!("{v} is below 1"))
    }
}

/// Request parallelism `P`: `inf` (unbounded) or a finite number `>= 1`;
/// returned as given.
///
/// # Errors
/// Anything else.
pub fn at_least_one_or_inf(s: &str) -> Result<String, String> {
    if s == "inf" {
        return Ok(s.into());
    }
    at_least_one(s)
        .map(|_| s.to_string())
        .map_err(|e| format!("{e} (expected a number >= 1 or inf)"))
}

/// The error tolerance ε of the warp planner, `0..=1`.
///
/// # Errors
/// Not a finite number in `[0, 1]`.
pub fn epsilon(s: &str) -> Result<f64, String> {
    probability(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_bounded() {
        assert_eq!(parse_bytes("64M").unwrap(), 64 << 20);
        assert!(parse_bytes("99999999999G").is_err());
        assert_eq!(parse_bytes("1.5M").unwrap(), 3 << 19);
        assert_eq!(parse_bytes("64MiB").unwrap(), 64 << 20);
        assert_eq!(parse_bytes("4 kb").unwrap(), 4096);
        assert_eq!(parse_bytes("18446744073709551615").unwrap(), u64::MAX);
        for bad in ["", "4X", "1.2.3", ".", "-1", "1e9", "inf", "NaN", "K"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_request_size("4K").unwrap(), 4096);
        assert!(parse_request_size("0").is_err() && parse_request_size("2G").is_err());
        assert!(latency_ms("1e12").unwrap_err().contains("60000"));
        assert!(latency_ms("NaN").is_err());
        assert!(latency_ms("-1").is_err());
        assert_eq!(latency_ms("25").unwrap(), 25.0);
        assert!(probability("1.5").is_err());
        assert!(at_least_one("0.5").is_err());
        assert!(non_negative("inf").is_err());
    }

    #[test]
    fn a_method_no_plan_can_use_is_refused_when_parsed() {
        let e = parse_method("coalesce:1:0").unwrap_err();
        assert!(e.contains("coalesce:1:0") && e.contains("SPAN"), "{e}");
        assert_eq!(
            parse_method("coalesce:1:1").unwrap(),
            planner_core::Method::Coalesce {
                max_gap: 1,
                max_span: Some(1)
            }
        );
        assert!(parse_method("coalesce:0").is_ok() && parse_method("warp").is_ok());
        assert!(parse_method("lance").is_err());
    }
}
