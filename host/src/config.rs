//! Host configuration: [`HostConfigBuilder`] (environment `WARP_*`, then
//! `with_*` setters, then a fallible [`HostConfigBuilder::build`]).
//!
//! Invalid values are kept and reported by `build()`, naming the key.

use crate::error::{Error, Result};
use crate::store::SimulateConfig;

/// Which planner the query path uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlannerKind {
    /// The WebAssembly planner component in wasmtime (when this build has it).
    Component,
    /// `planner_core` compiled into the host.
    Native,
}

/// A validated host configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct HostConfig {
    /// Index location: a path, `file://`, `memory://` or `s3://` URL.
    pub url: String,
    /// Global limit on concurrent GETs.
    pub io_slots: usize,
    /// Payload cache capacity, bytes (0 disables the cache).
    pub cache_bytes: u64,
    /// Latency simulation of GETs, if any.
    pub simulate: Option<SimulateConfig>,
    /// The planner.
    pub planner: PlannerKind,
}

/// The environment variables [`HostConfigBuilder::from_env`] reads (other
/// `WARP_*` variables, e.g. of the test scripts, are not settings).
pub const ENV_KEYS: [&str; 5] = [
    "WARP_URL",
    "WARP_IO_SLOTS",
    "WARP_CACHE_BYTES",
    "WARP_SIMULATE",
    "WARP_PLANNER",
];

/// Builds a [`HostConfig`].
#[derive(Debug)]
pub struct HostConfigBuilder {
    url: String,
    io_slots: usize,
    cache_bytes: u64,
    simulate: Option<SimulateConfig>,
    planner: PlannerKind,
    problems: Vec<Error>,
}

impl Default for HostConfigBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl HostConfigBuilder {
    /// Defaults: url `warp-index` (a local directory), 64 I/O slots, 64 MiB
    /// cache, no simulation, the component planner.
    pub fn new() -> Self {
        Self {
            url: "warp-index".into(),
            io_slots: 64,
            cache_bytes: 64 << 20,
            simulate: None,
            planner: PlannerKind::Component,
            problems: Vec::new(),
        }
    }

    /// [`HostConfigBuilder::new`] overridden by the environment: `WARP_URL`,
    /// `WARP_IO_SLOTS`, `WARP_CACHE_BYTES`, `WARP_SIMULATE` (`s3` or `none`),
    /// `WARP_PLANNER` (`component` or `native`).
    pub fn from_env() -> Self {
        let mut b = Self::new();
        for key in ENV_KEYS {
            if let Ok(value) = std::env::var(key) {
                b = b.with_config(key, &value);
            }
        }
        b
    }

    /// Sets one key by name (`WARP_URL` or `url`, `WARP_IO_SLOTS` or
    /// `io_slots`, …); unknown keys are reported at `build()`.
    pub fn with_config(mut self, key: &str, value: &str) -> Self {
        let name = key.trim_start_matches("WARP_").to_ascii_lowercase();
        match name.as_str() {
            "url" => self.url = value.to_string(),
            "io_slots" => match value.parse() {
                Ok(v) => self = self.with_io_slots(v),
                Err(_) => self
                    .problems
                    .push(Error::config(key, value, "expected an integer >= 1")),
            },
            "cache_bytes" => match value.parse() {
                Ok(v) => self.cache_bytes = v,
                Err(_) => self
                    .problems
                    .push(Error::config(key, value, "expected a byte count")),
            },
            "simulate" => match value {
                "s3" => self.simulate = Some(SimulateConfig::s3()),
                "none" | "" => self.simulate = None,
                _ => self
                    .problems
                    .push(Error::config(key, value, "expected s3 or none")),
            },
            "planner" => match value {
                "component" => self.planner = PlannerKind::Component,
                "native" => self.planner = PlannerKind::Native,
                _ => self
                    .problems
                    .push(Error::config(key, value, "expected component or native")),
            },
            _ => self
                .problems
                .push(Error::config(key, value, "unknown setting")),
        }
        self
    }

    /// Index location. Default `warp-index`.
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = url.into();
        self
    }

    /// Concurrent GETs across all queries, >= 1. Default 64.
    pub fn with_io_slots(mut self, slots: usize) -> Self {
        if slots == 0 {
            self.problems
                .push(Error::config("io_slots", 0, "must be >= 1"));
        }
        self.io_slots = slots;
        self
    }

    /// Payload cache capacity in bytes; 0 disables. Default 64 MiB.
    pub fn with_cache_bytes(mut self, bytes: u64) -> Self {
        self.cache_bytes = bytes;
        self
    }

    /// Simulated S3 latency on GETs. Default none.
    pub fn with_simulate(mut self, sim: Option<SimulateConfig>) -> Self {
        self.simulate = sim;
        self
    }

    /// The simulation set so far.
    pub fn simulate(&self) -> Option<SimulateConfig> {
        self.simulate
    }

    /// The planner. Default [`PlannerKind::Component`].
    pub fn with_planner(mut self, planner: PlannerKind) -> Self {
        self.planner = planner;
        self
    }

    /// Validates and returns the configuration.
    ///
    /// # Errors
    /// The first invalid setting, as [`Error::Config`].
    pub fn build(mut self) -> Result<HostConfig> {
        if let Some(sim) = &self.simulate
            && let Err(reason) = sim.validate()
        {
            self.problems.push(Error::config("simulate", "s3", reason));
        }
        if self.url.is_empty() {
            self.problems
                .push(Error::config("url", "", "must not be empty"));
        }
        if let Some(e) = self.problems.into_iter().next() {
            return Err(e);
        }
        Ok(HostConfig {
            url: self.url,
            io_slots: self.io_slots,
            cache_bytes: self.cache_bytes,
            simulate: self.simulate,
            planner: self.planner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_are_reported_at_build() {
        let e = HostConfigBuilder::new()
            .with_config("WARP_IO_SLOTS", "many")
            .build()
            .unwrap_err()
            .to_string();
        assert!(e.contains("WARP_IO_SLOTS") && e.contains("integer"), "{e}");
        let e = HostConfigBuilder::new()
            .with_io_slots(0)
            .build()
            .unwrap_err();
        assert!(e.to_string().contains("io_slots"));
        let c = HostConfigBuilder::new()
            .with_config("simulate", "s3")
            .with_config("planner", "native")
            .with_cache_bytes(0)
            .build()
            .unwrap();
        assert_eq!(c.simulate, Some(SimulateConfig::s3()));
        assert_eq!(c.planner, PlannerKind::Native);
        assert_eq!(c.cache_bytes, 0);
    }
}
