//! Host configuration: [`HostConfigBuilder`] (environment `WARP_*`, then
//! `with_*` setters, then a fallible [`HostConfigBuilder::build`]).
//!
//! Invalid values are kept and reported by `build()`, naming the key.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::store::SimulateConfig;
use warp_component::EngineOptions;

/// Which planner the query path uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlannerKind {
    /// The WebAssembly planner component in wasmtime (when this build has it).
    Component,
    /// `planner_core` compiled into the host.
    Native,
}

/// A validated host configuration.
///
/// Every setting has a `WARP_*` environment variable ([`ENV_KEYS`]) and a
/// `with_*` setter; the `warp` flags override the environment.
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
    /// Resource bounds of the planner and of the inputs.
    pub limits: InputLimits,
    /// The planner component's compilation settings and artifact cache.
    pub component: EngineOptions,
}

/// Bounds on what the `warp` host takes in: input files read whole, in-memory
/// datasets, and each planner call's workspace and time (the last two
/// become the planner's own [`PlanLimits`](planner_core::PlanLimits) through
/// [`plan_limits`](Self::plan_limits)). Everything beyond them is refused
/// with a one-line error before work is done. Not the S3-protocol server's
/// bounds (`warp_s3_server::ServerLimits`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputLimits {
    /// Longest planner call (`warp plan`, native or component),
    /// milliseconds. Default 60,000 (`WARP_PLAN_DEADLINE_MS`).
    pub plan_deadline_ms: u64,
    /// Largest planner workspace (`planner_core::Capacity::workspace_bytes`
    /// of the instance), bytes. Default 1 GiB (`WARP_PLAN_MEMORY_BYTES`).
    pub plan_memory_bytes: u64,
    /// Largest JSON or text input read whole (`warp plan` stdin and
    /// `--input`, `warp reorder --sizes` and `--query-log`), bytes. Default
    /// 64 MiB (`WARP_MAX_INPUT_BYTES`, flag `--max-input-bytes`).
    pub input_bytes: u64,
    /// Largest in-memory dataset: vector files read whole, generated
    /// vectors, and the estimated working set of `warp build`
    /// ([`DatasetSpec::memory_bytes`](crate::dataset::DatasetSpec::memory_bytes)), bytes. Default 3/4
    /// of the machine's memory (`/proc/meminfo`), or 8 GiB where unknown
    /// (`WARP_MAX_DATA_BYTES`, flag `--max-data-bytes`).
    pub data_bytes: u64,
}

impl InputLimits {
    /// The per-call caps of the planner under these limits: its
    /// `plan_memory_bytes` and, as the deadline's cap, its
    /// `plan_deadline_ms`; the deadline's size-derived part keeps
    /// [`PlanLimits::default`](planner_core::PlanLimits::default)'s.
    pub fn plan_limits(&self) -> planner_core::PlanLimits {
        planner_core::PlanLimits {
            plan_memory_bytes: self.plan_memory_bytes,
            max_deadline_ms: self.plan_deadline_ms,
            ..planner_core::PlanLimits::default()
        }
    }
}

impl Default for InputLimits {
    fn default() -> Self {
        Self {
            plan_deadline_ms: 60_000,
            plan_memory_bytes: 1 << 30,
            input_bytes: DEFAULT_INPUT_BYTES,
            data_bytes: default_data_bytes(),
        }
    }
}

/// Default of [`InputLimits::input_bytes`]: 64 MiB.
pub const DEFAULT_INPUT_BYTES: u64 = 64 << 20;

/// The machine's memory, bytes: `MemTotal` in `/proc/meminfo`; `None` where
/// unknown. One small file read.
pub fn mem_total_bytes() -> Option<u64> {
    std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kib| kib.saturating_mul(1024))
    })
}

/// Default of [`InputLimits::data_bytes`]: 3/4 of [`mem_total_bytes`], else
/// 8 GiB.
pub fn default_data_bytes() -> u64 {
    mem_total_bytes().map_or(8 << 30, |b| b / 4 * 3)
}

