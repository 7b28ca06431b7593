//! warp-s3: an S3-protocol server on 127.0.0.1 for benchmarks and fault
//! tests, one meter for every client.
//!
//! - [s3s](https://crates.io/crates/s3s) speaks the protocol (SigV4 and SigV2
//!   signatures checked against one configured key pair); objects live in
//!   memory ([`storage`]). GET with `Range` (`a-b`, `a-`, `-n`; `416` past
//!   the end), HEAD, PUT, multipart upload, ListObjectsV2 (and V1), DELETE
//!   (one and many), CopyObject and the bucket calls are served ([`s3`]).
//! - Every GET follows the simulated-S3 model of [`warp_latency_model`], the
//!   same implementation `warp --simulate s3` uses: headers at the first
//!   byte, then the body streamed at its own pace and its share of the link,
//!   with the lognormal spread and the seeded tail. Sleeps use tokio's
//!   timer aimed half a tick early, within ±0.5 ms ([`timer`]).
//! - Seeded faults ([`faults`]): 503, 500, connection reset, truncated body,
//!   shifted `Content-Range`, flipped byte, delayed headers, stalled body.
//! - A meter ([`meter`]) counts requests, GETs, bytes, concurrency and
//!   sequential waves per client-marked window, read and steered through a
//!   JSON admin API on the same port ([`admin`]).
//! - Everything is bounded: connections, request bodies, object size, memory,
//!   object and upload counts, records and windows.

pub mod access;
pub mod admin;
pub mod bounds;
pub mod context;
pub mod faults;
pub mod meter;
pub mod s3;
pub mod server;
pub mod settings;
pub mod state;
pub mod storage;
pub mod timer;

pub use faults::{FAULTS, Fault, FaultConfig};
pub use server::{RunningServer, ServerConfig, ServerLimits, start};
pub use storage::StorageLimits;
pub use warp_latency_model::SimulateConfig;
