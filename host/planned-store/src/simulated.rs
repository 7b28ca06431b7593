//! A latency-simulating [`ObjectStore`] wrapper: S3's request-time profile on
//! one machine.
//!
//! # The model
//!
//! A GET of `L` bytes (`x = L / 2^20` MiB) issued at time `τ` completes at
//!
//! ```text
//! done = max(τ + T · (F · B + S(x)),  link_end)
//!   F  = first_byte_ms                      first-byte latency of a tiny GET (median)
//!   B  = exp(first_byte_sigma · Z)          lognormal body, Z ~ N(0, 1), median 1
//!   S  = max(per_mib_ms · x, 1000 · x / per_conn_mib_per_s)
//!                                           size term: the paper's measured slope,
//!                                           floored by the per-connection cap
//!   T  = 1, or U[tail_min_factor, tail_max_factor] with probability tail_probability
//!   link_end = when the shared link (FIFO, link_mib_per_s) has carried this
//!              GET's bytes after every earlier GET's
//! ```
//!
//! so `F + per_mib_ms · x` is the median single-request latency (the
//! surrogate [`SimulateConfig::surrogate`] returns), `B` spreads the body,
//! `T` is the heavy tail, the per-connection cap bounds what one request can
//! stream, and the link is what concurrent requests share. Every draw is
//! seeded by the configuration's `seed` and the request's sequence number, so
//! a run that issues GETs in the same order sees the same latencies; under
//! tokio's paused test clock the whole simulation is exact and instant.
//!
//! Writes, lists and deletes go straight to the wrapped store. Like
//! object_store's `ThrottledStore`, the wait happens before the result is
//! handed back.

use std::fmt;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::time::Instant;

/// Largest tail factor [`SimulateConfig::validate`] accepts.
pub const MAX_TAIL_FACTOR: f64 = 1000.0;
/// Largest first-byte log-standard-deviation [`SimulateConfig::validate`]
/// accepts.
pub const MAX_FIRST_BYTE_SIGMA: f64 = 3.0;

/// Parameters of the simulated S3 profile. [`SimulateConfig::s3`] gives the
/// defaults; each field says where its default comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulateConfig {
    /// Median first-byte latency of a tiny GET, ms. Default 25: the WaRP
    /// paper's S3 measurement (~25 ms for 1 KiB, ARCHITECTURE §2).
    pub first_byte_ms: f64,
    /// Extra latency per MiB requested, ms. Default 5, so 1 MiB takes ~30 ms,
    /// the paper's figure (an effective ~200 MiB/s per request in-region).
    pub per_mib_ms: f64,
    /// Bandwidth of the link all GETs share, MiB/s; `0` for unlimited.
    /// Default 4096 (≈ 34 Gbit/s, a network-optimized instance's S3
    /// throughput; 1024 models an ~8.6 Gbit/s instance).
    pub link_mib_per_s: f64,
    /// Probability that a GET lands in the long tail. Default 0.02 (S3's
    /// tail: a few percent of GETs take several times the median).
    pub tail_probability: f64,
    /// A tail GET's latency is multiplied by a factor uniform in
    /// `[tail_min_factor, tail_max_factor]`. Default 4.
    pub tail_max_factor: f64,
    /// Seed of the draws (draw `i` uses request number `i`). Default 7.
    pub seed: u64,
    /// Lower end of the tail factor, `>= 1`. Default 2 (so the default tail
    /// is 2–4×; set both ends to 10 for "2% of GETs 10× slower", the
    /// hedging benchmark's tail — see [`SimulateConfig::with_tail`]).
    pub tail_min_factor: f64,
    /// Spread of the first-byte body: `F` is multiplied by a lognormal factor
    /// of median 1 and log-standard-deviation `first_byte_sigma`. Default 0
    /// (a deterministic body, so existing benchmarks do not move); ~0.2–0.4
    /// resembles published S3 first-byte distributions.
    pub first_byte_sigma: f64,
    /// Per-connection throughput cap, MiB/s per request; `0` for none. One
    /// GET never streams faster than this, whatever the link. Default 0: the
    /// paper's 5 ms/MiB already implies ~200 MiB/s per request; AWS's
    /// guidance for a single S3 connection is ~85–100 MiB/s for large
    /// objects, which `--sim-conn-mib-s 90` models.
    pub per_conn_mib_per_s: f64,
}

