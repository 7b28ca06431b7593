//! # warp-host — the WaRP native host
//!
//! The `warp` command and the library behind it. Subcommands live one per file
//! in [`cli`]; each has a clap argument struct and an `execute` function.

#![warn(missing_docs)]

pub mod bench;
pub mod cli;
pub mod component;
pub mod config;
pub mod error;
pub mod formats;
pub mod ivf;
pub mod limits;
pub mod progress;
pub mod query;
pub mod store;
