//! Seeded fault injection: which GETs fail, and how.
//!
//! Every GET that would succeed (the object exists, the range is
//! satisfiable) and whose key matches `fault_keys` draws at most one fault:
//!
//! ```text
//! u = first 8 bytes of SHA-256("{seed}|GET|{bucket/key without build ids}|{range}|{n}") / 2^64
//! fault = the first class c (in FAULTS order) with u < rate_1 + … + rate_c, or none
//! ```
//!
//! where `range` is the request's `Range` header (empty without one) and `n`
//! counts how often the same key and range were asked for before (a retry is
//! a new draw). A build id is a run of 16 lowercase hex digits (as in
//! `payload-0123456789abcdef.bin`), left out so that a fresh build of the
//! same data sees the same faults. The draw depends neither on arrival order
//! nor on concurrency.

use std::collections::HashMap;
use std::fmt;

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::bounds::{FAULT_MS, PROBABILITY};

/// Longest `fault_keys` pattern, characters.
pub const MAX_FAULT_KEYS_LEN: usize = 1000;
/// Longest injected delay or stall, ms (10 minutes).
pub const MAX_FAULT_MS: f64 = 600_000.0;
/// Distinct (key, range) pairs whose repeat counts are kept; past this the
/// counts start again from zero (so memory stays bounded).
pub const MAX_SEEN: usize = 1_000_000;

/// A fault class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Fault {
    /// `503 SlowDown` instead of the object.
    #[serde(rename = "503")]
    SlowDown,
    /// `500 InternalError` instead of the object.
    #[serde(rename = "500")]
    Internal,
    /// The connection is reset (TCP RST) without a response.
    #[serde(rename = "reset")]
    Reset,
    /// The headers promise the whole body; half is sent, then the
    /// connection is reset.
    #[serde(rename = "truncate")]
    Truncate,
    /// `Content-Range` names the range shifted by one byte (ranged GETs only).
    #[serde(rename = "wrong_range")]
    WrongRange,
    /// One byte of the body is XORed with `0xFF`.
    #[serde(rename = "flip")]
    Flip,
    /// The headers come `delay_ms` late (the body then streams at its pace).
    #[serde(rename = "delay")]
    Delay,
    /// The body stops half-way for `stall_ms`, then goes on.
    #[serde(rename = "stall")]
    Stall,
}

/// Every class, in draw order.
pub const FAULTS: [Fault; 8] = [
    Fault::SlowDown,
    Fault::Internal,
    Fault::Reset,
    Fault::Truncate,
    Fault::WrongRange,
    Fault::Flip,
    Fault::Delay,
    Fault::Stall,
];

impl Fault {
    /// The class's name in settings and statistics (`503`, `reset`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::SlowDown => "503",
            Self::Internal => "500",
            Self::Reset => "reset",
            Self::Truncate => "truncate",
            Self::WrongRange => "wrong_range",
            Self::Flip => "flip",
            Self::Delay => "delay",
            Self::Stall => "stall",
        }
    }

    /// Position in [`FAULTS`].
    pub fn index(self) -> usize {
        FAULTS.iter().position(|&f| f == self).unwrap_or(0)
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The fault settings: a rate per class, the delay and stall lengths, the
/// seed and which keys may be faulted. All rates 0 (the default) injects
/// nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultConfig {
    /// Seed of the draws.
    pub seed: u64,
    /// Regular expression; only GETs of matching `bucket/key`s are faulted
    /// (empty: all).
    pub fault_keys: String,
    /// Probability of a 503 per GET.
    pub rate_503: f64,
    /// Probability of a 500 per GET.
    pub rate_500: f64,
    /// Probability of a connection reset per GET.
    pub rate_reset: f64,
    /// Probability of a truncated body per GET.
    pub rate_truncate: f64,
    /// Probability of a shifted `Content-Range` per ranged GET.
    pub rate_wrong_range: f64,
    /// Probability of a flipped byte per GET.
    pub rate_flip: f64,
    /// Probability of delayed headers per GET.
    pub rate_delay: f64,
    /// Probability of a stalled body per GET.
    pub rate_stall: f64,
    /// Extra wait of a `delay` fault, ms. Default 300.
    pub delay_ms: f64,
    /// Pause of a `stall` fault, ms. Default 5000.
    pub stall_ms: f64,
}

