//! # warp-host — the WaRP native host
//!
//! The `warp` command and the library behind it. Subcommands live one per file
//! in [`cli`]; each is clap flags → [`config::HostConfig`] → a library call, so
//! every command's work can be called (and is tested) without the CLI.
//!
//! ## One query, module by module
//!
//! `warp query`, `warp bench` and `warp serve` all answer a query the same way
//! (ARCHITECTURE §6):
//!
//! | step | what happens | module |
//! |---|---|---|
//! | open | read the manifest within its bound, the centroids, the layout | [`search`], [`ivf::manifest`], [`ivf::Index`] |
//! | route | distances to the local centroids, the `nprobe` nearest lists | [`ivf::score`], [`query::Searcher`] |
//! | probe set → cache | lists already held are taken from the payload cache | [`query`] (its `cache` module) |
//! | plan | the missing lists' byte intervals, merged into at most `K_max` GETs minimising `T_P` | [`planner_core`], through [`query::PlanBackend`] (native or the [`component`]) |
//! | GETs | the plan's range GETs under the shared I/O slots, hedged, one deadline, load-aware surrogate | [`store::PlannedStore`] (crate `warp-planned-store`) |
//! | slice → verify | each list cut out of its GET and its CRC32C checked (re-fetched once) | [`ivf::scan::check_record`] |
//! | scan → top-k | exact distances, ties by id; IVF-PQ: ADC then a planned exact rerank | [`ivf::scan`], [`ivf::score`], [`query::SearchResult`] |
//!
//! ## Modules
//!
//! - The read path: [`store`] (object stores by URL, the planned read
//!   re-exported from `warp-planned-store`, the simulated S3), [`query`] (the
//!   [`query::Searcher`]: routing, cache, scan, merge), [`search`] (opening an
//!   index for search), [`component`] (the planner component runtime, crate
//!   `warp-component`), [`limits`] (the bounds of one planning call).
//! - Building: [`ivf`] (k-means, IVF-Flat and IVF-PQ, the on-store layout and
//!   manifest, claims and `gc`), [`dataset`] (build data from files or
//!   generated, within [`config::InputLimits`]), [`formats`] (`.fvecs`, `.npy`,
//!   big-ann files).
//! - Measuring: [`bench`](mod@bench) (`warp bench`, `warp demo`, charts), [`calibrate`]
//!   (the surrogate from measured GETs).
//! - Serving: [`serve`] (`warp serve`, the HTTP service).
//! - Plumbing: [`config`] (environment and setters), [`error`] (one line per
//!   failure, secrets redacted), [`input`] and [`output`] (bounded reads, one
//!   output policy), [`vocabulary`] (one spelling per method and layout),
//!   [`progress`] (long steps on stderr).

#![warn(missing_docs)]

pub mod bench;
pub mod calibrate;
pub mod cli;
pub use warp_component as component;
pub mod config;
pub mod dataset;
pub mod error;
pub mod formats;
pub mod input;
pub mod ivf;
pub mod output;

pub mod limits;
pub mod progress;
pub mod query;
pub mod search;
pub mod serve;
pub mod store;
pub mod vocabulary;