/// The planner component's engine options of the environment
/// (`WARP_PERFMAP`, `WARP_NOEPOCH`, `WARP_CACHE_DIR`; see
/// [`EngineOptions`]). Never fails: these keys accept any value.
pub fn component_env() -> EngineOptions {
    let mut b = HostConfigBuilder::new();
    for key in ["WARP_PERFMAP", "WARP_NOEPOCH", "WARP_CACHE_DIR"] {
        if let Some(value) = std::env::var_os(key) {
            b = b.with_config(key, &value.to_string_lossy());
        }
    }
    b.component
}

/// Configures the planner component's engine from the environment
/// ([`component_env`]) unless it was configured already; the `warp` command
/// calls it once at start.
pub fn configure_component() {
    // Already configured (a library caller chose first): keep theirs.
    let _ = warp_component::configure(component_env());
}

/// Prints `tracing` events at or above the level `WARP_LOG` names (`error`,
/// `warn`, `info`, `debug`, `trace`) on stderr, e.g. the load estimate's
/// refreshes at `debug`; unset or empty, nothing is installed (`warp serve`
/// installs its own request log). The `warp` command calls it once at start.
///
/// # Errors
/// [`Error::Config`] for another value.
pub fn configure_log() -> crate::error::Result<()> {
    let Ok(value) = std::env::var("WARP_LOG") else {
        return Ok(());
    };
    if value.trim().is_empty() {
        return Ok(());
    }
    let level: tracing::Level = value.trim().parse().map_err(|_| {
        crate::error::Error::config("WARP_LOG", &value, "one of error, warn, info, debug, trace")
    })?;
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(level)
        .with_ansi(false)
        .try_init();
    Ok(())
}

/// Parses a byte count: a number (digits, optionally with a decimal point)
/// with an optional unit `B`, `K`/`KB`/`KiB`, `M`/`MB`/`MiB`, `G`/`GB`/`GiB`
/// (case-insensitive, powers of 1024): `4096`, `64M`, `1.5M` (= 1 572 864).
/// Whole numbers are exact; a fraction is rounded to the nearest byte.
///
/// The one parser of every byte count an environment variable or a flag
/// takes (`WARP_CACHE_BYTES`, `WARP_MAX_DATA_BYTES`, `--max-data-bytes`,
/// `--max-body-bytes`, …). The sizes inside a method spelling
/// (`coalesce:1MiB:4MiB`) keep planner-core's narrower canonical grammar
/// (digits with `KiB`/`MiB`/`GiB`), which the Python and npm packages check
/// too; every such size reads the same here.
///
/// # Errors
/// Not a number with a known unit, or beyond `u64`.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let bad = || {
        format!(
            "{s:?} is not a byte count (a number with an optional K, M or G suffix, e.g. 4096, 64M, 1.5M)"
        )
    };
    let too_large = || {
        format!(
            "{s:?} is too large: a byte count is at most {} bytes (16 EiB)",
            u64::MAX
        )
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(bad()),
    };
    if let Ok(v) = num.parse::<u64>() {
        return v.checked_mul(mult).ok_or_else(too_large);
    }
    // A fraction: only digits and one point reach here, so no inf/NaN.
    let v: f64 = num.parse().map_err(|_| bad())?;
    let bytes = (v * mult as f64).round();
    if bytes.is_finite() && bytes < u64::MAX as f64 {
        Ok(bytes as u64)
    } else {
        Err(too_large())
    }
}

/// The environment variables [`HostConfigBuilder::from_env`] reads (other
/// `WARP_*` variables, e.g. of the test scripts, are not settings).
pub const ENV_KEYS: [&str; 12] = [
    "WARP_URL",
    "WARP_IO_SLOTS",
    "WARP_CACHE_BYTES",
    "WARP_SIMULATE",
    "WARP_PLANNER",
    "WARP_PLAN_DEADLINE_MS",
    "WARP_PLAN_MEMORY_BYTES",
    "WARP_MAX_INPUT_BYTES",
    "WARP_MAX_DATA_BYTES",
    "WARP_PERFMAP",
    "WARP_NOEPOCH",
    "WARP_CACHE_DIR",
];

/// Builds a [`HostConfig`].
#[derive(Debug)]
pub struct HostConfigBuilder {
    url: String,
    io_slots: usize,
    cache_bytes: u64,
    simulate: Option<SimulateConfig>,
    planner: PlannerKind,
    limits: InputLimits,
    component: EngineOptions,
    cache_set: bool,
    problems: Vec<Error>,
}

