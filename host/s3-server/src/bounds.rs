//! The accepted ranges of the numeric settings, one table for every way in:
//! the `warp-s3` flags parse with [`Bound::parse`], and [`check_model`]
//! checks a whole model for [`crate::start`] and `PUT /__warp/settings`, so
//! the command line and the admin API cannot drift apart.

use std::fmt;

use warp_latency_model::{
    MAX_FIRST_BYTE_SIGMA, MAX_LATENCY_MS, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
    SimulateConfig,
};

use crate::faults::MAX_FAULT_MS;

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
    const fn new(lo: f64, hi: f64) -> Self {
        Self {
            lo,
            hi,
            zero_is_off: false,
        }
    }

    /// Whether `v` is finite and in range.
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
/// A rate, MiB/s (`0`: no limit): `link_mib_per_s`, `per_conn_mib_per_s`;
/// the latency model's own bounds ([`MIN_RATE_MIB_PER_S`]: one MiB a minute).
pub const RATE_MIB_PER_S: Bound = Bound {
    lo: MIN_RATE_MIB_PER_S,
    hi: MAX_RATE_MIB_PER_S,
    zero_is_off: true,
};
/// A probability: `tail_probability` and the fault rates.
pub const PROBABILITY: Bound = Bound::new(0.0, 1.0);
/// A tail factor: `tail_min_factor`, `tail_max_factor`.
pub const TAIL_FACTOR: Bound = Bound::new(1.0, MAX_TAIL_FACTOR);
/// The first-byte log-standard-deviation: `first_byte_sigma`.
pub const FIRST_BYTE_SIGMA: Bound = Bound::new(0.0, MAX_FIRST_BYTE_SIGMA);
/// An injected wait, ms: `delay_ms`, `stall_ms`.
pub const FAULT_MS: Bound = Bound::new(0.0, MAX_FAULT_MS);

/// Checks every field of `model` against its bound above, and that
/// `tail_max_factor >= tail_min_factor`.
///
/// # Errors
/// A one-line message naming the field, its value and its range, e.g.
/// `model.first_byte_ms = 1e308 is outside 0..=60000`.
pub fn check_model(model: &SimulateConfig) -> Result<(), String> {
    let fields = [
        ("first_byte_ms", model.first_byte_ms, LATENCY_MS),
        ("per_mib_ms", model.per_mib_ms, LATENCY_MS),
        ("link_mib_per_s", model.link_mib_per_s, RATE_MIB_PER_S),
        ("tail_probability", model.tail_probability, PROBABILITY),
        ("tail_min_factor", model.tail_min_factor, TAIL_FACTOR),
        ("tail_max_factor", model.tail_max_factor, TAIL_FACTOR),
        ("first_byte_sigma", model.first_byte_sigma, FIRST_BYTE_SIGMA),
        (
            "per_conn_mib_per_s",
            model.per_conn_mib_per_s,
            RATE_MIB_PER_S,
        ),
    ];
    for (name, value, bound) in fields {
        if !bound.contains(value) {
            // `{:?}` keeps 1e308 short (`{}` would print 309 digits).
            return Err(format!("model.{name} = {value:?} is outside {bound}"));
        }
    }
    if model.tail_max_factor < model.tail_min_factor {
        return Err(format!(
            "model.tail_max_factor = {:?} is below model.tail_min_factor = {:?}",
            model.tail_max_factor, model.tail_min_factor
        ));
    }
    // The model's own check, in case it grows a rule this table lacks.
    model.validate()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_field_is_bounded() {
        assert!(check_model(&SimulateConfig::s3()).is_ok());
        let s3 = SimulateConfig::s3();
        let err = |m: SimulateConfig| check_model(&m).unwrap_err();
        let e = err(SimulateConfig {
            first_byte_ms: 1e308,
            ..s3
        });
        assert_eq!(e, "model.first_byte_ms = 1e308 is outside 0..=60000");
        assert!(
            err(SimulateConfig {
                first_byte_ms: 60_001.0,
                ..s3
            })
            .contains("first_byte_ms")
        );
        assert!(
            err(SimulateConfig {
                per_mib_ms: 1e308,
                ..s3
            })
            .contains("per_mib_ms")
        );
        let e = err(SimulateConfig {
            link_mib_per_s: 1e-300,
            ..s3
        });
        assert_eq!(
            e,
            "model.link_mib_per_s = 1e-300 is outside 0 or 0.1..=1000000000"
        );
        assert!(
            err(SimulateConfig {
                per_conn_mib_per_s: 1e-300,
                ..s3
            })
            .contains("per_conn_mib_per_s")
        );
        assert!(
            err(SimulateConfig {
                tail_min_factor: 3.0,
                tail_max_factor: 2.0,
                ..s3
            })
            .contains("below model.tail_min_factor")
        );
        // 0 is "no limit" for a rate, and the ends of each range are in it.
        for ok in [
            SimulateConfig {
                link_mib_per_s: 0.0,
                per_conn_mib_per_s: 0.0,
                ..s3
            },
            SimulateConfig {
                link_mib_per_s: MIN_RATE_MIB_PER_S,
                per_conn_mib_per_s: MAX_RATE_MIB_PER_S,
                first_byte_ms: 60_000.0,
                ..s3
            },
        ] {
            assert!(check_model(&ok).is_ok(), "{ok:?}");
        }
    }

    #[test]
    fn flags_parse_with_the_same_bounds() {
        assert_eq!(LATENCY_MS.parse(" 25 "), Ok(25.0));
        assert_eq!(RATE_MIB_PER_S.parse("0"), Ok(0.0));
        let e = RATE_MIB_PER_S.parse("1e-300").unwrap_err();
        assert_eq!(
            e,
            "expected a number in 0 or 0.1..=1000000000, got \"1e-300\""
        );
        assert!(LATENCY_MS.parse("NaN").is_err());
        assert!(LATENCY_MS.parse("inf").is_err());
        assert!(PROBABILITY.parse("-0.5").is_err());
    }
}
