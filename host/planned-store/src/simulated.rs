//! A latency-simulating [`ObjectStore`] wrapper: S3's request-time profile on
//! one machine.
//!
//! # The model
//!
//! [`warp_latency_model`] (shared with the `warp-s3` server, which applies the
//! same implementation to every GET it serves): a GET issued at `τ` as
//! request number `i` draws a tail factor `T` and a lognormal first-byte body
//! `B` (seeded by the configuration's `seed` and `i`), hands its
//! [`GetResult`] back at `τ + T · first_byte_ms · B` (the first byte), then
//! streams its body (in pieces of at most 64 KiB) at its own pace
//! `T · max(per_mib_ms, 1000 / per_conn_mib_per_s)` ms per MiB or at its
//! max-min fair share of the link all bodies share (`link_mib_per_s`,
//! processor sharing), whichever is slower. A lone GET of `x` MiB therefore takes
//!
//! ```text
//! T · (first_byte_ms · B + effective_per_mib_ms · x)
//! ```
//!
//! so `first_byte_ms + effective_per_mib_ms · x` is the median
//! single-request latency (the surrogate [`SimulateConfig::surrogate`]
//! returns), while concurrent bodies split the link. Because the headers
//! arrive at the first byte and the body after them, a client can tell
//! first-byte delay from transfer time, as with real S3. A HEAD
//! (`GetOptions::head`) waits the first byte only.
//!
//! Every draw is seeded, so a run that issues GETs in the same order sees the
//! same latencies; under tokio's paused test clock the whole simulation is
//! deterministic and instant (tokio's timer wakes on whole milliseconds, never
//! early, paused or not; a late wake-up never delays the quanta after it).
//!
//! Writes, lists and deletes go straight to the wrapped store.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};
pub use warp_latency_model::{
    MAX_FIRST_BYTE_SIGMA, MAX_LATENCY_MS, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
    SimulateConfig,
};
use warp_latency_model::{Model, PacedBody, TokioTimer, sleep_until};

/// Largest chunk a local file's range is read into, bytes.
pub const FILE_CHUNK: usize = 1 << 20;

/// Reads `range` of `file` into chunks of at most [`FILE_CHUNK`] bytes. A
/// file shorter than the range is an error naming `path`. Blocking;
/// `O(range)` bytes in `⌈range / FILE_CHUNK⌉` buffers.
fn read_chunks(
    mut file: std::fs::File,
    path: &std::path::Path,
    range: std::ops::Range<u64>,
) -> Result<Vec<Bytes>> {
    use std::io::{Read, Seek, SeekFrom};
    let fail = |e: std::io::Error| {
        sim_error(format!("reading {} bytes {range:?}: {e}", path.display()).into())
    };
    file.seek(SeekFrom::Start(range.start)).map_err(fail)?;
    let mut left = range.end.saturating_sub(range.start);
    let mut chunks = Vec::with_capacity(left.div_ceil(FILE_CHUNK as u64) as usize);
    while left > 0 {
        let n = left.min(FILE_CHUNK as u64) as usize;
        let mut buf = Vec::with_capacity(n);
        (&mut file)
            .take(n as u64)
            .read_to_end(&mut buf)
            .map_err(fail)?;
        if buf.len() < n {
            return Err(fail(std::io::ErrorKind::UnexpectedEof.into()));
        }
        chunks.push(Bytes::from(buf));
        left -= n as u64;
    }
    Ok(chunks)
}

/// An error of the simulator's own (its file reads), not the wrapped store's.
fn sim_error(source: Box<dyn std::error::Error + Send + Sync>) -> object_store::Error {
    object_store::Error::Generic {
        store: "SimulatedStore",
        source,
    }
}

/// Wraps a store and delays every GET by the [`SimulateConfig`] profile:
/// the result at the first byte, the body streamed at the model's pace.
#[derive(Debug)]
pub struct SimulatedStore {
    inner: Arc<dyn ObjectStore>,
    model: Arc<Model>,
}