impl Default for HostConfigBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl HostConfigBuilder {
    /// Defaults: url `warp-index` (a local directory), 64 I/O slots, 64 MiB
    /// cache, no simulation, the component planner, [`InputLimits::default`],
    /// [`EngineOptions::default`].
    pub fn new() -> Self {
        Self {
            url: "warp-index".into(),
            io_slots: 64,
            cache_bytes: 64 << 20,
            simulate: None,
            planner: PlannerKind::Component,
            limits: InputLimits::default(),
            component: EngineOptions::default(),
            cache_set: false,
            problems: Vec::new(),
        }
    }

    /// [`HostConfigBuilder::new`] overridden by the environment ([`ENV_KEYS`]):
    /// `WARP_URL`, `WARP_IO_SLOTS`, `WARP_CACHE_BYTES`, `WARP_SIMULATE` (`s3`
    /// or `none`), `WARP_PLANNER` (`component` or `native`),
    /// `WARP_PLAN_DEADLINE_MS`, `WARP_PLAN_MEMORY_BYTES`,
    /// `WARP_MAX_INPUT_BYTES`, `WARP_MAX_DATA_BYTES` (see [`InputLimits`]),
    /// `WARP_PERFMAP`, `WARP_NOEPOCH`, `WARP_CACHE_DIR` (see [`EngineOptions`]).
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
    /// `io_slots`, …); unknown keys and bad values are reported at `build()`.
    pub fn with_config(mut self, key: &str, value: &str) -> Self {
        let name = key.trim_start_matches("WARP_").to_ascii_lowercase();
        let flag = |v: &str| !matches!(v.trim(), "0" | "false" | "no" | "off");
        let count = |this: &mut Self, what: &str| -> Option<u64> {
            let v = parse_bytes(value).ok();
            if v.is_none() {
                this.problems.push(Error::config(key, value, what));
            }
            v
        };
        match name.as_str() {
            "url" => self.url = value.to_string(),
            "plan_deadline_ms" => {
                if let Some(v) = count(&mut self, "expected milliseconds") {
                    self = self.with_plan_deadline_ms(v);
                }
            }
            "plan_memory_bytes" => {
                if let Some(v) = count(&mut self, "expected a byte count (K/M/G suffix allowed)") {
                    self = self.with_plan_memory_bytes(v);
                }
            }
            "max_input_bytes" => {
                if let Some(v) = count(&mut self, "expected a byte count (K/M/G suffix allowed)") {
                    self = self.with_max_input_bytes(v);
                }
            }
            "max_data_bytes" => {
                if let Some(v) = count(&mut self, "expected a byte count (K/M/G suffix allowed)") {
                    self = self.with_max_data_bytes(v);
                }
            }
            "perfmap" => self.component.perfmap = flag(value),
            "noepoch" => self.component.epoch_deadline = !flag(value),
            "cache_dir" => {
                self.component.cache_dir = (!value.is_empty()).then(|| PathBuf::from(value));
            }
            "io_slots" => match value.parse() {
                Ok(v) => self = self.with_io_slots(v),
                Err(_) => self
                    .problems
                    .push(Error::config(key, value, "expected an integer >= 1")),
            },
            "cache_bytes" => {
                if let Some(v) = count(&mut self, "expected a byte count (K/M/G suffix allowed)") {
                    self = self.with_cache_bytes(v);
                }
            }
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

    /// Concurrent GETs across all queries,
    /// `1..=`[`MAX_IO_SLOTS`](warp_planned_store::MAX_IO_SLOTS) (4 096).
    /// Default 64.
    pub fn with_io_slots(mut self, slots: usize) -> Self {
        let max = warp_planned_store::MAX_IO_SLOTS;
        if slots == 0 {
            self.problems
                .push(Error::config("io_slots", 0, "must be >= 1"));
        } else if slots > max {
            self.problems.push(Error::config(
                "io_slots",
                slots,
                format!("must be at most {max}"),
            ));
        }
        self.io_slots = slots;
        self
    }

    /// Payload cache capacity in bytes; 0 disables; at most
    /// [`InputLimits::data_bytes`]. Default 64 MiB.
    pub fn with_cache_bytes(mut self, bytes: u64) -> Self {
        self.cache_bytes = bytes;
        self.cache_set = true;
        self
    }

    /// The cache capacity a command uses when neither `WARP_CACHE_BYTES`
    /// nor [`HostConfigBuilder::with_cache_bytes`] set one (`warp bench`
    /// measures with no cache).
    pub fn with_default_cache_bytes(mut self, bytes: u64) -> Self {
        if !self.cache_set {
            self.cache_bytes = bytes;
        }
        self
    }

    /// [`InputLimits::plan_deadline_ms`], >= 1. Default 60,000.
    pub fn with_plan_deadline_ms(mut self, ms: u64) -> Self {
        if ms == 0 {
            self.problems
                .push(Error::config("plan_deadline_ms", 0, "must be >= 1"));
        }
        self.limits.plan_deadline_ms = ms;
        self
    }

    /// [`InputLimits::plan_memory_bytes`], `1..=`
    /// [`Planner::MAX_GUEST_MEMORY_LIMIT`](planner_core::Planner::MAX_GUEST_MEMORY_LIMIT)
    /// (2 016 MiB: what the planner component can hold, so that the native
    /// planner and the component refuse the same instances). Default 1 GiB.
    pub fn with_plan_memory_bytes(mut self, bytes: u64) -> Self {
        let max = planner_core::Planner::MAX_GUEST_MEMORY_LIMIT;
        if bytes == 0 {
            self.problems
                .push(Error::config("plan_memory_bytes", 0, "must be >= 1"));
        } else if bytes > max {
            self.problems.push(Error::config(
                "plan_memory_bytes",
                bytes,
                format!("must be at most {max} bytes (2016M: the planner component's 4 GiB holds no larger workspace)"),
            ));
        }
        self.limits.plan_memory_bytes = bytes;
        self
    }

    /// [`InputLimits::input_bytes`], >= 1. Default 64 MiB.
    pub fn with_max_input_bytes(mut self, bytes: u64) -> Self {
        if bytes == 0 {
            self.problems
                .push(Error::config("max_input_bytes", 0, "must be >= 1"));
        }
        self.limits.input_bytes = bytes;
        self
    }

    /// [`InputLimits::data_bytes`], >= 1. Default 3/4 of the machine's memory.
    pub fn with_max_data_bytes(mut self, bytes: u64) -> Self {
        if bytes == 0 {
            self.problems
                .push(Error::config("max_data_bytes", 0, "must be >= 1"));
        }
        self.limits.data_bytes = bytes;
        self
    }

    /// Component engine settings. Default [`EngineOptions::default`].
    pub fn with_component(mut self, component: EngineOptions) -> Self {
        self.component = component;
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
        // A cache size nobody set is a default, and a default never makes a
        // smaller memory bound invalid (`warp build --max-data-bytes 32M`
        // has no cache at all): it shrinks to the bound.
        if !self.cache_set {
            self.cache_bytes = self.cache_bytes.min(self.limits.data_bytes);
        }
        if self.cache_bytes > self.limits.data_bytes {
            self.problems.push(Error::config(
                "cache_bytes",
                self.cache_bytes,
                format!(
                    "exceeds the memory limit of {} bytes (max_data_bytes)",
                    self.limits.data_bytes
                ),
            ));
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
            limits: self.limits,
            component: self.component,
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
        // Above the bound: an error, not tokio's semaphore panic.
        for slots in ["4097", "18446744073709551615"] {
            let e = HostConfigBuilder::new()
                .with_config("WARP_IO_SLOTS", slots)
                .build()
                .unwrap_err()
                .to_string();
            assert!(e.contains("io_slots") && e.contains("at most 4096"), "{e}");
        }
        // The planner component's 4 GiB bounds the planner's workspace.
        let e = HostConfigBuilder::new()
            .with_config("WARP_PLAN_MEMORY_BYTES", "999999G")
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("plan_memory_bytes") && e.contains("at most"),
            "{e}"
        );
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

    #[test]
    fn limits_and_component_keys_are_settings() {
        let c = HostConfigBuilder::new()
            .with_config("WARP_MAX_INPUT_BYTES", "1M")
            .with_config("WARP_PLAN_DEADLINE_MS", "500")
            .with_config("plan_memory_bytes", "2000M")
            .with_config("WARP_MAX_DATA_BYTES", "1G")
            .with_config("WARP_PERFMAP", "1")
            .with_config("WARP_NOEPOCH", "")
            .with_config("WARP_CACHE_DIR", "")
            .with_default_cache_bytes(0)
            .build()
            .unwrap();
        assert_eq!(
            c.limits,
            InputLimits {
                plan_deadline_ms: 500,
                plan_memory_bytes: 2000 << 20,
                input_bytes: 1 << 20,
                data_bytes: 1 << 30,
            }
        );
        assert!(c.component.perfmap && !c.component.epoch_deadline);
        assert_eq!(c.component.cache_dir, None);
        assert_eq!(c.cache_bytes, 0);
        let c = HostConfigBuilder::new()
            .with_config("WARP_CACHE_DIR", "/tmp/x")
            .with_config("WARP_NOEPOCH", "0")
            .with_cache_bytes(5)
            .with_default_cache_bytes(0)
            .build()
            .unwrap();
        assert_eq!(c.component.cache_dir, Some(PathBuf::from("/tmp/x")));
        assert!(c.component.epoch_deadline);
        assert_eq!(c.cache_bytes, 5);
        // One byte grammar for every byte setting: `64M` is a cache size too
        // (it was refused there while WARP_MAX_DATA_BYTES took it).
        let c = HostConfigBuilder::new()
            .with_config("WARP_CACHE_BYTES", "64M")
            .build()
            .unwrap();
        assert_eq!(c.cache_bytes, 64 << 20);
        let e = HostConfigBuilder::new()
            .with_config("WARP_MAX_INPUT_BYTES", "lots")
            .build()
            .unwrap_err()
            .to_string();
        assert!(e.contains("WARP_MAX_INPUT_BYTES"), "{e}");
        let e = HostConfigBuilder::new()
            .with_max_data_bytes(10)
            .with_cache_bytes(11)
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cache_bytes") && e.contains("max_data_bytes"),
            "{e}"
        );
        // The default cache (64 MiB) shrinks to a smaller bound instead.
        let c = HostConfigBuilder::new()
            .with_max_data_bytes(32 << 20)
            .build()
            .unwrap();
        assert_eq!((c.limits.data_bytes, c.cache_bytes), (32 << 20, 32 << 20));
    }

    #[test]
    fn every_byte_setting_takes_the_one_grammar() {
        use planner_core::Method;
        // `64M` is as good a data bound as a cache size: both go through
        // `parse_bytes`.
        let c = HostConfigBuilder::new()
            .with_config("WARP_MAX_DATA_BYTES", "64M")
            .with_config("WARP_CACHE_BYTES", "64M")
            .build()
            .unwrap();
        assert_eq!((c.limits.data_bytes, c.cache_bytes), (64 << 20, 64 << 20));
        for (text, want) in [("64MiB", 64 << 20), ("1.5G", 3 << 29), ("4096", 4096)] {
            assert_eq!(parse_bytes(text), Ok(want), "{text}");
        }
        // Too large is not "not a byte count".
        for text in [
            "99999999999G",
            "18446744073709551616",
            "1e30",
            "99999999999.5G",
        ] {
            let e = parse_bytes(text).unwrap_err();
            assert_eq!(e.contains("too large"), text != "1e30", "{text}: {e}");
        }
        // The sizes of a method spelling (planner-core's canonical grammar:
        // digits with KiB/MiB/GiB, shared with the Python and npm packages)
        // are a subset: each reads the same here.
        for text in ["65536", "64KiB", "1MiB", "2GiB"] {
            let method: Method = format!("coalesce:{text}:{text}").parse().unwrap();
            let Method::Coalesce { max_gap, max_span } = method else {
                panic!("{method:?}");
            };
            assert_eq!(parse_bytes(text), Ok(max_gap), "{text}");
            assert_eq!(max_span, Some(max_gap));
        }
    }
}
