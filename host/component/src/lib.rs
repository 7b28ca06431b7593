//! # warp-component — the WaRP planner component, run by wasmtime
//!
//! What a Rust database embeds to plan its object-store reads through the
//! same WebAssembly component that Node (jco) and Python (wasmtime-py)
//! embed, so every runtime computes the identical plan (ARCHITECTURE §13).
//! The component is built from `planner-core` and embedded in this crate by
//! its build script, which needs the `wasm32-unknown-unknown` target
//! (`rustup target add wasm32-unknown-unknown`), or a prebuilt component
//! named by `WARP_PLANNER_COMPONENT`.
//!
//! # Brief overview
//!
//! - [`COMPONENT_WASM`] is the component itself (`wit/planner.wit`, world
//!   `planner-component`), built from `planner-wasm` by `host/component/build.rs` and
//!   embedded in the binary. It imports nothing.
//! - [`PlannerComponent`] is one instance of it, for one worker: [`plan`],
//!   [`frontier`], [`evaluate`], and the offline [`reorder`]
//!   and [`coaccess_gap`]. The component is compiled once
//!   per process (and the compiled artifact cached on disk, see
//!   [`cache_dir`]); creating a `PlannerComponent` only instantiates it.
//! - [`PlanLimits`](planner_core::PlanLimits) caps every call, as for the native planner: the guest's
//!   planner refuses a workspace above [`PlanLimits::plan_memory_bytes`](planner_core::PlanLimits::plan_memory_bytes) (set
//!   through the WIT `set-memory-limit`), guest memory growth is capped a
//!   little above it, and an epoch deadline ([`EPOCH_TICK`] resolution) stops
//!   a call at [`PlanLimits::plan_deadline`](planner_core::PlanLimits::plan_deadline). A planning call stopped by the
//!   deadline fails with [`PlanError::Interrupted`](planner_core::PlanError::Interrupted), the native backend's
//!   error; any other trap is [`ComponentError::Trap`]. After a trap the
//!   instance is replaced, so the next call on the same `PlannerComponent`
//!   works.
//! - [`EngineOptions`] configure the process's one wasmtime engine (disk
//!   cache of the compiled component, epoch deadline, perf map):
//!   [`configure`] before the first instance, or the defaults.
//! - [`ComponentError`] keeps the planner's refusal ([`PlanError`](planner_core::PlanError), the very
//!   value and one-line display the native planner gives), traps, and load
//!   failures apart.
//!
//! # Files
//!
//! `engine.rs` configures wasmtime once per process and compiles (or loads)
//! the component; `instance.rs` is [`PlannerComponent`] and its calls;
//! `budget.rs` derives each call's memory and time limits and enforces the
//! memory one; `convert.rs` maps planner-core types to and from the WIT ones;
//! `error.rs` is [`ComponentError`].
//!
//! [`plan`]: PlannerComponent::plan
//! [`frontier`]: PlannerComponent::frontier
//! [`evaluate`]: PlannerComponent::evaluate
//! [`reorder`]: PlannerComponent::reorder
//! [`coaccess_gap`]: PlannerComponent::coaccess_gap
//!
//! # Example
//!
//! ```
//! use planner_core::{Interval, Method, PlanRequest, Surrogate};
//! use warp_component::PlannerComponent;
//!
//! let mut planner = PlannerComponent::new().unwrap();
//! let intervals = [Interval::new(0, 4096), Interval::new(8192, 4096), Interval::new(64 << 20, 4096)];
//! let req = PlanRequest {
//!     intervals: &intervals,
//!     k_max: 2,
//!     parallelism: Some(4.0),
//!     surrogate: &Surrogate::S3,
//!     epsilon: 0.01,
//!     method: Method::Warp,
//! };
//! let (requests, summary) = planner.plan(&req).unwrap();
//! assert_eq!(summary, planner_core::plan_once(&req).unwrap().1);
//! assert_eq!((requests[0].first, requests[0].last), (0, 1));
//! ```

mod budget;
mod convert;
mod engine;
mod error;
mod instance;
mod ticker;

mod bindings {
    wasmtime::component::bindgen!({
        world: "planner-component",
        path: "../../wit",
    });
}

pub use engine::{EngineOptions, cache_dir, configure};
pub use error::{ComponentError, TrapCause, Work};
pub use instance::PlannerComponent;

use std::time::Duration;

/// The planner component (`warp:planner@0.1.0`, world `planner-component`), as
/// built by this crate's `build.rs`. `scripts/build-component` writes it to a file.
pub const COMPONENT_WASM: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/planner.component.wasm"));

/// Resolution of the execution deadline: a process-wide thread advances
/// wasmtime's epoch every tick while a guest call runs, and is parked while
/// none does.
pub const EPOCH_TICK: Duration = Duration::from_millis(1);
