//! Payload-cache sizes for the cache study (paper §6.3): `warp bench
//! --cache-mib 0,10%,50%,all`.
//!
//! The cache is the query path's payload cache: a [moka] cache of whole
//! cluster payloads (key: list number), weighed by their bytes (and, for
//! IVF-Flat under squared L2, the 8-bit screens of lists hit twice), with moka's
//! default policy — TinyLFU admission (a count-min sketch of the access
//! frequency of every key seen, cached or not; a new list is admitted only
//! when it is estimated to be accessed more often than the LRU victim it
//! would evict) in front of LRU eviction. moka has no separate admission
//! window (Caffeine's W-TinyLFU has one), so a brand-new list has to be seen
//! a few times before it displaces a popular one.
//!
//! Why this policy for IVF payloads: probes are skewed (lists in dense
//! regions are probed by many queries), and a burst of one-off lists from
//! unusual queries must not flush the popular ones — frequency-based
//! admission prevents that, plain LRU does not. Why this crate: moka is the
//! maintained, concurrent, size-weighted cache of the Rust ecosystem, already
//! a dependency of the query path, and needs no tuning beyond a byte
//! capacity. A cache hit removes the list's interval before planning, so the
//! planner sees fewer (and more scattered) intervals: caching and planning
//! compose rather than compete.
//!
//! [moka]: https://docs.rs/moka

use crate::error::{Error, Result};

/// The largest cache a sweep accepts in MiB: 1 TiB (any size above the
/// payload behaves like `all`).
pub const MAX_CACHE_MIB: u64 = 1 << 20;

/// One payload-cache size of a sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CacheSize {
    /// A capacity in MiB (`0` disables the cache).
    Mib(u64),
    /// A percentage (0–100) of the payload object's bytes.
    Percent(f64),
    /// Room for every list: twice the payload's bytes (a cached list hit
    /// twice is kept with its 8-bit screen, `d + 4` bytes a vector and `8·d`
    /// a list beside its `4·d + 4` a vector, so no list is evicted).
    All,
}

impl CacheSize {
    /// Parses `0`, `64` (MiB), `10%` or `all`.
    ///
    /// # Errors
    /// [`Error::Config`] naming `--cache-mib` and the value.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        let bad = |why: &str| Error::config("--cache-mib", s, why.to_string());
        if s.eq_ignore_ascii_case("all") {
            return Ok(Self::All);
        }
        if let Some(p) = s.strip_suffix('%') {
            let p: f64 = p
                .trim()
                .parse()
                .map_err(|_| bad("expected a percentage like 10%"))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(bad("a percentage must be within 0%..100%"));
            }
            return Ok(Self::Percent(p));
        }
        let m: u64 = s
            .parse()
            .map_err(|_| bad("expected MiB (e.g. 64), a percentage of the payload (10%) or all"))?;
        if m > MAX_CACHE_MIB {
            return Err(bad("at most 1048576 MiB (1 TiB)"));
        }
        Ok(Self::Mib(m))
    }

    /// Parses a comma-separated sweep, e.g. `0,10%,50%,all`; duplicates are
    /// kept in order.
    ///
    /// # Errors
    /// As [`CacheSize::parse`]; an empty list.
    pub fn parse_sweep(s: &str) -> Result<Vec<Self>> {
        let v: Vec<Self> = s
            .split(',')
            .filter(|x| !x.trim().is_empty())
            .map(Self::parse)
            .collect::<Result<_>>()?;
        if v.is_empty() {
            return Err(Error::config(
                "--cache-mib",
                s,
                "expected at least one size",
            ));
        }
        Ok(v)
    }

    /// The capacity in bytes for a payload of `payload_bytes`:
    /// `p% → ⌊payload · p / 100⌋`, `all → 2 · payload`, MiB as given.
    pub fn bytes(self, payload_bytes: u64) -> u64 {
        match self {
            Self::Mib(m) => m << 20,
            Self::Percent(p) => (payload_bytes as f64 * p / 100.0).floor() as u64,
            Self::All => payload_bytes.saturating_mul(2),
        }
    }

    /// The label in tables and plots (`0`, `64 MiB`, `10%`, `all`).
    pub fn label(self) -> String {
        match self {
            Self::Mib(0) => "0".to_string(),
            Self::Mib(m) => format!("{m} MiB"),
            Self::Percent(p) => format!("{p}%"),
            Self::All => "all".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_parses_and_resolves_against_the_payload() {
        let v = CacheSize::parse_sweep("0, 10%,50%,all,64").unwrap();
        assert_eq!(
            v,
            [
                CacheSize::Mib(0),
                CacheSize::Percent(10.0),
                CacheSize::Percent(50.0),
                CacheSize::All,
                CacheSize::Mib(64)
            ]
        );
        let payload = 1_000_000;
        let bytes: Vec<u64> = v.iter().map(|c| c.bytes(payload)).collect();
        assert_eq!(bytes, [0, 100_000, 500_000, 2_000_000, 64 << 20]);
        let labels: Vec<String> = v.iter().map(|c| c.label()).collect();
        assert_eq!(labels, ["0", "10%", "50%", "all", "64 MiB"]);
    }

    #[test]
    fn bad_sizes_name_the_flag() {
        for bad in ["", "x", "-1", "101%", "abc%", "1e3", "2000000"] {
            let e = CacheSize::parse_sweep(bad).unwrap_err().to_string();
            assert!(e.contains("--cache-mib"), "{bad}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
