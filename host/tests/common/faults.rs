//! One fault-injecting [`ObjectStore`] for every test that needs a store to
//! misbehave: it delegates everything to a real store, except the faults
//! queued on it — per requested GET range (each used once, in order), puts
//! of objects whose file name starts with a given prefix, and a delay on
//! every put.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::{BoxStream, StreamExt};
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetRange, GetResult, GetResultPayload, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions,
};

/// The `store` name of every error [`FaultyStore`] injects.
pub(crate) const STORE: &str = "Faulty";

/// What one GET of a range does instead of answering.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fault {
    /// Sleep before answering.
    Delay(Duration),
    /// Answer with an error.
    Fail,
    /// Send half the body, then nothing.
    StallBody,
    /// Answer the range one byte further on.
    Shifted,
}

/// A real store with injected faults.
#[derive(Debug)]
pub(crate) struct FaultyStore {
    inner: Arc<dyn ObjectStore>,
    get_faults: Mutex<HashMap<(u64, u64), Vec<Fault>>>,
    failing_puts: Mutex<Option<String>>,
    put_delay: Mutex<Duration>,
    gets: AtomicU64,
}

impl FaultyStore {
    /// A store answering as `inner` until faults are queued.
    pub(crate) fn new(inner: Arc<dyn ObjectStore>) -> Arc<Self> {
        Arc::new(Self {
            inner,
            get_faults: Mutex::new(HashMap::new()),
            failing_puts: Mutex::new(None),
            put_delay: Mutex::new(Duration::ZERO),
            gets: AtomicU64::new(0),
        })
    }

    /// Queues `fault` for the next GET of exactly `range`.
    pub(crate) fn on_range(&self, range: Range<u64>, fault: Fault) {
        self.get_faults
            .lock()
            .unwrap()
            .entry((range.start, range.end))
            .or_default()
            .push(fault);
    }

    /// Makes every put of an object whose file name starts with `prefix`
    /// fail with "disk full (injected)".
    pub(crate) fn fail_puts_of(&self, prefix: &str) {
        *self.failing_puts.lock().unwrap() = Some(prefix.to_owned());
    }

    /// Makes every put wait `delay` before it is passed on (a slow
    /// upload: widens the time between a build's first object and its
    /// manifest).
    pub(crate) fn delay_puts(&self, delay: Duration) {
        *self.put_delay.lock().unwrap() = delay;
    }

    /// GETs received so far.
    pub(crate) fn gets(&self) -> u64 {
        self.gets.load(Ordering::Relaxed)
    }

    fn injected(message: &'static str) -> object_store::Error {
        object_store::Error::Generic {
            store: STORE,
            source: message.into(),
        }
    }
}

impl fmt::Display for FaultyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Faulty({})", self.inner)
    }
}

#[async_trait]
impl ObjectStore for FaultyStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        let failing = self.failing_puts.lock().unwrap().clone();
        if let Some(prefix) = failing
            && location.filename().is_some_and(|n| n.starts_with(&prefix))
        {
            return Err(Self::injected("disk full (injected)"));
        }
        let delay = *self.put_delay.lock().unwrap();
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        self.gets.fetch_add(1, Ordering::Relaxed);
        let fault = match &options.range {
            Some(GetRange::Bounded(r)) => self
                .get_faults
                .lock()
                .unwrap()
                .get_mut(&(r.start, r.end))
                .and_then(|v| (!v.is_empty()).then(|| v.remove(0))),
            _ => None,
        };
        match fault {
            None => self.inner.get_opts(location, options).await,
            Some(Fault::Delay(d)) => {
                tokio::time::sleep(d).await;
                self.inner.get_opts(location, options).await
            }
            Some(Fault::Fail) => Err(Self::injected("injected failure")),
            Some(Fault::StallBody) => {
                let res = self.inner.get_opts(location, options).await?;
                let (meta, range, attributes) =
                    (res.meta.clone(), res.range.clone(), res.attributes.clone());
                let body = res.bytes().await?;
                let half = body.slice(..body.len() / 2);
                let stream = futures::stream::iter([Ok(half)]).chain(futures::stream::pending());
                Ok(GetResult {
                    payload: GetResultPayload::Stream(stream.boxed()),
                    meta,
                    range,
                    attributes,
                    extensions: Default::default(),
                })
            }
            Some(Fault::Shifted) => match options.range.clone() {
                Some(GetRange::Bounded(r)) => {
                    let shifted = GetOptions::new().with_range(Some(r.start + 1..r.end + 1));
                    self.inner.get_opts(location, shifted).await
                }
                _ => Err(Self::injected("a shifted fault needs a bounded range")),
            },
        }
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(
        &self,
        from: &Path,
        to: &Path,
        options: RenameOptions,
    ) -> object_store::Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}
