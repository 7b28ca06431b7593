//! Benchmarks of the query path: `warp bench` and `warp demo` run every
//! policy at query concurrency `Q` (and payload-cache size) and report QPS,
//! latency percentiles, GETs, bytes, dollars, cache hit rate and recall.
//!
//! # Overview
//! - [`Suite`] is the one loop: it runs each [`RunSpec`] on its [`Target`]
//!   with a fresh [`Searcher`](crate::query::Searcher) and checks that every
//!   run answers every query exactly as the first run did (planning changes
//!   I/O, never answers: a difference is an
//!   [`Error::ResultMismatch`](crate::error::Error::ResultMismatch)), and
//!   counts failed queries per run, stopping only when they exceed
//!   [`Suite::max_error_rate`]
//!   ([`Error::TooManyFailures`](crate::error::Error::TooManyFailures)).
//! - [`Recorder`] folds answers into streaming figures (an HDR latency
//!   histogram, running sums, recall counts) and [`AnswerBook`] keeps one
//!   reference answer per distinct stored query, so a run's memory does not
//!   grow with its number of queries.
//! - [`CacheSize`] is one point of the cache study (`0`, `10%`, `50%`,
//!   `all`, or MiB); [`limits`] bounds every numeric flag before work starts.
//! - [`load`] is `warp load`: a closed-loop HTTP load generator for
//!   `warp serve` (QPS, latency, recall and its own CPU).
//! - [`demo`] builds the demo's synthetic indexes; [`plot`] draws the SVG
//!   charts; [`table`] prints the rows.

mod answers;
mod cache;
pub mod demo;
pub mod limits;
pub mod load;
pub mod plot;
mod recorder;
mod row;
mod suite;

pub use answers::AnswerBook;
pub use cache::{CacheSize, MAX_CACHE_MIB};
pub use recorder::Recorder;
pub use row::{BenchRow, LoadRow, table};
pub use suite::{DEFAULT_MAX_ERROR_RATE, RunSpec, Suite, Target, Workload};
