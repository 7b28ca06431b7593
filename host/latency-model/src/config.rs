//! [`SimulateConfig`]: the parameters of the simulated S3 profile, their
//! defaults and their bounds (the ranges: [`crate::bound`]).

use crate::bound::{self, Bound};

/// Largest tail factor [`SimulateConfig::validate`] accepts.
pub const MAX_TAIL_FACTOR: f64 = 1000.0;
/// Largest first-byte log-standard-deviation [`SimulateConfig::validate`]
/// accepts.
pub const MAX_FIRST_BYTE_SIGMA: f64 = 3.0;
/// Largest latency [`SimulateConfig::validate`] accepts, ms: `first_byte_ms`
/// and `per_mib_ms` (a minute for one GET's first byte or for one MiB).
pub const MAX_LATENCY_MS: f64 = 60_000.0;
/// Slowest link or per-connection rate [`SimulateConfig::validate`] accepts
/// besides `0` (no limit), MiB/s: 0.1, ten seconds a MiB, within the minute
/// a MiB that [`MAX_LATENCY_MS`] allows `per_mib_ms`. A rate near 0 would
/// make every GET sleep for ever.
pub const MIN_RATE_MIB_PER_S: f64 = 0.1;
/// Fastest link or per-connection rate [`SimulateConfig::validate`] accepts,
/// MiB/s.
pub const MAX_RATE_MIB_PER_S: f64 = 1e9;

/// Parameters of the simulated S3 profile. [`SimulateConfig::s3`] gives the
/// defaults; each field says where its default comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulateConfig {
    /// Median first-byte latency of a tiny GET, ms. Default 25: the WaRP
    /// paper's S3 measurement (~25 ms for 1 KiB, ARCHITECTURE §2).
    pub first_byte_ms: f64,
    /// Extra latency per MiB requested, ms. Default 5, so 1 MiB takes ~30 ms,
    /// the paper's figure (an effective ~200 MiB/s per request in-region).
    pub per_mib_ms: f64,
    /// Bandwidth of the link all GETs share, MiB/s; `0` for unlimited.
    /// Default 4096 (≈ 34 Gbit/s, a network-optimized instance's S3
    /// throughput; 1024 models an ~8.6 Gbit/s instance).
    pub link_mib_per_s: f64,
    /// Probability that a GET lands in the long tail. Default 0.02 (S3's
    /// tail: a few percent of GETs take several times the median).
    pub tail_probability: f64,
    /// A tail GET's latency is multiplied by a factor uniform in
    /// `[tail_min_factor, tail_max_factor]`. Default 4.
    pub tail_max_factor: f64,
    /// Seed of the draws (draw `i` uses request number `i`). Default 7.
    pub seed: u64,
    /// Lower end of the tail factor, `>= 1`. Default 2 (so the default tail
    /// is 2–4×; set both ends to 10 for "2% of GETs 10× slower", the
    /// hedging benchmark's tail — see [`SimulateConfig::with_tail`]).
    pub tail_min_factor: f64,
    /// Spread of the first-byte body: `F` is multiplied by a lognormal factor
    /// of median 1 and log-standard-deviation `first_byte_sigma`. Default 0
    /// (a deterministic body, so existing benchmarks do not move); ~0.2–0.4
    /// resembles published S3 first-byte distributions.
    pub first_byte_sigma: f64,
    /// Per-connection throughput cap, MiB/s per request; `0` for none. One
    /// GET never streams faster than this, whatever the link. Default 0: the
    /// paper's 5 ms/MiB already implies ~200 MiB/s per request; AWS's
    /// guidance for a single S3 connection is ~85–100 MiB/s for large
    /// objects, which `--sim-conn-mib-s 90` models.
    pub per_conn_mib_per_s: f64,
}

