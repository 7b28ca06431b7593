//! Flag parsing shared by every subcommand: one parser per concept, used as
//! clap value parsers, so a bad value is refused before any work with clap's
//! one-line error naming the flag.
//!
//! - [`parse_method`]: the planning method (`--method`), and
//!   [`parse_layout`]: the payload layout (`--layout NAME[:PARAM]`), both
//!   from [`crate::vocabulary`].
//! - [`parse_bytes`]: byte counts with an optional `K`/`M`/`G` suffix (powers of 1024).
//! - [`latency_ms`], [`non_negative`], [`probability`], [`at_least_one`]:
//!   bounded floats.
//!

use clap::Args;

pub use crate::vocabulary::{
    LAYOUTS, METHODS, layout_name, method_name, parse_layout, parse_method,
};

/// Largest simulated or surrogate latency a flag accepts, milliseconds (60 s):
/// a larger value would only make a run hang.
pub const MAX_LATENCY_MS: f64 = 60_000.0;

/// Output options every subcommand takes the same way.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct OutputArgs {
    /// Machine-readable output: JSON on stdout and no progress on stderr
    /// (the same in every subcommand; plan, build, query and reorder always
    /// print JSON, so here it only silences progress).
    #[arg(long)]
    pub json: bool,
    /// Indent the JSON printed on stdout.
    #[arg(long)]
    pub pretty: bool,
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

fn finite(s: &str) -> Result<f64, String> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{s:?} is not a finite number"))
}

/// A latency in milliseconds, `0..=MAX_LATENCY_MS`.
///
/// # Errors
/// Not a finite number, negative, or above [`MAX_LATENCY_MS`].
pub fn latency_ms(s: &str) -> Result<f64, String> {
    let v = finite(s)?;
    if (0.0..=MAX_LATENCY_MS).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} ms is outside 0..={MAX_LATENCY_MS} ms"))
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
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is not in [0, 1]"))
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
        assert!(latency_ms("1e12").unwrap_err().contains("60000"));
        assert!(latency_ms("NaN").is_err());
        assert!(latency_ms("-1").is_err());
        assert_eq!(latency_ms("25").unwrap(), 25.0);
        assert!(probability("1.5").is_err());
        assert!(at_least_one("0.5").is_err());
        assert!(non_negative("inf").is_err());
    }
}
