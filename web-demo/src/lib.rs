//! # web-demo — WaRP's `(B, W)` frontier explorer in the browser
//!
//! A thin `wasm-bindgen` layer over `planner-core`: the page in `www/` keeps
//! one [`Explorer`], loads an instance into it (a `warp plan` instance (README, *Planning one query*), or any
//! object holding one under the key `"instance"`, such as the output of
//! `warp query --explain` or a golden vector), then asks for plans and for the
//! `(B, W)` Pareto frontier as the controls change. Every number is computed by
//! `planner-core` — the same code the native host and the WebAssembly
//! component run — and this crate only converts between JSON text and its
//! types.
//!
//! ## Brief overview
//!
//! - [`Explorer::load`] parses and validates the intervals (through
//!   [`planner_core::json::Instance`], so every error names its field) and
//!   keeps them; JavaScript never parses a byte offset, because offsets are
//!   `u64` and a JS number is exact only below `2^53`.
//! - The controls travel as *settings*: an instance without `intervals`
//!   (`k_max`, `parallelism`, `surrogate`, `epsilon`, `method`).
//! - [`Explorer::plan`] returns the plan with every `u64` as a decimal string
//!   and every `f64` as JSON's shortest round-trip form (which `JSON.parse`
//!   turns back into the identical double), plus its price
//!   ([`Pricing::default`](planner_core::Pricing::default)).
//! - [`Explorer::frontier`] returns the vertices of [`Planner::frontier`](planner_core::Planner::frontier).
//! - [`Explorer::versus_warp`] returns a baseline's figures beside warp's plan
//!   at the baseline's own request count (`K_max = r`): the baselines ignore
//!   `K_max`, so this pair is the fair reading of each ("at equal GETs, who
//!   wins?").
//!
//! Errors are [`PlanError`](planner_core::PlanError)s whose `Display` is the CLI's one line; the
//! `wasm_bindgen` methods throw them as JavaScript `Error`s.
//!
//! ## Example
//!
//! ```
//! use web_demo::Explorer;
//!
//! let mut ex = Explorer::new();
//! ex.load(r#"{"instance": {"intervals": [[0, 4096], [8192, 4096], [67108864, 4096]],
//!             "k_max": 2, "parallelism": 4.0,
//!             "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}}}"#)
//!     .unwrap();
//! let settings = r#"{"k_max": 2, "parallelism": 4.0,
//!     "surrogate": {"affine": {"fixed_ms": 25.0, "per_mib_ms": 5.0}}, "method": "warp"}"#;
//! let plan: serde_json::Value = serde_json::from_str(&ex.plan(settings).unwrap()).unwrap();
//! assert_eq!(plan["groups"], serde_json::json!([[0, 1], [2, 2]]));
//! assert_eq!(plan["ranges"][1], serde_json::json!(["67108864", "4096"]));
//! let frontier: serde_json::Value =
//!     serde_json::from_str(&ex.frontier(settings, true, 64).unwrap()).unwrap();
//! assert!(frontier["points"].as_array().unwrap().len() >= 1);
//! ```
//!
//! ## Files
//!
//! `input.rs` reads instance and settings text; `output.rs` writes plans,
//! settings and frontier vertices as JSON with `u64`s as strings;
//! `explorer.rs` is [`Explorer`] and `js.rs` its JavaScript face;
//! `vectors.rs` runs one planning or reordering golden vector for the
//! browser conformance tests.

#![warn(missing_docs)]
#![deny(rustdoc::broken_intra_doc_links)]

mod explorer;
mod input;
mod js;
mod output;
mod vectors;

#[cfg(test)]
mod tests;

pub use explorer::Explorer;
pub use input::parse_instance;
pub use vectors::{plan_instance, plan_json, reorder_json, reorder_vector};

/// Most intervals the page accepts: the planner's frontier buffer takes
/// `2560·(n + 1)` bytes, 80 MiB here.
pub const MAX_INTERVALS: usize = 32_768;

/// Most bytes of layered-DP table (`4·n·K`) the page allocates: budgets beyond
/// `MAX_DP_TABLE_BYTES / (4n)` are refused rather than risking an
/// out-of-memory trap.
pub const MAX_DP_TABLE_BYTES: usize = 256 << 20;