impl Default for FaultConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            fault_keys: String::new(),
            rate_503: 0.0,
            rate_500: 0.0,
            rate_reset: 0.0,
            rate_truncate: 0.0,
            rate_wrong_range: 0.0,
            rate_flip: 0.0,
            rate_delay: 0.0,
            rate_stall: 0.0,
            delay_ms: 300.0,
            stall_ms: 5000.0,
        }
    }
}

impl FaultConfig {
    /// The rate of `fault`.
    pub fn rate(&self, fault: Fault) -> f64 {
        match fault {
            Fault::SlowDown => self.rate_503,
            Fault::Internal => self.rate_500,
            Fault::Reset => self.rate_reset,
            Fault::Truncate => self.rate_truncate,
            Fault::WrongRange => self.rate_wrong_range,
            Fault::Flip => self.rate_flip,
            Fault::Delay => self.rate_delay,
            Fault::Stall => self.rate_stall,
        }
    }

    /// Checks the settings and compiles `fault_keys`.
    ///
    /// # Errors
    /// A one-line message naming the setting: a rate outside `0..=1`, rates
    /// adding up to more than 1, a delay outside `0..=600000` ms, or a
    /// pattern that is too long or does not compile.
    pub fn compile(self) -> Result<Faults, String> {
        let mut sum = 0.0;
        for f in FAULTS {
            let r = self.rate(f);
            if !PROBABILITY.contains(r) {
                return Err(format!("rate_{f} = {r} is not a probability in 0..=1"));
            }
            sum += r;
        }
        if sum > 1.0 + 1e-9 {
            return Err(format!("the fault rates add up to {sum}, more than 1"));
        }
        for (name, v) in [("delay_ms", self.delay_ms), ("stall_ms", self.stall_ms)] {
            if !FAULT_MS.contains(v) {
                return Err(format!("{name} = {v} is outside {FAULT_MS}"));
            }
        }
        if self.fault_keys.chars().count() > MAX_FAULT_KEYS_LEN {
            return Err(format!(
                "fault_keys is longer than {MAX_FAULT_KEYS_LEN} characters"
            ));
        }
        let keys = if self.fault_keys.is_empty() {
            None
        } else {
            let re = RegexBuilder::new(&self.fault_keys)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| {
                    let first = e.to_string();
                    let line = first.lines().last().unwrap_or("").trim().to_string();
                    format!("fault_keys is not a valid regular expression: {line}")
                })?;
            Some(re)
        };
        Ok(Faults {
            config: self,
            keys,
            seen: HashMap::new(),
        })
    }
}

/// Compiled fault settings and the repeat counts of the draws.
#[derive(Debug)]
pub struct Faults {
    config: FaultConfig,
    keys: Option<Regex>,
    seen: HashMap<(String, String), u64>,
}

impl Faults {
    /// The settings.
    pub fn config(&self) -> &FaultConfig {
        &self.config
    }

    /// Carries the repeat counts of `old` over (settings changed mid-run).
    pub fn take_counts(&mut self, old: Faults) {
        self.seen = old.seen;
    }

    /// Forgets the repeat counts (the next request of each key and range
    /// draws as the first did).
    pub fn reset_counts(&mut self) {
        self.seen.clear();
    }

    /// The fault for a GET of `key` (`bucket/key`) with `Range` header
    /// `range` ("" without one), counting it as seen. O(|key|).
    pub fn draw(&mut self, key: &str, range: &str) -> Option<Fault> {
        if self.keys.as_ref().is_some_and(|re| !re.is_match(key)) {
            return None;
        }
        let stable = without_build_ids(key);
        if self.seen.len() >= MAX_SEEN {
            self.seen.clear();
        }
        let n = self
            .seen
            .entry((stable.clone(), range.to_string()))
            .or_insert(0);
        let nth = *n;
        *n += 1;
        let u = unit(&format!("{}|GET|{stable}|{range}|{nth}", self.config.seed));
        let mut acc = 0.0;
        for f in FAULTS {
            acc += self.config.rate(f);
            if u < acc {
                return Some(f);
            }
        }
        None
    }

