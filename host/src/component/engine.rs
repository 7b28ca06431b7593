//! The process-wide wasmtime engine: configured once from `HostConfig`,
//! its epoch advanced by one thread every [`EPOCH_TICK`], and the component
//! compiled once (or loaded from the on-disk artifact cache).

use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::OnceLock;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine};

use super::bindings::PlannerComponentPre as BindingsPre;
use super::budget::Guard;
use super::error::ComponentError;
use super::{COMPONENT_WASM, EPOCH_TICK};

/// The compiled component, shared by every [`PlannerComponent`](super::PlannerComponent)
/// of the process.
pub(super) struct Shared {
    pub(super) engine: Engine,
    pub(super) pre: BindingsPre<Guard>,
}

/// A [`ComponentError::Load`] saying what failed.
pub(super) fn load_err(what: &str, e: impl fmt::Display) -> ComponentError {
    ComponentError::Load {
        detail: format!("{what}: {e:#}"),
    }
}

/// Where compiled components are cached: `$WARP_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/warp`, else `$HOME/.cache/warp`; `None` (no disk cache) when
/// `WARP_CACHE_DIR` is empty or no home is known.
///
/// A cached artifact is native code that wasmtime loads without re-checking;
/// keep this directory private to the user.
pub fn cache_dir() -> Option<PathBuf> {
    crate::config::component_env().cache_dir
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
            // Every WARP_* setting comes through HostConfig.
            let env = crate::config::component_env();
            let mut config = Config::new();
            config.epoch_interruption(env.epoch_deadline);
            if env.perfmap {
                config.profiler(wasmtime::ProfilingStrategy::PerfMap);
            }
            let engine = Engine::new(&config).map_err(|e| load_err("configuring wasmtime", e))?;
            let ticker = engine.clone();
            std::thread::Builder::new()
                .name("warp-planner-epoch".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(EPOCH_TICK);
                        ticker.increment_epoch();
                    }
                })
                .map_err(|e| load_err("starting the epoch thread", e))?;
            let component = compile(&engine)?;
            let linker = Linker::<Guard>::new(&engine);
            let pre = linker
                .instantiate_pre(&component)
                .and_then(BindingsPre::new)
                .map_err(|e| load_err("linking", e))?;
            Ok(Shared { engine, pre })
        })
        .as_ref()
        .map_err(Clone::clone)
}