impl SimulateConfig {
    /// S3 Standard from one instance in the same region (the defaults above).
    pub const fn s3() -> Self {
        Self {
            first_byte_ms: 25.0,
            per_mib_ms: 5.0,
            link_mib_per_s: 4096.0,
            tail_probability: 0.02,
            tail_max_factor: 4.0,
            seed: 7,
            tail_min_factor: 2.0,
            first_byte_sigma: 0.0,
            per_conn_mib_per_s: 0.0,
        }
    }

    /// The same profile with a fixed tail: a fraction `probability` of GETs
    /// exactly `factor` times slower (e.g. `0.02, 10.0`).
    pub const fn with_tail(mut self, probability: f64, factor: f64) -> Self {
        self.tail_probability = probability;
        self.tail_min_factor = factor;
        self.tail_max_factor = factor;
        self
    }

    /// Effective size term, ms per MiB: `max(per_mib_ms, 1000 /
    /// per_conn_mib_per_s)`.
    pub fn effective_per_mib_ms(&self) -> f64 {
        if self.per_conn_mib_per_s > 0.0 {
            self.per_mib_ms.max(1000.0 / self.per_conn_mib_per_s)
        } else {
            self.per_mib_ms
        }
    }

    /// The request-time surrogate matching this profile's median single GET
    /// (ignoring the tail and link contention):
    /// `t(L) = first_byte_ms + effective_per_mib_ms · L / 2^20`.
    pub fn surrogate(&self) -> planner_core::Surrogate {
        planner_core::Surrogate::Affine {
            fixed_ms: self.first_byte_ms,
            per_mib_ms: self.effective_per_mib_ms(),
        }
    }

    /// Every numeric field with its value and its accepted range
    /// ([`crate::bound`]), in declaration order. `O(1)`.
    pub fn fields(&self) -> [(&'static str, f64, Bound); 8] {
        [
            ("first_byte_ms", self.first_byte_ms, bound::LATENCY_MS),
            ("per_mib_ms", self.per_mib_ms, bound::LATENCY_MS),
            ("link_mib_per_s", self.link_mib_per_s, bound::RATE_MIB_PER_S),
            (
                "tail_probability",
                self.tail_probability,
                bound::PROBABILITY,
            ),
            ("tail_max_factor", self.tail_max_factor, bound::TAIL_FACTOR),
            ("tail_min_factor", self.tail_min_factor, bound::TAIL_FACTOR),
            (
                "first_byte_sigma",
                self.first_byte_sigma,
                bound::FIRST_BYTE_SIGMA,
            ),
            (
                "per_conn_mib_per_s",
                self.per_conn_mib_per_s,
                bound::RATE_MIB_PER_S,
            ),
        ]
    }

    /// Checks every field against its range ([`SimulateConfig::fields`])
    /// and that `tail_max_factor >= tail_min_factor`, naming a field as
    /// `{prefix}{name}` (the caller's spelling: `simulate.`, `model.`).
    ///
    /// # Errors
    /// A one-line message naming the field, its value and its range, e.g.
    /// `model.first_byte_ms = 1e308 is outside 0..=60000`.
    pub fn check(&self, prefix: &str) -> Result<(), String> {
        for (name, value, range) in self.fields() {
            if !range.contains(value) {
                // `{:?}` keeps 1e308 short (`{}` would print 309 digits).
                return Err(format!("{prefix}{name} = {value:?} is outside {range}"));
            }
        }
        if self.tail_max_factor < self.tail_min_factor {
            return Err(format!(
                "{prefix}tail_max_factor = {:?} is below {prefix}tail_min_factor = {:?}",
                self.tail_max_factor, self.tail_min_factor
            ));
        }
        Ok(())
    }

    /// [`SimulateConfig::check`] with the fields named `simulate.…`.
    ///
    /// # Errors
    /// As [`SimulateConfig::check`].
    pub fn validate(&self) -> Result<(), String> {
        self.check("simulate.")
    }
}

impl Default for SimulateConfig {
    fn default() -> Self {
        Self::s3()
    }
}