    /// Which byte of a `len`-byte body a `flip` fault changes:
    /// SHA-256("{seed}|{key without build ids}|{range}") mod `len`.
    pub fn flip_position(&self, key: &str, range: &str, len: u64) -> u64 {
        let h = unit(&format!(
            "{}|{}|{range}",
            self.config.seed,
            without_build_ids(key)
        ));
        ((h * len as f64) as u64).min(len.saturating_sub(1))
    }
}

/// `text`'s SHA-256, first 8 bytes little-endian, over 2^64: uniform in `[0, 1)`.
fn unit(text: &str) -> f64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(first) as f64 / 2f64.powi(64)
}

/// `key` without build ids: every run of 16 lowercase hex digits, taken
/// left to right without overlap, is removed.
pub fn without_build_ids(key: &str) -> String {
    let b = key.as_bytes();
    let hex = |c: u8| c.is_ascii_digit() || (b'a'..=b'f').contains(&c);
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if i + 16 <= b.len() && b[i..i + 16].iter().all(|&c| hex(c)) {
            i += 16;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were removed, so the rest is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_ids_are_left_out() {
        assert_eq!(
            without_build_ids("b/idx/payload-0123456789abcdef.bin"),
            "b/idx/payload-.bin"
        );
        assert_eq!(without_build_ids("b/0123456789abcdef0123"), "b/0123");
        assert_eq!(without_build_ids("b/ünïcode"), "b/ünïcode");
    }

    #[test]
    fn rates_are_checked() {
        let bad = FaultConfig {
            rate_503: 0.7,
            rate_reset: 0.5,
            ..FaultConfig::default()
        };
        assert!(bad.compile().unwrap_err().contains("add up"));
        let neg = FaultConfig {
            rate_flip: -0.1,
            ..FaultConfig::default()
        };
        assert!(neg.compile().unwrap_err().contains("rate_flip"));
        let re = FaultConfig {
            fault_keys: "(".into(),
            ..FaultConfig::default()
        };
        assert!(re.compile().unwrap_err().contains("fault_keys"));
    }

    #[test]
    fn draws_are_seeded_repeatable_and_at_their_rates() {
        let cfg = FaultConfig {
            seed: 3,
            rate_503: 0.1,
            rate_truncate: 0.05,
            ..FaultConfig::default()
        };
        let mut a = cfg.clone().compile().unwrap();
        let mut b = cfg.compile().unwrap();
        let mut counts = HashMap::new();
        for i in 0..20_000 {
            let key = format!("b/k{}", i % 100);
            let f = a.draw(&key, "bytes=0-9");
            assert_eq!(f, b.draw(&key, "bytes=0-9"));
            *counts.entry(f).or_insert(0) += 1;
        }
        let n503 = counts[&Some(Fault::SlowDown)];
        let ntr = counts[&Some(Fault::Truncate)];
        assert!((1700..=2300).contains(&n503), "{n503}");
        assert!((800..=1200).contains(&ntr), "{ntr}");
        assert_eq!(counts.len(), 3);
        // A retry is a new draw; resetting the counts repeats the first.
        let mut c = FaultConfig {
            rate_reset: 0.5,
            ..FaultConfig::default()
        }
        .compile()
        .unwrap();
        let first: Vec<_> = (0..64).map(|_| c.draw("b/x", "")).collect();
        assert!(first.iter().any(Option::is_some) && first.iter().any(Option::is_none));
        c.reset_counts();
        let again: Vec<_> = (0..64).map(|_| c.draw("b/x", "")).collect();
        assert_eq!(first, again);
    }

    #[test]
    fn only_matching_keys_are_faulted() {
        let mut f = FaultConfig {
            rate_503: 1.0,
            fault_keys: "payload".into(),
            ..FaultConfig::default()
        }
        .compile()
        .unwrap();
        assert_eq!(f.draw("b/idx/payload.bin", ""), Some(Fault::SlowDown));
        assert_eq!(f.draw("b/idx/manifest.json", ""), None);
        assert!(f.flip_position("b/k", "", 10) < 10);
    }
}