impl SimulateConfig {
    /// S3 Standard from one instance in the same region (the defaults above).
    pub const fn s3() -> Self {
        Self {
            first_byte_ms: 25.0,
            per_mib_ms: 5.0,
            link_mib_per_s: 4096.0,
            tail_probability: 0.02,
            tail_max_factor: 4.0,
            seed: 7,
            tail_min_factor: 2.0,
            first_byte_sigma: 0.0,
            per_conn_mib_per_s: 0.0,
        }
    }

    /// The same profile with a fixed tail: a fraction `probability` of GETs
    /// exactly `factor` times slower (e.g. `0.02, 10.0`).
    pub const fn with_tail(mut self, probability: f64, factor: f64) -> Self {
        self.tail_probability = probability;
        self.tail_min_factor = factor;
        self.tail_max_factor = factor;
        self
    }

    /// Effective size term, ms per MiB: `max(per_mib_ms, 1000 /
    /// per_conn_mib_per_s)`.
    pub fn effective_per_mib_ms(&self) -> f64 {
        if self.per_conn_mib_per_s > 0.0 {
            self.per_mib_ms.max(1000.0 / self.per_conn_mib_per_s)
        } else {
            self.per_mib_ms
        }
    }

    /// The request-time surrogate matching this profile's median single GET
    /// (ignoring the tail and link contention):
    /// `t(L) = first_byte_ms + effective_per_mib_ms · L / 2^20`.
    pub fn surrogate(&self) -> planner_core::Surrogate {
        planner_core::Surrogate::Affine {
            fixed_ms: self.first_byte_ms,
            per_mib_ms: self.effective_per_mib_ms(),
        }
    }

    /// Checks every field is finite and in range.
    ///
    /// # Errors
    /// A message naming the field.
    pub fn validate(&self) -> Result<(), String> {
        let checks = [
            (
                "first_byte_ms",
                self.first_byte_ms,
                self.first_byte_ms >= 0.0,
            ),
            ("per_mib_ms", self.per_mib_ms, self.per_mib_ms >= 0.0),
            (
                "link_mib_per_s",
                self.link_mib_per_s,
                self.link_mib_per_s >= 0.0,
            ),
            (
                "tail_probability",
                self.tail_probability,
                (0.0..=1.0).contains(&self.tail_probability),
            ),
            (
                "tail_min_factor",
                self.tail_min_factor,
                (1.0..=MAX_TAIL_FACTOR).contains(&self.tail_min_factor),
            ),
            (
                "tail_max_factor",
                self.tail_max_factor,
                self.tail_max_factor >= self.tail_min_factor
                    && self.tail_max_factor <= MAX_TAIL_FACTOR,
            ),
            (
                "first_byte_sigma",
                self.first_byte_sigma,
                (0.0..=MAX_FIRST_BYTE_SIGMA).contains(&self.first_byte_sigma),
            ),
            (
                "per_conn_mib_per_s",
                self.per_conn_mib_per_s,
                self.per_conn_mib_per_s >= 0.0,
            ),
        ];
        for (name, value, ok) in checks {
            if !value.is_finite() || !ok {
                return Err(format!("simulate.{name} = {value} is out of range"));
            }
        }
        Ok(())
    }
}

impl Default for SimulateConfig {
    fn default() -> Self {
        Self::s3()
    }
}

/// Wraps a store and delays every GET by the [`SimulateConfig`] profile.
#[derive(Debug)]
pub struct SimulatedStore {
    inner: Arc<dyn ObjectStore>,
    config: SimulateConfig,
    requests: AtomicU64,
    /// When the shared link is next free.
    link_free: Mutex<Option<Instant>>,
}

impl SimulatedStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn ObjectStore>, config: SimulateConfig) -> Self {
        Self {
            inner,
            config,
            requests: AtomicU64::new(0),
            link_free: Mutex::new(None),
        }
    }

    /// GETs served so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// When a GET of `len` bytes issued now completes.
    fn completion(&self, len: u64) -> Instant {
        let c = &self.config;
        let i = self.requests.fetch_add(1, Ordering::Relaxed);
        let mut rng = ChaCha8Rng::seed_from_u64(c.seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mib = len as f64 / 1_048_576.0;
        // Draw order is fixed (tail, factor, body) so that profiles without a
        // body spread reproduce the draws of earlier versions exactly.
        let tail = if rng.random::<f64>() < c.tail_probability {
            rng.random_range(c.tail_min_factor..=c.tail_max_factor)
        } else {
            1.0
        };
        let body = if c.first_byte_sigma > 0.0 {
            let z: f64 = rng.sample(rand_distr::StandardNormal);
            (c.first_byte_sigma * z).exp()
        } else {
            1.0
        };
        let ms = (c.first_byte_ms * body + c.effective_per_mib_ms() * mib) * tail;
        let now = Instant::now();
        let mut done = now + Duration::from_secs_f64(ms / 1000.0);
        if c.link_mib_per_s > 0.0 {
            let transfer = Duration::from_secs_f64(mib / c.link_mib_per_s);
            let mut free = self.link_free.lock().unwrap_or_else(|e| e.into_inner());
            let start = free.map_or(now, |f| f.max(now));
            let end = start + transfer;
            *free = Some(end);
            done = done.max(end);
        }
        done
    }
}

