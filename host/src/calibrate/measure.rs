//! Measuring range-GET latency over one object.

use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use tokio::time::Instant;

use crate::error::{Error, Result};

/// Largest request size measured: 1 GiB.
pub const MAX_SIZE: u64 = 1 << 30;
/// Most distinct sizes.
pub const MAX_SIZES: usize = 64;
/// Most repeats per size and concurrency.
pub const MAX_REPEATS: usize = 1000;
/// Most GETs in flight at once.
pub const MAX_CONCURRENCY: usize = 256;
/// Most GETs of one calibration.
pub const MAX_GETS: u64 = 100_000;
/// Most bytes one calibration may read: 64 GiB.
pub const MAX_TOTAL_BYTES: u64 = 64 << 30;
/// A GET slower than this fails the calibration (a stalled store).
pub(crate) const GET_TIMEOUT: Duration = Duration::from_secs(120);

/// One timed GET.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sample {
    /// Request length, bytes.
    pub bytes: u64,
    /// GETs kept in flight while it ran.
    pub concurrency: usize,
    /// Issue to last byte received, ms.
    pub ms: f64,
}

/// The GETs of one size at one concurrency, as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Batch {
    /// Request length, bytes.
    pub bytes: u64,
    /// GETs kept in flight.
    pub concurrency: usize,
    /// GETs issued.
    pub gets: usize,
    /// First issue to last completion, ms.
    pub wall_ms: f64,
}

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasureConfig {
    /// Request sizes, bytes, strictly increasing.
    pub sizes: Vec<u64>,
    /// GETs per size at concurrency 1; at concurrency `c`,
    /// `max(repeats, c)` GETs keep `c` in flight (a closed loop).
    pub repeats: usize,
    /// Concurrency levels, each `>= 1`.
    pub concurrency: Vec<usize>,
    /// Seed of the request offsets.
    pub seed: u64,
}

impl MeasureConfig {
    /// GETs at concurrency `c` for one size.
    pub fn gets_at(&self, c: usize) -> usize {
        self.repeats.max(c)
    }

    /// Total GETs.
    pub fn total_gets(&self) -> u64 {
        self.concurrency
            .iter()
            .map(|&c| self.gets_at(c) as u64 * self.sizes.len() as u64)
            .sum()
    }

    /// Total bytes read.
    pub fn total_bytes(&self) -> u64 {
        let per_round: u64 = self.sizes.iter().sum();
        self.concurrency
            .iter()
            .map(|&c| self.gets_at(c) as u64 * per_round)
            .sum()
    }

    /// Checks every bound against an object of `object_size` bytes.
    ///
    /// # Errors
    /// [`Error::Config`] naming the setting.
    pub fn validate(&self, object_size: u64) -> Result<()> {
        if self.sizes.is_empty() || self.sizes.len() > MAX_SIZES {
            return Err(Error::config(
                "--sizes",
                self.sizes.len(),
                format!("expected 1 to {MAX_SIZES} sizes"),
            ));
        }
        for (i, &s) in self.sizes.iter().enumerate() {
            if s == 0 || s > MAX_SIZE {
                return Err(Error::config(
                    "--sizes",
                    s,
                    format!("sizes must be 1 B to {} MiB", MAX_SIZE >> 20),
                ));
            }
            if i > 0 && s <= self.sizes[i - 1] {
                return Err(Error::config("--sizes", s, "sizes must strictly increase"));
            }
            if s > object_size {
                return Err(Error::config(
                    "--sizes",
                    s,
                    format!("larger than the object read ({object_size} bytes)"),
                ));
            }
        }
        if self.repeats == 0 || self.repeats > MAX_REPEATS {
            return Err(Error::config(
                "--repeats",
                self.repeats,
                format!("expected 1 to {MAX_REPEATS}"),
            ));
        }
        if self.concurrency.is_empty()
            || self
                .concurrency
                .iter()
                .any(|&c| c == 0 || c > MAX_CONCURRENCY)
        {
            return Err(Error::config(
                "--concurrency",
                format!("{:?}", self.concurrency),
                format!("expected levels 1 to {MAX_CONCURRENCY}"),
            ));
        }
        if self.total_gets() > MAX_GETS {
            return Err(Error::config(
                "--repeats",
                self.repeats,
                format!(
                    "{} GETs in all exceeds the bound of {MAX_GETS}",
                    self.total_gets()
                ),
            ));
        }
        if self.total_bytes() > MAX_TOTAL_BYTES {
            return Err(Error::config(
                "--sizes",
                format!("{} MiB read", self.total_bytes() >> 20),
                format!("exceeds the bound of {} GiB", MAX_TOTAL_BYTES >> 30),
            ));
        }
        Ok(())
    }
}

/// Sizes from `min` to `max` bytes doubling each step (`max` is included
/// even when not a power-of-two multiple of `min`).
///
/// # Errors
/// [`Error::Config`] when `min` is 0, `min > max`, `max` exceeds
/// [`MAX_SIZE`], or there would be more than [`MAX_SIZES`] sizes.
pub fn log_sizes(min: u64, max: u64) -> Result<Vec<u64>> {
    if min == 0 || min > max || max > MAX_SIZE {
        return Err(Error::config(
            "--sizes",
            format!("{min}..{max}"),
            format!("expected 1 <= min <= max <= {} MiB", MAX_SIZE >> 20),
        ));
    }
    let mut out = Vec::new();
    let mut s = min;
    while s < max {
        out.push(s);
        s = s.saturating_mul(2);
    }
    out.push(max);
    if out.len() > MAX_SIZES {
        return Err(Error::config(
            "--sizes",
            format!("{min}..{max}"),
            format!("more than {MAX_SIZES} sizes"),
        ));
    }
    Ok(out)
}

