//! The per-GET random draws: the tail factor and the lognormal first-byte
//! body, seeded by the configuration's seed and the request number.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::SimulateConfig;

/// Multiplier that spreads request numbers over the seed space (the 64-bit
/// golden ratio, as in Fibonacci hashing).
const SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// The draws of one GET.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Draw {
    /// Request number `i` the draws were seeded with.
    pub request: u64,
    /// Tail factor `T`: `1`, or uniform in `[tail_min_factor,
    /// tail_max_factor]` with probability `tail_probability`.
    pub tail: f64,
    /// Lognormal first-byte body `B = exp(first_byte_sigma · Z)`,
    /// `Z ~ N(0, 1)` (median 1; exactly 1 when the sigma is 0).
    pub body: f64,
}

impl Draw {
    /// The draws of request number `request` under `config`.
    ///
    /// The generator is ChaCha8 seeded with `seed ⊕ (request · 0x9E3779B97F4A7C15)`;
    /// the order of the draws is fixed (tail coin, tail factor, body), so a
    /// profile without a body spread draws exactly what earlier versions drew.
    pub fn new(config: &SimulateConfig, request: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed ^ request.wrapping_mul(SPREAD));
        let tail = if rng.random::<f64>() < config.tail_probability {
            rng.random_range(config.tail_min_factor..=config.tail_max_factor)
        } else {
            1.0
        };
        let body = if config.first_byte_sigma > 0.0 {
            let z: f64 = rng.sample(rand_distr::StandardNormal);
            (config.first_byte_sigma * z).exp()
        } else {
            1.0
        };
        Self {
            request,
            tail,
            body,
        }
    }

    /// First-byte latency of this GET, ms: `T · first_byte_ms · B`.
    pub fn first_byte_ms(&self, config: &SimulateConfig) -> f64 {
        self.tail * config.first_byte_ms * self.body
    }

    /// This GET's own pace, ms per MiB: `T · effective_per_mib_ms` (`0`:
    /// the connection alone sets no limit).
    pub fn ms_per_mib(&self, config: &SimulateConfig) -> f64 {
        self.tail * config.effective_per_mib_ms()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_seeded_by_request_number() {
        let cfg = SimulateConfig {
            first_byte_sigma: 0.3,
            ..SimulateConfig::s3()
        };
        assert_eq!(Draw::new(&cfg, 5), Draw::new(&cfg, 5));
        assert_ne!(Draw::new(&cfg, 5).body, Draw::new(&cfg, 6).body);
        let other = SimulateConfig { seed: 8, ..cfg };
        assert_ne!(Draw::new(&cfg, 5).body, Draw::new(&other, 5).body);
    }

    #[test]
    fn tail_factors_stay_in_their_range_at_the_configured_rate() {
        let cfg = SimulateConfig::s3().with_tail(0.1, 10.0);
        let draws: Vec<Draw> = (0..10_000).map(|i| Draw::new(&cfg, i)).collect();
        let tails = draws.iter().filter(|d| d.tail > 1.0).count();
        assert!((800..=1200).contains(&tails), "{tails} tails of 10000");
        assert!(draws.iter().all(|d| d.tail == 1.0 || d.tail == 10.0));
        assert!(draws.iter().all(|d| d.body == 1.0), "sigma 0: no spread");
        let d = draws.iter().find(|d| d.tail > 1.0).unwrap();
        assert_eq!(d.first_byte_ms(&cfg), 250.0);
        assert_eq!(d.ms_per_mib(&cfg), 50.0);
    }
}
