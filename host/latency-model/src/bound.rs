//! [`Bound`]: the accepted range of one numeric setting, and the ranges of
//! [`SimulateConfig`](crate::SimulateConfig)'s fields. One table for every
//! way a model comes in: [`SimulateConfig::check`](crate::SimulateConfig::check)
//! (the in-process simulator's flags, the `warp-s3` admin API) and the
//! `warp-s3` flags, which parse with [`Bound::parse`].

use std::fmt;

use crate::config::{
    MAX_FIRST_BYTE_SIGMA, MAX_LATENCY_MS, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
};

/// A closed range `lo..=hi` of finite numbers, and `0` too when `zero_is_off`
/// (a rate of 0 means "no limit").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// Smallest value.
    pub lo: f64,
    /// Largest value.
    pub hi: f64,
    /// Whether `0` is accepted below `lo`.
    pub zero_is_off: bool,
}

impl Bound {
    /// `lo..=hi`.
    pub const fn new(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            zero_is_off: false,
        }
    }

    /// `0` (off) or `lo..=hi`.
    pub const fn or_off(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            zero_is_off: true,
        }
    }

    /// Whether `v` is finite and in range. `O(1)`.
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && ((self.lo..=self.hi).contains(&v) || (self.zero_is_off && v == 0.0))
    }

    /// Parses a command-line value.
    ///
    /// # Errors
    /// `expected a number in RANGE, got "S"`.
    pub fn parse(&self, s: &str) -> Result<f64, String> {
        match s.trim().parse::<f64>() {
            Ok(v) if self.contains(v) => Ok(v),
            _ => Err(format!("expected a number in {self}, got {s:?}")),
        }
    }
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.zero_is_off {
            write!(f, "0 or {}..={}", self.lo, self.hi)
        } else {
            write!(f, "{}..={}", self.lo, self.hi)
        }
    }
}

/// A latency, ms: `first_byte_ms`, `per_mib_ms`.
pub const LATENCY_MS: Bound = Bound::new(0.0, MAX_LATENCY_MS);
/// A rate, MiB/s (`0`: no limit): `link_mib_per_s`, `per_conn_mib_per_s`.
pub const RATE_MIB_PER_S: Bound = Bound::or_off(MIN_RATE_MIB_PER_S, MAX_RATE_MIB_PER_S);
/// A probability: `tail_probability`.
pub const PROBABILITY: Bound = Bound::new(0.0, 1.0);
/// A tail factor: `tail_min_factor`, `tail_max_factor`.
pub const TAIL_FACTOR: Bound = Bound::new(1.0, MAX_TAIL_FACTOR);
/// The first-byte log-standard-deviation: `first_byte_sigma`.
pub const FIRST_BYTE_SIGMA: Bound = Bound::new(0.0, MAX_FIRST_BYTE_SIGMA);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_print_and_parse_alike() {
        assert_eq!(LATENCY_MS.to_string(), "0..=60000");
        assert_eq!(RATE_MIB_PER_S.to_string(), "0 or 0.1..=1000000000");
        assert_eq!(LATENCY_MS.parse(" 25 "), Ok(25.0));
        assert_eq!(RATE_MIB_PER_S.parse("0"), Ok(0.0));
        assert_eq!(
            RATE_MIB_PER_S.parse("1e-300").unwrap_err(),
            "expected a number in 0 or 0.1..=1000000000, got \"1e-300\""
        );
        for bad in ["NaN", "inf", "-1", "60000.5", ""] {
            assert!(LATENCY_MS.parse(bad).is_err(), "{bad}");
        }
        assert!(!PROBABILITY.contains(-0.5));
        assert!(TAIL_FACTOR.contains(1.0) && !TAIL_FACTOR.contains(0.5));
    }
}
