//! # planner-core — WaRP request planning
//!
//! A vector index keeps its routing structure local and its cluster payloads in
//! an object store. A query needs the byte intervals `I_1 < … < I_n` of the
//! probed clusters; every Range-GET pays a fixed latency (~25 ms on S3) and a
//! per-request charge. This crate plans how to merge the sorted intervals into at
//! most `K_max` requests, each fetching `[start_i, end_j)` (gaps overfetched), to
//! minimize the concurrency-aware surrogate
//!
//! ```text
//! T_P(π) = W(π)/P + (1 − 1/P)·B(π),   W = Σ_g t(L_g),   B = max_g t(L_g)
//! ```
//!
//! where `t` is a nondecreasing request-time [`Surrogate`] and `P` the expected
//! request parallelism of one query ([`Parallelism`]). It is the planner of
//! *WaRP: Workload-Aware Request Planning for Vector Retrieval on Object
//! Storage* (Wan, Zeng, Qiao, Zhang), §3–4.
//!
//! ## Brief overview
//!
//! - [`Planner`] owns a workspace sized by a [`Capacity`]; [`Planner::plan`]
//!   takes a [`PlanRequest`] and returns a [`Plan`]: [`Request`]s plus a
//!   [`PlanSummary`] (`W`, `B`, `T_P`, requests, bytes, overfetch, certified lower
//!   bound). Planning allocates nothing.
//! - [`Method`] selects the algorithm: [`Method::Warp`] (call this one), the
//!   exact reference, the paper's frontier search, the Lagrangian fast path,
//!   the two endpoints `min_w`/`min_b`, and the baselines `separate`,
//!   `coalesce`, `lance_rule` and `object_store_rule` (models of those readers' rules).
//! - [`json`] (feature `json`) is the ARCHITECTURE §5 contract shared by the CLI, the
//!   WebAssembly component and the browser demo.
//!
//! The code is pure: no I/O, threads, clocks or randomness, and float code uses
//! only `+ − × ÷`, so native and WebAssembly builds produce bit-identical plans.
//!
//! ## Methods and their cost (`n` intervals, budget `K`)
//!
//! | method | guarantee | time |
//! |---|---|---|
//! | `warp` | within `(1+ε)`, certified lower bound | a few Lagrangian searches, `O(n log n)` each (convex `t`) |
//! | `frontier` | within `(1+ε)` | a few thresholded DPs, `O(nK log n)` each (convex), `O(n²K)` otherwise |
//! | `lagrangian` | certified lower bound only | as `warp`, never an exact DP |
//! | `exact` | optimal | every candidate cap: `O(n²)` DPs |
//! | `min_w` / `min_b` | optimal for `P = 1` / `P = ∞` | one DP / binary search + one DP |
//! | baselines | none | `O(n)` |
//!
//! ## Example: plan, and compare with object_store's coalescing
//!
//! ```
//! use planner_core::{Capacity, Interval, Method, PlanRequest, Planner, Surrogate};
//!
//! let mut planner = Planner::new(Capacity::new(1024, 256)).unwrap();
//! // 8 probed clusters of 256 KiB, in two clumps 64 MiB apart.
//! let intervals: Vec<Interval> = (0..8u64)
//!     .map(|i| Interval::new((i / 4) * (64 << 20) + (i % 4) * (512 << 10), 256 << 10))
//!     .collect();
//! let mut req = PlanRequest {
//!     intervals: &intervals,
//!     k_max: 4,
//!     parallelism: Some(8.0),
//!     surrogate: &Surrogate::S3,
//!     epsilon: 0.01,
//!     method: Method::Warp,
//! };
//! let warp = planner.plan(&req).unwrap().summary;
//! req.method = Method::ObjectStoreRule;
//! let coalesced = planner.plan(&req).unwrap().summary;
//! assert!(warp.t_ms <= coalesced.t_ms);
//! assert!(warp.t_ms <= 1.01 * warp.lower_bound_ms.unwrap());
//! ```

#![warn(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

mod baseline;
mod dp;
mod error;
mod exact;
mod frontier_search;
mod interrupt;
mod interval;
#[cfg(feature = "json")]
pub mod json;
mod lagrangian;
mod limits;
mod method;
mod min_b;
mod objective;
mod pareto;
mod plan;
mod planner;
pub mod reorder;
mod search;
mod spans;
mod spelling;
mod surrogate;
pub mod workload;
mod workspace;

pub use baseline::{LANCE_BLOCK_SIZE, LANCE_MAX_IOP_SIZE, OBJECT_STORE_COALESCE_GAP};
pub use error::{Field, PlanError, Resource};
pub use interval::{Interval, validate};
pub use limits::PlanLimits;
pub use method::Method;
pub use objective::{Parallelism, compare_plans};
pub use pareto::FrontierPoint;
pub use plan::{PlanSummary, Pricing, Request, summarize};
pub use planner::{Plan, PlanRequest, Planner, plan_once};
pub use spelling::ParseError;
pub use surrogate::{Breakpoint, MIB, Surrogate};
pub use workspace::Capacity;