impl fmt::Display for SimulatedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Simulated({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for SimulatedStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let result = self.inner.get_opts(location, options).await?;
        let done = self.completion(result.range.end - result.range.start);
        tokio::time::sleep_until(done).await;
        Ok(result)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::ObjectStoreExt;
    use object_store::memory::InMemory;

    #[tokio::test]
    async fn delays_gets_by_the_profile() {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let path = Path::from("x");
        inner.put(&path, vec![7u8; 4096].into()).await.unwrap();
        let cfg = SimulateConfig {
            tail_probability: 0.0,
            first_byte_ms: 20.0,
            ..SimulateConfig::s3()
        };
        let sim = SimulatedStore::new(inner, cfg);
        let t = std::time::Instant::now();
        let b = sim.get_range(&path, 10..20).await.unwrap();
        let took = t.elapsed();
        assert_eq!(&b[..], &[7u8; 10]);
        assert!(took >= Duration::from_millis(19), "{took:?}");
        assert_eq!(sim.requests(), 1);
        assert!(cfg.validate().is_ok());
        let bad = SimulateConfig {
            tail_probability: 2.0,
            ..cfg
        };
        assert!(bad.validate().unwrap_err().contains("tail_probability"));
    }

    /// Latency of GET number `i` of `len` bytes under a paused clock.
    async fn latencies(cfg: SimulateConfig, len: u64, n: usize) -> Vec<f64> {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let path = Path::from("x");
        inner
            .put(&path, vec![1u8; len as usize].into())
            .await
            .unwrap();
        let sim = SimulatedStore::new(inner, cfg);
        let mut out = Vec::new();
        for _ in 0..n {
            let t = Instant::now();
            sim.get_range(&path, 0..len).await.unwrap();
            out.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        out
    }

    #[tokio::test(start_paused = true)]
    async fn tail_of_ten_and_connection_cap() {
        let cfg = SimulateConfig {
            link_mib_per_s: 0.0,
            per_conn_mib_per_s: 100.0,
            ..SimulateConfig::s3().with_tail(0.02, 10.0)
        };
        assert!(cfg.validate().is_ok());
        // 1 MiB: 25 ms first byte + 10 ms at 100 MiB/s (the cap beats 5 ms/MiB).
        let v = latencies(cfg, 1 << 20, 2000).await;
        let base = v.iter().filter(|&&ms| (ms - 35.0).abs() < 0.01).count();
        let tail = v.iter().filter(|&&ms| (ms - 350.0).abs() < 0.1).count();
        assert_eq!(base + tail, v.len(), "only the two levels occur");
        assert!((20..=60).contains(&tail), "{tail} tail GETs of 2000");
        assert_eq!(cfg.surrogate().eval(1 << 20), 35.0);
    }

    #[tokio::test(start_paused = true)]
    async fn lognormal_body_has_the_configured_median() {
        let cfg = SimulateConfig {
            link_mib_per_s: 0.0,
            tail_probability: 0.0,
            first_byte_sigma: 0.3,
            ..SimulateConfig::s3()
        };
        let mut v = latencies(cfg, 1, 1001).await;
        v.sort_by(f64::total_cmp);
        let median = v[500];
        assert!((median - 25.0).abs() < 1.0, "median {median}");
        assert!(
            v[0] < 20.0 && v[1000] > 35.0,
            "spread {} .. {}",
            v[0],
            v[1000]
        );
        let again = latencies(cfg, 1, 50).await;
        let mut first = latencies(cfg, 1, 50).await;
        first.sort_by(f64::total_cmp);
        let mut again = again;
        again.sort_by(f64::total_cmp);
        assert_eq!(first, again, "seeded: the same draws every run");
        let bad = SimulateConfig {
            tail_min_factor: 5.0,
            tail_max_factor: 4.0,
            ..cfg
        };
        assert!(bad.validate().unwrap_err().contains("tail_max_factor"));
    }
}
