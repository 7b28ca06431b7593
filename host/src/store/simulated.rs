//! A latency-simulating [`ObjectStore`] wrapper: S3's request-time profile on
//! one machine.
//!
//! Every GET pays a first-byte latency that grows slowly with size (the WaRP
//! paper measures ~25 ms for 1 KiB and ~30 ms for 1 MiB on S3), then its bytes
//! pass through a shared link of limited bandwidth, and a seeded fraction of
//! requests is slowed by a long-tail factor. Writes, lists and deletes go
//! straight to the wrapped store. Like object_store's `ThrottledStore`, the
//! wait happens before the result is handed back.

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

/// Parameters of the simulated S3 profile. [`SimulateConfig::s3`] gives the
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulateConfig {
    /// First-byte latency of a tiny GET, milliseconds. Default 25.
    pub first_byte_ms: f64,
    /// Extra first-byte latency per MiB requested, milliseconds. Default 5
    /// (so 1 MiB takes ~30 ms, the paper's figure).
    pub per_mib_ms: f64,
    /// Bandwidth of the link all GETs share, MiB/s; `0` for unlimited.
    /// Default 4096 (≈ 34 Gbit/s, a network-optimized instance's S3
    /// throughput; 1024 models an ~8.6 Gbit/s instance).
    pub link_mib_per_s: f64,
    /// Probability that a GET lands in the long tail. Default 0.02.
    pub tail_probability: f64,
    /// A tail GET's latency is multiplied by a factor uniform in
    /// `[2, tail_max_factor]`. Default 4.
    pub tail_max_factor: f64,
    /// Seed of the tail draws (draw `i` uses request number `i`). Default 7.
    pub seed: u64,
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
        }
    }

    /// The request-time surrogate matching this profile (ignoring the tail and
    /// link contention): `t(L) = first_byte_ms + per_mib_ms · L / 2^20`.
    pub fn surrogate(&self) -> planner_core::Surrogate {
        planner_core::Surrogate::Affine {
            fixed_ms: self.first_byte_ms,
            per_mib_ms: self.per_mib_ms,
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
                "tail_max_factor",
                self.tail_max_factor,
                self.tail_max_factor >= 2.0,
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
        let mut ms = c.first_byte_ms + c.per_mib_ms * mib;
        if rng.random::<f64>() < c.tail_probability {
            ms *= rng.random_range(2.0..=c.tail_max_factor);
        }
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
}
