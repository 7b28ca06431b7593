//! # warp-host — the WaRP native host
//!
//! The `warp` command and the library behind it. Subcommands live one per file
//! in [`cli`]; each is clap flags → [`config::HostConfig`] → a library call.
//!
//! Library modules: [`search`] opens an index for search, [`dataset`] reads
//! or generates build data within [`config::InputLimits`], [`input`] and
//! [`output`] read and write within bounds and fail in one line,
//! [`vocabulary`] parses and prints method and layout names (one spelling
//! each), [`progress`] reports long steps on stderr, [`serve`] is the HTTP
//! service of `warp serve`.

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
