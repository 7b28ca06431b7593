//! Object stores by URL, and the latency-simulating wrapper.
//!
//! [`open`] turns a location into an [`ObjectStore`] plus the path prefix the
//! index lives under:
//!
//! | location | store |
//! |---|---|
//! | `some/dir`, `/abs/dir`, `file:///abs/dir` | local files (created if missing) |
//! | `memory://name` | a process-wide in-memory store per `name` (tests, `warp demo`) |
//! | `s3://bucket/prefix` | S3 or any S3-compatible server; endpoint, region and credentials from the standard `AWS_*` variables, path-style requests, plain `http` allowed only for loopback endpoints |
//!
//! With [`SimulateConfig`] the store is wrapped in a [`SimulatedStore`].
//! Credentials never appear in [`StoreLocation::display`] or in errors.

mod planned;
mod simulated;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use object_store::ObjectStore;
use object_store::aws::AmazonS3Builder;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;

pub use planned::{
    CallStats, Deadline, HedgePolicy, LoadEstimator, LoadSnapshot, PlanOptions, PlannedError,
    PlannedRead, PlannedStore, PlannedStoreBuilder, STORE_NAME, StatsSnapshot, deadline_exceeded,
    hedge, load,
};
pub(crate) use planned::{affine as planned_affine, into_host};
pub use simulated::{SimulateConfig, SimulatedStore};

use crate::error::{Error, Result};

/// An opened store and the prefix under which an index lives.
#[derive(Debug, Clone)]
pub struct StoreLocation {
    /// The store.
    pub store: Arc<dyn ObjectStore>,
    /// Prefix of every object of the index (may be empty).
    pub prefix: Path,
    /// The location for messages, without credentials.
    pub display: String,
}

impl StoreLocation {
    /// The path of object `name` under the prefix.
    pub fn child(&self, name: &str) -> Path {
        self.prefix.clone().join(name)
    }

    /// The same location with GETs delayed by `config`.
    pub fn simulated(&self, config: SimulateConfig) -> Self {
        Self {
            store: Arc::new(SimulatedStore::new(Arc::clone(&self.store), config)),
            prefix: self.prefix.clone(),
            display: format!("{} (simulated S3)", self.display),
        }
    }
}

/// Copies every object under `loc.prefix` into a fresh in-memory store.
///
/// Benchmarks use it so that reading the simulated store costs no CPU of the
/// machine under test (a real object store's servers are elsewhere): only the
/// simulated latency and link remain.
///
/// # Errors
/// [`Error::Store`] when listing or reading fails.
pub async fn preload(loc: &StoreLocation) -> Result<StoreLocation> {
    use futures::TryStreamExt;
    use object_store::ObjectStoreExt;
    let mem = Arc::new(InMemory::new());
    let err = |op: &'static str, path: String| move |source| Error::Store { op, path, source };
    let metas: Vec<_> = loc
        .store
        .list(Some(&loc.prefix))
        .try_collect()
        .await
        .map_err(err("list", loc.prefix.to_string()))?;
    for meta in metas {
        let path = meta.location;
        let bytes = async { loc.store.get(&path).await?.bytes().await }
            .await
            .map_err(err("get", path.to_string()))?;
        mem.put(&path, bytes.into())
            .await
            .map_err(err("put", path.to_string()))?;
    }
    Ok(StoreLocation {
        store: mem,
        prefix: loc.prefix.clone(),
        display: format!("{} (preloaded into memory)", loc.display),
    })
}

/// Removes `user:password@` from a URL for display.
pub fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            match authority.rfind('@') {
                Some(at) => format!("{scheme}://***@{}{tail}", &authority[at + 1..]),
                None => url.to_string(),
            }
        }
        None => url.to_string(),
    }
}

fn memory_store(name: &str) -> Arc<InMemory> {
    static STORES: OnceLock<Mutex<HashMap<String, Arc<InMemory>>>> = OnceLock::new();
    let mut map = STORES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    Arc::clone(
        map.entry(name.to_string())
            .or_insert_with(|| Arc::new(InMemory::new())),
    )
}

