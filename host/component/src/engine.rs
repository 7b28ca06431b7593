//! The process-wide wasmtime engine: configured once from `HostConfig`,
//! its epoch advanced by one thread every [`EPOCH_TICK`] while a guest call
//! runs ([`Ticker`]), and the component compiled once (or loaded from the
//! on-disk artifact cache).

use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::OnceLock;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine};

use super::COMPONENT_WASM;
use super::bindings::PlannerComponentPre as BindingsPre;
use super::budget::Guard;
use super::error::ComponentError;
use super::ticker::{Ticker, Ticking};

/// The compiled component, shared by every [`PlannerComponent`](super::PlannerComponent)
/// of the process.
pub(super) struct Shared {
    pub(super) engine: Engine,
    pub(super) pre: BindingsPre<Guard>,
    /// Advances the epoch while calls run; `None` without epoch deadlines.
    ticker: Option<Ticker>,
}

impl Shared {
    /// Keeps the epoch advancing until the guard drops: hold it around
    /// every entry into the guest. `O(1)`.
    pub(super) fn ticking(&self) -> Option<Ticking<'_>> {
        self.ticker.as_ref().map(Ticker::enter)
    }
}

/// A [`ComponentError::Load`] saying what failed.
pub(super) fn load_err(what: &str, e: impl fmt::Display) -> ComponentError {
    ComponentError::Load {
        detail: format!("{what}: {e:#}"),
    }
}

/// How the process's one wasmtime engine is set up ([`configure`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineOptions {
    /// Write a perf map of the compiled guest code (for `perf`). Default off.
    pub perfmap: bool,
    /// Bound guest calls by an epoch deadline (the per-call time limit of
    /// [`PlanLimits`](planner_core::PlanLimits)). Default on; off only for
    /// profiling.
    pub epoch_deadline: bool,
    /// Where the compiled component is cached between processes (about
    /// 0.2 ms to load instead of 20–30 ms to compile); `None` for no disk
    /// cache. Default `$XDG_CACHE_HOME/warp`, else `$HOME/.cache/warp`. A
    /// cached artifact is native code that wasmtime loads without
    /// re-checking: keep the directory private to the user.
    pub cache_dir: Option<PathBuf>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            perfmap: false,
            epoch_deadline: true,
            cache_dir: std::env::var_os("XDG_CACHE_HOME")
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .map(|d| d.join("warp")),
        }
    }
}

static OPTIONS: OnceLock<EngineOptions> = OnceLock::new();

/// Sets the engine options for this process. Call it before the first
/// [`PlannerComponent`](super::PlannerComponent) is made; later calls, and
/// calls after the engine started, change nothing.
///
/// # Errors
/// The options already in force, when they differ from `options`.
pub fn configure(wanted: EngineOptions) -> Result<(), EngineOptions> {
    match OPTIONS.set(wanted) {
        Ok(()) => Ok(()),
        Err(wanted) => {
            let current = options();
            if *current == wanted {
                Ok(())
            } else {
                Err(current.clone())
            }
        }
    }
}

/// The options in force ([`configure`]'s, else the defaults).
fn options() -> &'static EngineOptions {
    OPTIONS.get_or_init(EngineOptions::default)
}

/// Where compiled components are cached ([`EngineOptions::cache_dir`]).
pub fn cache_dir() -> Option<PathBuf> {
    options().cache_dir.clone()
}

/// Compiles the component, or loads it from the disk cache keyed by a hash of
/// the component bytes and the engine's compilation settings.
fn compile(engine: &Engine) -> Result<Component, ComponentError> {
    let mut h = DefaultHasher::new();
    COMPONENT_WASM.hash(&mut h);
    engine.precompile_compatibility_hash().hash(&mut h);
    let path = cache_dir().map(|d| d.join(format!("planner-{:016x}.cwasm", h.finish())));
    if let Some(path) = path.as_ref().filter(|p| p.is_file()) {
        // SAFETY: the file was written by `precompile_component` below for this
        // very component and engine configuration (the hash in its name), in
        // the user's private cache directory.
        if let Ok(c) = unsafe { Component::deserialize_file(engine, path) } {
            return Ok(c);
        }
    }
    let bytes = engine
        .precompile_component(COMPONENT_WASM)
        .map_err(|e| load_err("compiling", e))?;
    if let Some(path) = &path {
        // Best effort: write a temporary file, then rename it into place.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let written = path
            .parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::write(&tmp, &bytes).is_ok()
            && std::fs::rename(&tmp, path).is_ok();
        if !written {
            let _ = std::fs::remove_file(&tmp);
        }
    }
    // SAFETY: `bytes` was just produced by `precompile_component` on this engine.
    unsafe { Component::deserialize(engine, &bytes) }.map_err(|e| load_err("loading", e))
}

pub(super) fn shared() -> Result<&'static Shared, ComponentError> {
    static SHARED: OnceLock<Result<Shared, ComponentError>> = OnceLock::new();
    SHARED
        .get_or_init(|| {
            let env = options();
            let mut config = Config::new();
            config.epoch_interruption(env.epoch_deadline);
            if env.perfmap {
                config.profiler(wasmtime::ProfilingStrategy::PerfMap);
            }
            let engine = Engine::new(&config).map_err(|e| load_err("configuring wasmtime", e))?;
            let ticker = if env.epoch_deadline {
                let epoch = engine.clone();
                Some(
                    Ticker::start("warp-planner-epoch", move || epoch.increment_epoch())
                        .map_err(|e| load_err("starting the epoch thread", e))?,
                )
            } else {
                None
            };
            let component = compile(&engine)?;
            let linker = Linker::<Guard>::new(&engine);
            let pre = linker
                .instantiate_pre(&component)
                .and_then(BindingsPre::new)
                .map_err(|e| load_err("linking", e))?;
            Ok(Shared {
                engine,
                pre,
                ticker,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}
