//! `PlannedStore`: WaRP as an `object_store` layer (ARCHITECTURE §7).
//!
//! Any reader built on [`ObjectStore::get_ranges`](object_store::ObjectStore::get_ranges)
//! — the IVF query path here, the `parquet` crate's async reader, Lance,
//! DataFusion — adopts request planning by wrapping its store:
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use object_store::{ObjectStore, memory::InMemory, path::Path};
//! use warp_host::store::PlannedStore;
//!
//! let inner = Arc::new(InMemory::new());
//! let store = PlannedStore::builder(inner)
//!     .with_io_slots(64, 8) // 64 GETs in flight at most, ~8 readers: P = 8
//!     .build()?;
//! let parts = store
//!     .get_ranges(&Path::from("payload.bin"), &[4096..8192, 0..100, 9000..9100])
//!     .await?;
//! println!("{:?}", store.stats());
//! # Ok(()) }
//! ```
//!
//! # The planned read
//! Every method delegates to the inner store except `get_ranges`, which
//!
//! 1. validates the requested ranges (`start > end` is an error naming the
//!    range; empty ranges answer empty bytes; a range ending past the object
//!    is cut at its end, one starting at or past it is an error) and
//!    normalizes them into sorted disjoint intervals `I_1..I_n`
//!    (`ranges.rs`);
//! 2. plans them (ARCHITECTURE §2): a partition `π` into at most `K_max` groups,
//!    group `g` fetched as one range of length `L_g`, minimizing
//!    `T_P(π) = W(π)/P + (1 − 1/P)·B(π)` with `W = Σ_g t(L_g)`,
//!    `B = max_g t(L_g)`, `t(L) = fixed + per_mib · L/2²⁰` — with the
//!    planner component or natively (a [`BackendPool`](crate::query::BackendPool));
//! 3. issues the `|π|` GETs concurrently, each under a slot of the shared
//!    I/O semaphore, with a read-stall timeout and one retry (`get.rs`) and a
//!    hedge when one straggles ([`hedge`]); the whole call is bounded by its
//!    deadline, if any;
//! 4. slices each requested range back out of the bodies, in request order.
//!
//! The `per_mib` term is learnt from the GETs the store completes unless the
//! surrogate is fixed ([`load`]); the surrogate used is in every
//! [`PlannedRead`] and in [`StatsSnapshot::last_surrogate`].
//!
//! # Configuration
//! [`PlannedStoreBuilder`] with defaults: warp, `K_max` = n, `ε` = 0.01,
//! `P = io_slots / Q = 64 / 8`, load-aware S3 surrogate (25 ms + 5 ms/MiB
//! prior), hedging (3× the median latency ratio, a 5–25 % budget following
//! the straggler rate), no deadline, 10 s stall timeout.
//!
//! # Stats
//! [`PlannedStore::stats`]: GETs, bytes, overfetch bytes, planning time,
//! hedges issued and won, re-fetches, stalls, deadline misses.

mod builder;
mod error;
mod get;
pub mod hedge;
pub mod load;
mod ranges;
mod stats;
mod store;

pub use builder::{PlanOptions, PlannedStoreBuilder};
pub use error::{PlannedError, STORE_NAME, deadline_exceeded};
pub use hedge::HedgePolicy;
pub use load::{LoadEstimator, LoadSnapshot};
pub use stats::{CallStats, StatsSnapshot};
pub use store::{Deadline, PlannedRead, PlannedStore};

pub(crate) use error::into_host;
pub(crate) use store::affine;
