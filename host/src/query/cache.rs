//! The payload cache of a [`super::Searcher`]: probed lists by number, with
//! a byte capacity (moka, TinyLFU admission, LRU eviction). An IVF-Flat
//! list under squared L2 that is hit [`SCREEN_AFTER_HITS`] times gets its
//! 8-bit screen ([`Sq8List`]): the entry is replaced by one holding both,
//! weighed by both, and every later hit scans a quarter of the list's
//! bytes. A list read once or twice is never screened (making a screen
//! costs about two scans of the list; it saves about half of one per hit).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use bytes::Bytes;

use crate::ivf::score::Sq8List;

/// Hits after which a cached list gets its screen.
pub(super) const SCREEN_AFTER_HITS: u32 = 2;

/// A probed list as a query scans it: its verified bytes and, for a cached
/// list hit often enough, its screen.
#[derive(Debug, Clone)]
pub(super) struct CachedList {
    /// The list's bytes, as verified when they were fetched.
    pub(super) bytes: Bytes,
    /// Its screen, once made.
    pub(super) screen: Option<Arc<Sq8List>>,
    /// Hits of the cached entry, shared by its clones and its screened
    /// replacement.
    hits: Arc<AtomicU32>,
}

impl CachedList {
    /// A list without a screen (fetched, or just cached).
    pub(super) fn new(bytes: Bytes) -> Self {
        Self {
            bytes,
            screen: None,
            hits: Arc::default(),
        }
    }

    /// Counts a hit; `true` exactly once per entry, at its
    /// [`SCREEN_AFTER_HITS`]-th hit while it has no screen: the caller
    /// then makes the screen ([`CachedList::with_screen`]) and puts the
    /// result back in the cache. `O(1)`.
    pub(super) fn hit(&self) -> bool {
        let before = self.hits.fetch_add(1, Ordering::Relaxed);
        self.screen.is_none() && before + 1 == SCREEN_AFTER_HITS
    }

    /// This entry with `screen`.
    pub(super) fn with_screen(&self, screen: Sq8List) -> Self {
        Self {
            bytes: self.bytes.clone(),
            screen: Some(Arc::new(screen)),
            hits: Arc::clone(&self.hits),
        }
    }

    /// Bytes the entry holds: the list's and its screen's.
    fn weight(&self) -> u32 {
        let screen = self.screen.as_ref().map_or(0, |s| s.size_bytes());
        u32::try_from(self.bytes.len().saturating_add(screen)).unwrap_or(u32::MAX)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_screened_once_at_its_second_hit_and_weighed_with_its_screen() {
        let bytes = Bytes::from_static(&[0u8; 64]);
        let c = CachedList::new(bytes.clone());
        assert_eq!(c.weight(), 64);
        let other = c.clone(); // another query's hit of the same entry
        assert!(!c.hit(), "first hit");
        assert!(other.hit(), "second hit: make the screen");
        let screen = Sq8List::encode(&[1.0f32, 2.0, 3.0, 4.0], 2).unwrap();
        let size = screen.size_bytes();
        let screened = c.with_screen(screen);
        assert_eq!(screened.weight() as usize, 64 + size);
        // Later hits, of the old entry or the new, never ask again.
        for e in [&c, &other, &screened] {
            assert!(!e.hit());
        }
    }
}
