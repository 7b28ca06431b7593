//! # warp-planned-store — WaRP as an `object_store` layer
//!
//! [`PlannedStore`] wraps any [`ObjectStore`](object_store::ObjectStore) and
//! answers [`get_ranges`](object_store::ObjectStore::get_ranges) with a
//! planned read: the requested byte ranges are merged into at most `K_max`
//! GETs chosen to minimize a concurrency-aware latency surrogate, within
//! `(1 + ε)` of the optimum (the WaRP planner of `planner-core`). Every other
//! method delegates to the wrapped store unchanged.
//!
//! Its dependencies are `object_store`, `tokio`, `planner-core` and small
//! crates; the planner component (wasmtime) is the optional feature
//! `component` (`backend::ComponentBackend`). The architecture reference is
//! `docs/ARCHITECTURE.md` in the repository (§7 the planned read, §8 the
//! surrogate and the load estimate).
//!
//! ## The payoff
//!
//! Forty 4 KiB ranges 8 KiB apart: one GET each without planning, one or a
//! few merged GETs with it (each GET costs ~25 ms of first-byte latency and a
//! request charge on S3; the merged gaps cost 5 ms/MiB):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use object_store::{ObjectStore, ObjectStoreExt, memory::InMemory, path::Path};
//! use planner_core::Method;
//! use warp_planned_store::PlannedStore;
//!
//! let inner = Arc::new(InMemory::new());
//! let path = Path::from("payload.bin");
//! inner.put(&path, vec![7u8; 1 << 20].into()).await?;
//! let ranges: Vec<_> = (0..40u64).map(|i| i * 12288..i * 12288 + 4096).collect();
//!
//! let planned = PlannedStore::builder(Arc::clone(&inner))
//!     .with_io_slots(64, 8) // 64 GETs in flight at most, ~8 readers: P = 8
//!     .build()?;
//! let one_per_range = PlannedStore::builder(Arc::clone(&inner))
//!     .with_method(Method::Separate)
//!     .build()?;
//! let a = planned.get_ranges(&path, &ranges).await?;
//! let b = one_per_range.get_ranges(&path, &ranges).await?;
//! assert_eq!(a, b); // planning changes the GETs, never the bytes
//! let (gets, separate) = (planned.stats().totals.gets, one_per_range.stats().totals.gets);
//! println!("{gets} GETs planned, {separate} without planning");
//! assert_eq!(separate, 40);
//! assert!(gets <= 4, "{gets}");
//! # Ok(()) }
//! ```
//!
//! ## Who calls `get_ranges`
//!
//! A reader adopts planning by wrapping its store only if it asks for its
//! ranges through `get_ranges`: the `parquet` crate's `ParquetObjectReader`
//! does (a column projection of several row groups becomes one planned
//! read), as do readers built on object_store's own range coalescing. Lance
//! does not: its `FileScheduler` merges ranges itself (at a 64 KiB gap) and
//! calls `get_opts` once per merged range, so a store wrapper sees one range
//! per call and has nothing to plan; Lance would adopt planning in its
//! scheduler, by handing it the planner (`planner-core`) instead of the
//! fixed gap.
//!
//! ## One planned read
//!
//! 1. validate and normalize the ranges ([`PlannedStore::read`]: `start >
//!    end` is an error naming the range, empty ranges answer empty bytes, a
//!    range past the end of the object is cut or refused) into sorted,
//!    disjoint intervals `I_1..I_n`;
//! 2. plan (ARCHITECTURE §2): a partition `π` into at most `K_max` groups,
//!    group `g` fetched as one range of length `L_g`, minimizing
//!    `T_P(π) = W(π)/P + (1 − 1/P)·B(π)` with `W = Σ_g t(L_g)`,
//!    `B = max_g t(L_g)`, `t(L) = fixed + per_mib · L/2²⁰`, by a pooled
//!    [`backend::PlanBackend`] (the native planner by default);
//! 3. issue the `|π|` GETs concurrently, each under a slot of the shared I/O
//!    semaphore, with a read-stall timeout and one re-fetch of a stalled or
//!    wrong-range answer, and a hedge when one straggles ([`hedge`]); the
//!    whole call is bounded by its deadline, if any;
//! 4. slice each requested range back out of the bodies, in request order;
//!    [`PlannedStore::read_each`] also hands each range to a callback as
//!    soon as the GETs covering it are in (a read of `K` GETs ends at the
//!    slowest, `max_g T_g`; a range inside GET `g` is ready at `T_g`).
//!
//! Unless the surrogate is fixed, its `per_mib` term follows the load the
//! store observes ([`load`]); the surrogate used is in every [`PlannedRead`]
//! and in [`StatsSnapshot::last_surrogate`].
//!
//! ## Modules
//!
//! - [`backend`]: where plans come from ([`backend::PlanBackend`], the
//!   native planner, the component behind feature `component`, the pool);
//! - `builder.rs`: [`PlannedStoreBuilder`] and [`PlanOptions`], every
//!   setting with its default;
//! - `store.rs`: [`PlannedStore`] itself and the load-aware choice of plan;
//! - `ranges.rs`, `get.rs`: normalizing ranges, one bounded GET with its
//!   re-fetch;
//! - `budget.rs`: the fetch budget, the bytes all calls hold at once;
//! - [`hedge`]: hedged GETs under a budget that follows the store;
//! - [`load`]: the load estimate and the closed-loop cost;
//! - [`cpu`]: the client CPU's price and cores, the closed loop's fourth term;
//! - [`peer`]: [`LocalServer`], the CPU of a store served from this machine;
//! - `robust.rs`: the quantile and the Theil–Sen slope both estimates use;
//! - `stats.rs`: [`CallStats`] per read, [`StatsSnapshot`] per store;
//! - [`simulated`]: [`SimulatedStore`], S3's latency profile on one machine
//!   (for benchmarks and tests);
//! - `error.rs`: [`PlannedError`], and [`error_chain`] to print it whole.
//!
//! ## Defaults
//!
//! [`PlannedStoreBuilder`]: warp, `K_max` = n, `ε` = 0.01,
//! `P = io_slots / Q = 64 / 8`, load-aware S3 surrogate (25 ms + 5 ms/MiB
//! prior), hedging (3× the median latency ratio, a 5–25 % budget following
//! the straggler rate), no deadline, 10 s stall timeout, a 4 GiB fetch
//! budget (the bytes all calls in progress hold at once).

