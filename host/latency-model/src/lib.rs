//! The simulated-S3 latency model, shared by `warp --simulate s3` (the
//! in-process `SimulatedStore`) and the `warp-s3` server, so that both apply
//! one implementation.
//!
//! # The model
//!
//! A GET issued at `τ` as request number `i` draws (seeded by the
//! configuration's seed and `i`, [`Draw`])
//!
//! ```text
//! T = 1, or U[tail_min_factor, tail_max_factor] with probability tail_probability
//! B = exp(first_byte_sigma · Z),  Z ~ N(0, 1)            (median 1)
//! ```
//!
//! sends its headers at `h = τ + T · first_byte_ms · B`, then streams its
//! body of `x` MiB at
//!
//! ```text
//! rate = min(1 / (T · e),  its max-min fair share of C)
//!   e = max(per_mib_ms, 1000 / per_conn_mib_per_s)     the GET's own pace, ms per MiB
//!   C = link_mib_per_s                                 the link all bodies share
//! ```
//!
//! (fluid processor sharing: every body on the link gets an equal share,
//! except that one whose own pace is slower keeps its pace and leaves the
//! rest to the others; [`Link`] has the water-filling and the event
//! processing). A lone GET therefore ends at `τ + T · (first_byte_ms · B +
//! e · x)` while the link is faster than its pace — the median
//! single-request latency is `first_byte_ms + e · x`,
//! [`SimulateConfig::surrogate`] — and `n` concurrent bodies wanting more
//! than `C / n` each split `C`.
//!
//! Times are [`tokio::time::Instant`]s, so under tokio's paused test clock the
//! model is exact, instant and deterministic. [`PacedBody`] releases a body
//! piece by piece (at most [`QUANTUM`] bytes each) at those times with a
//! pluggable [`Timer`]; the times are model times, so a late wake-up delays
//! only the piece it was for, never the link or the pieces after it.

pub mod bound;
mod config;
mod draw;
mod link;
mod paced;
mod transfer;

pub use config::{
    MAX_FIRST_BYTE_SIGMA, MAX_LATENCY_MS, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
    SimulateConfig,
};
pub use draw::Draw;
pub use link::{FlowId, Link};
pub use paced::{PacedBody, Timer, TokioTimer, sleep_until};
pub use transfer::{Model, QUANTUM, Transfer};
