//! The accepted ranges of the numeric settings, one table for every way in:
//! the `warp-s3` flags parse with [`Bound::parse`], and [`check_model`]
//! checks a whole model for [`crate::start`] and `PUT /__warp/settings`, so
//! the command line and the admin API cannot drift apart. The model's ranges
//! are the latency model's own ([`warp_latency_model::bound`]), which the
//! in-process simulator checks with too; the faults' are here.

use warp_latency_model::SimulateConfig;
pub use warp_latency_model::bound::{
    Bound, FIRST_BYTE_SIGMA, LATENCY_MS, PROBABILITY, RATE_MIB_PER_S, TAIL_FACTOR,
};

use crate::faults::MAX_FAULT_MS;

/// An injected wait, ms: `delay_ms`, `stall_ms`.
pub const FAULT_MS: Bound = Bound::new(0.0, MAX_FAULT_MS);

/// Checks every field of `model` against its range and that
/// `tail_max_factor >= tail_min_factor` ([`SimulateConfig::check`], the
/// fields named `model.…`).
///
/// # Errors
/// A one-line message naming the field, its value and its range, e.g.
/// `model.first_byte_ms = 1e308 is outside 0..=60000`.
pub fn check_model(model: &SimulateConfig) -> Result<(), String> {
    model.check("model.")
}

#[cfg(test)]
mod tests {
    use warp_latency_model::{MAX_RATE_MIB_PER_S, MIN_RATE_MIB_PER_S};

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
