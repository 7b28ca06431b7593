//! Reading whole objects under a bound: [`get_bounded`] for one object,
//! [`preload`] for every object of an index (benchmarks), and
//! [`missing_index_reason`] when the manifest is not there.

use std::sync::Arc;

use object_store::ObjectStore;
use object_store::memory::InMemory;
use object_store::path::Path;

use super::StoreLocation;
use crate::error::{Error, Result};

/// Most bytes [`preload`] copies into memory: 8 GiB.
pub const PRELOAD_MAX_BYTES: u64 = 8 << 30;

/// Copies every object under `loc.prefix` into a fresh in-memory store.
///
/// Benchmarks use it so that reading the simulated store costs no CPU of the
/// machine under test (a real object store's servers are elsewhere): only the
/// simulated latency and link remain.
///
/// # Errors
/// [`Error::Store`] when listing or reading fails; [`Error::Input`] when the
/// objects hold more than [`PRELOAD_MAX_BYTES`] (checked from the listing,
/// before anything is read).
pub async fn preload(loc: &StoreLocation) -> Result<StoreLocation> {
    use futures::TryStreamExt;
    use object_store::ObjectStoreExt;
    let mem = Arc::new(InMemory::new());
    let metas: Vec<_> = loc
        .store
        .list(Some(&loc.prefix))
        .try_collect()
        .await
        .map_err(Error::store("list", &loc.prefix))?;
    let total: u64 = metas.iter().map(|m| m.size).sum();
    if total > PRELOAD_MAX_BYTES {
        return Err(Error::input(format!(
            "{} holds {total} bytes; preloading into memory is limited to {PRELOAD_MAX_BYTES}",
            loc.display
        )));
    }
    for meta in metas {
        let path = meta.location;
        let bytes = async { loc.store.get(&path).await?.bytes().await }
            .await
            .map_err(Error::store("get", &path))?;
        mem.put(&path, bytes.into())
            .await
            .map_err(Error::store("put", &path))?;
    }
    Ok(StoreLocation {
        store: mem,
        prefix: loc.prefix.clone(),
        display: format!("{} (preloaded into memory)", loc.display),
        loopback_port: None,
    })
}

/// Reads a whole object, refusing one larger than `max_bytes` before its
/// body is read (from the size the store reports), and a body whose length
/// differs from that size.
///
/// Returns the bytes and when the object was written.
///
/// # Errors
/// [`Error::Store`] when the read fails (`NotFound` included);
/// [`Error::Index`] when the object is too large or its body is not the
/// announced size.
pub async fn get_bounded(
    loc: &StoreLocation,
    path: &Path,
    max_bytes: u64,
) -> Result<(bytes::Bytes, std::time::SystemTime)> {
    use object_store::ObjectStoreExt;
    let got = loc
        .store
        .get(path)
        .await
        .map_err(Error::store("get", path))?;
    let size = got.meta.size;
    if size > max_bytes {
        return Err(Error::index(format!(
            "{path} has {size} bytes, more than the {max_bytes} allowed for it"
        )));
    }
    let written = std::time::SystemTime::from(got.meta.last_modified);
    let bytes = got.bytes().await.map_err(Error::store("get", path))?;
    if bytes.len() as u64 != size {
        return Err(Error::index(format!(
            "{path}: read {} bytes, the store announced {size}",
            bytes.len()
        )));
    }
    Ok((bytes, written))
}

/// Why there is no index at `loc`, as one line for an [`Error::Index`]:
/// the bucket does not exist, nothing is stored under the prefix, or objects
/// are there but no `manifest.json` (an interrupted first build).
///
/// Call it when reading the manifest returned `NotFound`. It lists at most
/// one page under the prefix.
pub async fn missing_index_reason(loc: &StoreLocation) -> String {
    use futures::StreamExt;
    let manifest = crate::ivf::manifest::MANIFEST;
    let mut listing = loc.store.list(Some(&loc.prefix));
    match listing.next().await {
        None => format!(
            "no index at {} (nothing stored there; run `warp build` first)",
            loc.display
        ),
        Some(Ok(_)) => format!(
            "no index at {} (objects but no {manifest}: an interrupted first build? run `warp build` again, then `warp gc`)",
            loc.display
        ),
        Some(Err(e)) => {
            let text = crate::error::chain(&e);
            if text.contains("NoSuchBucket") {
                let bucket = s3_bucket(&loc.display).unwrap_or("of this URL");
                format!("bucket {bucket} does not exist ({})", loc.display)
            } else {
                format!(
                    "no index at {} (no {manifest}, and listing failed: {text})",
                    loc.display
                )
            }
        }
    }
}

/// The bucket of an `s3://bucket/…` display string.
fn s3_bucket(display: &str) -> Option<&str> {
    let rest = display.strip_prefix("s3://")?;
    rest.split(['/', ' ']).next().filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::open;

    #[tokio::test]
    async fn missing_index_reasons() {
        let loc = open("memory://missing-index-reason").unwrap();
        assert!(
            missing_index_reason(&loc)
                .await
                .contains("nothing stored there"),
            "{}",
            missing_index_reason(&loc).await
        );
        use object_store::ObjectStoreExt;
        loc.store
            .put(&loc.child("payload-x.bin"), vec![1u8].into())
            .await
            .unwrap();
        assert!(
            missing_index_reason(&loc)
                .await
                .contains("but no manifest.json")
        );
        assert_eq!(s3_bucket("s3://b/x (simulated S3)"), Some("b"));
        assert_eq!(s3_bucket("s3://b"), Some("b"));
        assert_eq!(s3_bucket("memory://b"), None);
    }
}