fn is_loopback(endpoint: &str) -> bool {
    let host = endpoint
        .split_once("://")
        .map_or(endpoint, |(_, r)| r)
        .split(['/', '?'])
        .next()
        .unwrap_or("");
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// As [`open`] for reading an existing index: a local directory must already
/// exist (nothing is created).
///
/// # Errors
/// [`Error::Index`] when a local directory does not exist; otherwise as
/// [`open`].
pub fn open_existing(location: &str) -> Result<StoreLocation> {
    let (scheme, rest) = location.split_once("://").unwrap_or(("", location));
    if matches!(scheme, "" | "file") && !std::path::Path::new(rest).is_dir() {
        return Err(Error::index(format!(
            "no index at {} (no such directory; run `warp build` first)",
            redact(location)
        )));
    }
    open(location)
}

/// Opens the store at `location` (see the module docs for the forms).
///
/// # Errors
/// [`Error::Url`] for an unknown scheme, an `s3://` URL without bucket, a
/// non-loopback `http://` endpoint, or a store that cannot be built;
/// [`Error::Io`] when a local directory cannot be created.
pub fn open(location: &str) -> Result<StoreLocation> {
    let shown = redact(location);
    let url_err = |reason: String| Error::Url {
        url: shown.clone(),
        reason,
    };
    let (scheme, rest) = location.split_once("://").unwrap_or(("", location));
    match scheme {
        "" | "file" => {
            if rest.is_empty() {
                return Err(url_err("empty path".into()));
            }
            let dir = std::path::PathBuf::from(rest);
            std::fs::create_dir_all(&dir).map_err(|source| Error::Io {
                path: dir.display().to_string(),
                source,
            })?;
            let dir = dir.canonicalize().map_err(|source| Error::Io {
                path: dir.display().to_string(),
                source,
            })?;
            let store =
                LocalFileSystem::new_with_prefix(&dir).map_err(|e| url_err(e.to_string()))?;
            Ok(StoreLocation {
                store: Arc::new(store),
                prefix: Path::default(),
                display: dir.display().to_string(),
            })
        }
        "memory" => Ok(StoreLocation {
            store: memory_store(rest),
            prefix: Path::default(),
            display: shown.clone(),
        }),
        "s3" => {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(url_err("no bucket name".into()));
            }
            let endpoint = std::env::var("AWS_ENDPOINT_URL")
                .or_else(|_| std::env::var("AWS_ENDPOINT"))
                .ok();
            let mut builder = AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_virtual_hosted_style_request(false);
            if let Some(ep) = &endpoint {
                if ep.starts_with("http://") {
                    if !is_loopback(ep) {
                        return Err(url_err(format!(
                            "endpoint {} uses plain http; only loopback endpoints may (use https)",
                            redact(ep)
                        )));
                    }
                    builder = builder.with_allow_http(true);
                }
                builder = builder.with_endpoint(ep);
            }
            if std::env::var("AWS_REGION").is_err() && std::env::var("AWS_DEFAULT_REGION").is_err()
            {
                builder = builder.with_region("us-east-1");
            }
            let store = builder
                .build()
                .map_err(|e| url_err(format!("cannot configure S3: {e}")))?;
            Ok(StoreLocation {
                store: Arc::new(store),
                prefix: Path::from(prefix.trim_matches('/')),
                display: shown.clone(),
            })
        }
        other => Err(url_err(format!(
            "unsupported scheme {other:?} (use a path, file://, memory:// or s3://)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_credentials() {
        assert_eq!(redact("s3://key:secret@host/b"), "s3://***@host/b");
        assert_eq!(redact("s3://bucket/prefix"), "s3://bucket/prefix");
        assert_eq!(redact("plain/path"), "plain/path");
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback("http://127.0.0.1:9000"));
        assert!(is_loopback("http://localhost:9000/"));
        assert!(is_loopback("http://[::1]:9000"));
        assert!(!is_loopback("http://example.com:9000"));
        assert!(!is_loopback("http://127.example.com"));
    }

    #[test]
    fn bad_urls_are_named() {
        let e = open("ftp://x/y").unwrap_err().to_string();
        assert!(e.contains("unsupported scheme"), "{e}");
        let e = open("s3:///prefix").unwrap_err().to_string();
        assert!(e.contains("no bucket"), "{e}");
        assert!(open("memory://t").is_ok());
    }
}