#![warn(missing_docs)]

pub mod backend;
mod body;
mod budget;
mod builder;
pub mod cpu;
mod error;
mod get;
pub mod hedge;
pub mod load;
pub mod marginal;
pub mod peer;
#[cfg(target_os = "linux")]
mod procfs;
mod ranges;
mod robust;
pub mod simulated;
mod stats;
mod store;
mod wait;

pub use backend::{BackendError, BackendFactory, BackendPool, NativeBackend, PlanBackend};
pub use builder::{DEFAULT_FETCH_BUDGET, MAX_IO_SLOTS, PlanOptions, PlannedStoreBuilder};
pub use cpu::{CpuPrice, CpuSnapshot};
pub use error::{PlannedError, STORE_NAME, error_chain};
pub use hedge::HedgePolicy;
pub use load::{ClosedLoop, LoadEstimator, LoadPrices, LoadSnapshot};
pub use peer::LocalServer;
pub use simulated::{
    MAX_FIRST_BYTE_SIGMA, MAX_LATENCY_MS, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
    SimulateConfig, SimulatedStore,
};
pub use stats::{CallStats, StatsSnapshot};
pub use store::{Deadline, PlannedRead, PlannedStore, affine};
/// The ranges of the simulated profile's fields ([`SimulateConfig::check`]).
pub use warp_latency_model::bound as simulate_bounds;
