//! The simulated-S3 flags (`--simulate s3` and `--sim-*`), one set for every
//! subcommand that opens a store (`query`, `bench`, `calibrate`): the same
//! names, ranges and meaning everywhere. The model and the defaults' sources
//! are [`SimulateConfig`]'s.

use clap::Args;

use super::args::{latency_ms, probability};
use crate::config::HostConfigBuilder;
use crate::store::SimulateConfig;
use crate::store::planned::simulate_bounds;

/// The simulated-S3 flags (`--simulate s3` and its parameters; see
/// [`SimulateConfig`] for the model and the defaults' sources).
#[derive(Debug, Clone, Default, Args)]
pub struct SimulateArgs {
    /// Simulate S3 latency on every GET: "s3" or "none" (default: $WARP_SIMULATE or none).
    #[arg(long, value_parser = ["s3", "none"])]
    pub simulate: Option<String>,
    /// Simulated S3: median first-byte latency of a tiny GET, ms, 0..=60000 (default 25).
    #[arg(long, value_parser = latency_ms)]
    pub sim_first_byte_ms: Option<f64>,
    /// Simulated S3: extra latency per MiB, ms, 0..=60000 (default 5).
    #[arg(long, value_parser = latency_ms)]
    pub sim_per_mib_ms: Option<f64>,
    /// Simulated S3: bandwidth of the link shared by all GETs, MiB/s; 0 = unlimited, else
    /// 0.1..=1e9 (default 4096).
    #[arg(long, value_parser = rate_mib_s)]
    pub sim_link_mib_s: Option<f64>,
    /// Simulated S3: probability of a long-tail GET, 0..=1 (default 0.02).
    #[arg(long, value_parser = probability)]
    pub sim_tail: Option<f64>,
    /// Simulated S3: a tail GET is this many times slower, 1..=1000 (sets both ends of the factor range; default 2..4).
    #[arg(long, value_parser = tail_factor)]
    pub sim_tail_factor: Option<f64>,
    /// Simulated S3: log-standard-deviation of the lognormal first-byte body, 0..=3 (default 0).
    #[arg(long, value_parser = sigma)]
    pub sim_first_byte_sigma: Option<f64>,
    /// Simulated S3: per-connection throughput cap, MiB/s per GET; 0 = none, else 0.1..=1e9
    /// (default 0).
    #[arg(long, value_parser = rate_mib_s)]
    pub sim_conn_mib_s: Option<f64>,
    /// Simulated S3: seed of the latency draws (default 7).
    #[arg(long)]
    pub sim_seed: Option<u64>,
}

impl SimulateArgs {
    /// Applies `--simulate` and the overrides to `b`. Setting any `--sim-*`
    /// flag implies `--simulate s3` unless `--simulate none` is given.
    pub fn apply(&self, mut b: HostConfigBuilder) -> HostConfigBuilder {
        if let Some(s) = &self.simulate {
            b = b.with_config("simulate", s);
        }
        let any = self.sim_first_byte_ms.is_some()
            || self.sim_per_mib_ms.is_some()
            || self.sim_link_mib_s.is_some()
            || self.sim_tail.is_some()
            || self.sim_tail_factor.is_some()
            || self.sim_first_byte_sigma.is_some()
            || self.sim_conn_mib_s.is_some()
            || self.sim_seed.is_some();
        if any && self.simulate.as_deref() != Some("none") {
            let base = b.simulate().unwrap_or_default();
            b = b.with_simulate(Some(SimulateConfig {
                first_byte_ms: self.sim_first_byte_ms.unwrap_or(base.first_byte_ms),
                per_mib_ms: self.sim_per_mib_ms.unwrap_or(base.per_mib_ms),
                link_mib_per_s: self.sim_link_mib_s.unwrap_or(base.link_mib_per_s),
                tail_probability: self.sim_tail.unwrap_or(base.tail_probability),
                tail_min_factor: self.sim_tail_factor.unwrap_or(base.tail_min_factor),
                tail_max_factor: self.sim_tail_factor.unwrap_or(base.tail_max_factor),
                first_byte_sigma: self.sim_first_byte_sigma.unwrap_or(base.first_byte_sigma),
                per_conn_mib_per_s: self.sim_conn_mib_s.unwrap_or(base.per_conn_mib_per_s),
                seed: self.sim_seed.unwrap_or(base.seed),
            }));
        }
        b
    }
}

/// `--sim-link-mib-s`, `--sim-conn-mib-s`: 0 (no limit) or a rate in
/// `0.1..=1e9` MiB/s, the latency model's own range
/// ([`simulate_bounds::RATE_MIB_PER_S`]; a rate near 0 would only make a run
/// hang, and at 0.1 MiB/s a MiB takes ten seconds).
fn rate_mib_s(s: &str) -> Result<f64, String> {
    simulate_bounds::RATE_MIB_PER_S.parse(s)
}

/// `--sim-tail-factor`: the model's range, `1..=1000`
/// ([`simulate_bounds::TAIL_FACTOR`]).
fn tail_factor(s: &str) -> Result<f64, String> {
    simulate_bounds::TAIL_FACTOR.parse(s)
}

/// `--sim-first-byte-sigma`: the model's range, `0..=3`
/// ([`simulate_bounds::FIRST_BYTE_SIGMA`]).
fn sigma(s: &str) -> Result<f64, String> {
    simulate_bounds::FIRST_BYTE_SIGMA.parse(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_flags_override_the_profile() {
        let args = SimulateArgs {
            sim_tail: Some(0.05),
            sim_tail_factor: Some(10.0),
            sim_conn_mib_s: Some(90.0),
            ..SimulateArgs::default()
        };
        let cfg = args.apply(HostConfigBuilder::new()).build().unwrap();
        let sim = cfg.simulate.unwrap();
        assert_eq!(sim.tail_probability, 0.05);
        assert_eq!((sim.tail_min_factor, sim.tail_max_factor), (10.0, 10.0));
        assert_eq!(sim.per_conn_mib_per_s, 90.0);
        assert_eq!(sim.first_byte_ms, 25.0);
        let bad = SimulateArgs {
            sim_first_byte_sigma: Some(-1.0),
            ..SimulateArgs::default()
        };
        let e = bad.apply(HostConfigBuilder::new()).build().unwrap_err();
        assert!(e.to_string().contains("first_byte_sigma"), "{e}");
        let none = SimulateArgs {
            simulate: Some("none".into()),
            sim_tail: Some(0.5),
            ..SimulateArgs::default()
        };
        assert_eq!(
            none.apply(HostConfigBuilder::new())
                .build()
                .unwrap()
                .simulate,
            None
        );
    }

    #[test]
    fn bounded_flags_refuse_out_of_range_values() {
        assert_eq!(tail_factor("10"), Ok(10.0));
        for bad in ["0.5", "1001", "inf", "NaN", "x"] {
            assert!(tail_factor(bad).is_err(), "{bad}");
        }
        assert_eq!(sigma("0.3"), Ok(0.3));
        assert!(sigma("-0.1").is_err() && sigma("3.5").is_err());
        assert_eq!(rate_mib_s("0"), Ok(0.0));
        assert_eq!(rate_mib_s("90"), Ok(90.0));
        assert_eq!(rate_mib_s("0.1"), Ok(0.1));
        for bad in ["1e-300", "0.05", "2e9", "-1", "inf", "NaN"] {
            assert!(rate_mib_s(bad).is_err(), "{bad}");
        }
        assert_eq!(
            rate_mib_s("1e-300").unwrap_err(),
            "expected a number in 0 or 0.1..=1000000000, got \"1e-300\""
        );
    }
}