impl SimulatedStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn ObjectStore>, config: SimulateConfig) -> Self {
        Self {
            inner,
            model: Arc::new(Model::new(config)),
        }
    }

    /// GETs (and HEADs) served so far.
    pub fn requests(&self) -> u64 {
        self.model.requests()
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
        let head = options.head;
        let result = self.inner.get_opts(location, options).await?;
        let len = if head {
            0
        } else {
            result.range.end - result.range.start
        };
        let transfer = self.model.start(len);
        if head {
            sleep_until(&TokioTimer, transfer.headers_at()).await;
            return Ok(result);
        }
        let meta = result.meta.clone();
        let range = result.range.clone();
        let attributes = result.attributes.clone();
        let extensions = result.extensions.clone();
        // A local file's range is read in one blocking call, while the first
        // byte is due: object_store streams a file in 8 KiB chunks, each a
        // round trip through the blocking pool, and that would pace the
        // body by the machine's CPU (a busy machine's late threads, 128 of
        // them per MiB) instead of by the model. It is read into chunks of
        // at most FILE_CHUNK, as a network body arrives in pieces, not into
        // one buffer of the whole range: fresh buffers of tens of MiB, one
        // per GET, made a Q = 128 run's memory grow to 5–6 GB and its
        // kernel time to 16–40 s in one run of three (BENCHMARKS.md).
        let file_range = range.clone();
        let inner: BoxStream<'static, Result<Bytes>> = match result.payload {
            GetResultPayload::Stream(s) => s,
            GetResultPayload::File(file, path) => {
                let chunks =
                    tokio::task::spawn_blocking(move || read_chunks(file, &path, file_range))
                        .await
                        .map_err(|e| sim_error(Box::new(e)))??;
                Box::pin(futures::stream::iter(chunks.into_iter().map(Ok)))
            }
        };
        sleep_until(&TokioTimer, transfer.headers_at()).await;
        let body = PacedBody::new(inner, transfer, TokioTimer);
        Ok(GetResult {
            payload: GetResultPayload::Stream(Box::pin(body)),
            meta,
            range,
            attributes,
            extensions,
        })
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
    use std::time::Duration;

    use futures::TryStreamExt;
    use object_store::memory::InMemory;
    use object_store::{GetRange, ObjectStoreExt};
    use tokio::time::Instant;

    use super::*;

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

    #[tokio::test(start_paused = true)]
    async fn headers_at_the_first_byte_then_a_streamed_body() {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let path = Path::from("x");
        inner.put(&path, vec![3u8; 8 << 20].into()).await.unwrap();
        let cfg = SimulateConfig {
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        };
        let sim = SimulatedStore::new(inner, cfg);
        let t0 = Instant::now();
        let opts = GetOptions {
            range: Some(GetRange::Bounded(0..(4 << 20))),
            ..GetOptions::default()
        };
        let result = sim.get_opts(&path, opts).await.unwrap();
        assert_eq!(
            t0.elapsed(),
            Duration::from_millis(25),
            "headers at the first byte"
        );
        assert_eq!(result.range, 0..(4 << 20));
        let mut body = result.into_stream();
        let mut chunks = 0;
        let mut got = 0;
        let mut first_chunk_at = None;
        while let Some(c) = body.try_next().await.unwrap() {
            first_chunk_at.get_or_insert(t0.elapsed());
            chunks += 1;
            got += c.len();
        }
        assert_eq!(got, 4 << 20);
        assert!(chunks >= 16, "{chunks} chunks: the body is streamed");
        assert!(first_chunk_at.unwrap() < Duration::from_millis(27));
        // 25 ms + 5 ms/MiB · 4 MiB.
        assert_eq!(t0.elapsed(), Duration::from_millis(45));
        // A HEAD waits the first byte only.
        let t1 = Instant::now();
        assert_eq!(sim.head(&path).await.unwrap().size, 8 << 20);
        assert_eq!(t1.elapsed(), Duration::from_millis(25));
        assert_eq!(sim.requests(), 2);
    }

    #[tokio::test]
    async fn a_local_file_is_paced_by_the_model_alone() {
        // object_store streams a file in 8 KiB chunks through the blocking
        // pool; the simulated body is read in one blocking call (into
        // FILE_CHUNK buffers) and released in the model's 64 KiB pieces, so
        // a busy machine's thread wake-ups do not pace it.
        let dir = tempfile::tempdir().unwrap();
        let inner: Arc<dyn ObjectStore> =
            Arc::new(object_store::local::LocalFileSystem::new_with_prefix(dir.path()).unwrap());
        let path = Path::from("x");
        let data: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
        inner.put(&path, data.clone().into()).await.unwrap();
        let cfg = SimulateConfig {
            tail_probability: 0.0,
            first_byte_ms: 1.0,
            per_mib_ms: 1.0,
            ..SimulateConfig::s3()
        };
        let sim = SimulatedStore::new(inner, cfg);
        let opts = GetOptions {
            range: Some(GetRange::Bounded(4096..(1 << 20))),
            ..GetOptions::default()
        };
        let pieces: Vec<Bytes> = sim
            .get_opts(&path, opts)
            .await
            .unwrap()
            .into_stream()
            .try_collect()
            .await
            .unwrap();
        let sizes: Vec<usize> = pieces.iter().map(Bytes::len).collect();
        assert_eq!(sizes.len(), 16, "{sizes:?}");
        assert!(
            sizes[..15]
                .iter()
                .all(|&n| n == warp_latency_model::QUANTUM)
        );
        assert_eq!(pieces.concat(), &data[4096..]);
    }

    #[test]
    fn a_file_range_is_read_in_chunks_and_a_short_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        let data: Vec<u8> = (0..(5 * FILE_CHUNK / 2) as u32 + 100)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let open = || std::fs::File::open(&path).unwrap();
        let end = data.len() as u64;
        let chunks = read_chunks(open(), &path, 100..end).unwrap();
        let sizes: Vec<usize> = chunks.iter().map(Bytes::len).collect();
        assert_eq!(sizes, [FILE_CHUNK, FILE_CHUNK, FILE_CHUNK / 2]);
        assert_eq!(chunks.concat(), &data[100..]);
        assert!(read_chunks(open(), &path, 7..7).unwrap().is_empty());
        let e = read_chunks(open(), &path, 100..end + 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&path.display().to_string()) && e.contains("100.."),
            "{e}"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_bodies_share_the_link() {
        let inner: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let path = Path::from("x");
        inner.put(&path, vec![5u8; 8 << 20].into()).await.unwrap();
        // Each GET alone would stream at 200 MiB/s; 8 of them share 400 MiB/s.
        let cfg = SimulateConfig {
            tail_probability: 0.0,
            link_mib_per_s: 400.0,
            ..SimulateConfig::s3()
        };
        let sim = Arc::new(SimulatedStore::new(inner, cfg));
        let t0 = Instant::now();
        let gets = (0..8).map(|_| {
            let sim = Arc::clone(&sim);
            let path = path.clone();
            tokio::spawn(async move {
                let b = sim.get(&path).await.unwrap().bytes().await.unwrap();
                (b.len(), t0.elapsed())
            })
        });
        let done = futures::future::join_all(gets).await;
        // 25 ms first byte, then 64 MiB at 400 MiB/s = 160 ms for all of them
        // (within one round-robin round, 1.25 ms, plus the timer's millisecond).
        for d in done {
            let (len, took) = d.unwrap();
            assert_eq!(len, 8 << 20);
            let ms = took.as_secs_f64() * 1000.0;
            assert!((183.0..=188.0).contains(&ms), "{ms} ms");
        }
    }
}
