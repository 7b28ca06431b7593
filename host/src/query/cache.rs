//! The payload cache of a [`super::Searcher`]: probed lists by number, with
//! a byte capacity (moka, TinyLFU admission, LRU eviction). An IVF-Flat
//! list under squared L2 is kept with its 8-bit screen ([`Sq8List`]), which
//! lets a warm scan read a quarter of the list's bytes per query; the
//! capacity counts both.

use std::sync::Arc;

use bytes::Bytes;

use crate::ivf::score::Sq8List;

/// A cached list: its verified bytes and, where the index has one, its
/// 8-bit screen.
#[derive(Debug, Clone)]
pub(super) struct CachedList {
    /// The list's bytes, as verified when they were fetched.
    pub(super) bytes: Bytes,
    /// Its screen (IVF-Flat under squared L2).
    pub(super) screen: Option<Arc<Sq8List>>,
}

impl CachedList {
    /// Bytes the entry holds: the list's and its screen's.
    fn weight(&self) -> u32 {
        let screen = self.screen.as_ref().map_or(0, |s| s.size_bytes());
        u32::try_from(self.bytes.len() + screen).unwrap_or(u32::MAX)
    }
}

/// A payload cache with a byte capacity (moka, TinyLFU admission).
#[derive(Debug, Clone)]
pub(super) struct PayloadCache(pub(super) Option<moka::future::Cache<u32, CachedList>>);

impl PayloadCache {
    pub(super) fn new(bytes: u64) -> Self {
        Self((bytes > 0).then(|| {
            moka::future::Cache::builder()
                .max_capacity(bytes)
                .weigher(|_, v: &CachedList| v.weight())
                .build()
        }))
    }
}