/// Seeded pseudo-random bytes for a scratch object (incompressible, so no
/// layer between client and store can shortcut the transfer).
pub fn scratch_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut v = vec![0u8; len];
    ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut v);
    v
}

/// Times range GETs of every size at every concurrency against `path`
/// (`object_size` bytes) and calls `progress(1)` after each GET.
///
/// Offsets are drawn uniformly (seeded) from `[0, object_size − size]`, so
/// repeats do not read the same bytes. A GET's time runs from issue to its
/// last body byte (the body is streamed and dropped: memory stays at one
/// chunk per GET in flight). At concurrency `c`, `max(repeats, c)` GETs run
/// with `c` in flight (a closed loop), sizes in increasing order, after `c`
/// untimed GETs of the smallest size that open the client's connections
/// (`warm_up`).
///
/// Time is [`tokio::time::Instant`], so under a paused test clock the
/// measurement of a simulated store is exact and instant.
///
/// # Errors
/// [`MeasureConfig::validate`]'s; [`Error::Store`] when a GET fails;
/// [`Error::Input`] when one returns the wrong number of bytes or takes
/// longer than `GET_TIMEOUT` (120 s).
pub async fn measure(
    store: Arc<dyn ObjectStore>,
    path: &Path,
    object_size: u64,
    cfg: &MeasureConfig,
    progress: impl Fn(u64),
) -> Result<(Vec<Sample>, Vec<Batch>)> {
    cfg.validate(object_size)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut samples = Vec::with_capacity(cfg.total_gets() as usize);
    let mut batches = Vec::new();
    for &c in &cfg.concurrency {
        warm_up(&store, path, cfg.sizes[0], c).await?;
        for &size in &cfg.sizes {
            let n = cfg.gets_at(c);
            let offsets: Vec<u64> = (0..n)
                .map(|_| rng.random_range(0..=object_size - size))
                .collect();
            let start = Instant::now();
            let mut gets = futures::stream::iter(offsets)
                .map(|off| spawned_get(&store, path, off, size))
                .buffer_unordered(c);
            while let Some(ms) = gets.next().await {
                samples.push(Sample {
                    bytes: size,
                    concurrency: c,
                    ms: ms?,
                });
                progress(1);
            }
            batches.push(Batch {
                bytes: size,
                concurrency: c,
                gets: n,
                wall_ms: start.elapsed().as_secs_f64() * 1000.0,
            });
        }
    }
    Ok((samples, batches))
}

/// `c` untimed GETs of the first `len` bytes with `c` in flight, before the
/// timed GETs at concurrency `c`: a pooled HTTP client opens a connection
/// for every GET in flight beyond those it holds, and the TCP handshakes
/// would otherwise land in the first size's median at each concurrency
/// (+1–3 ms of 25 ms at `c` = 8 and 32 over loopback, measured against
/// `warp-s3`). `O(c)` GETs.
async fn warm_up(store: &Arc<dyn ObjectStore>, path: &Path, len: u64, c: usize) -> Result<()> {
    futures::stream::iter(0..c)
        .map(|_| spawned_get(store, path, 0, len))
        .buffer_unordered(c)
        .try_for_each(|_| async { Ok(()) })
        .await
}

/// [`timed_get`] as a task of its own, so that the runtime's worker
/// threads sign, send and read the GETs in flight in parallel: polled from
/// one task, `c` GETs issued together queue behind each other's client-side
/// work (+0.5–1 ms of the median at `c` = 32 on two cores).
/// The task is aborted if the calibration stops first (another GET's
/// error drops the stream of them).
async fn spawned_get(store: &Arc<dyn ObjectStore>, path: &Path, off: u64, len: u64) -> Result<f64> {
    let mut task = AbortOnDrop(tokio::spawn(timed_get(
        Arc::clone(store),
        path.clone(),
        off,
        len,
    )));
    (&mut task.0).await.map_err(|e| {
        Error::input(format!(
            "a calibration GET of {len} bytes did not finish: {e}"
        ))
    })?
}

/// Aborts its task when dropped.
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// One GET of `[off, off + len)`, streamed to the end; its time in ms.
async fn timed_get(store: Arc<dyn ObjectStore>, path: Path, off: u64, len: u64) -> Result<f64> {
    let start = Instant::now();
    let work = async {
        let opts = GetOptions {
            range: Some(GetRange::Bounded(off..off + len)),
            ..GetOptions::default()
        };
        let result = store
            .get_opts(&path, opts)
            .await
            .map_err(Error::store("get", &path))?;
        let mut body = result.into_stream();
        let mut got = 0u64;
        while let Some(chunk) = body.try_next().await.map_err(Error::store("get", &path))? {
            got += chunk.len() as u64;
        }
        Ok::<u64, Error>(got)
    };
    let got = tokio::time::timeout(GET_TIMEOUT, work)
        .await
        .map_err(|_| {
            Error::input(format!(
                "GET of {len} bytes at {off} in {path} took longer than {} s",
                GET_TIMEOUT.as_secs()
            ))
        })??;
    if got != len {
        return Err(Error::input(format!(
            "GET of {len} bytes at {off} in {path} returned {got} bytes"
        )));
    }
    Ok(start.elapsed().as_secs_f64() * 1000.0)
}
