//! The payload cache of a [`super::Searcher`]: probed lists by number, with
//! a byte capacity (moka, TinyLFU admission, LRU eviction).

use bytes::Bytes;

/// A payload cache with a byte capacity (moka, TinyLFU admission).
#[derive(Debug, Clone)]
pub(super) struct PayloadCache(pub(super) Option<moka::future::Cache<u32, Bytes>>);

impl PayloadCache {
    pub(super) fn new(bytes: u64) -> Self {
        Self((bytes > 0).then(|| {
            moka::future::Cache::builder()
                .max_capacity(bytes)
                .weigher(|_, v: &Bytes| u32::try_from(v.len()).unwrap_or(u32::MAX))
                .build()
        }))
    }
}
