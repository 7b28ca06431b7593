//! Object stores by URL (S3 in `s3.rs`), and the layers over them.
//!
//! - here: [`open`] and its variants, [`StoreLocation`];
//! - `options.rs`: [`StoreOptions`], the S3 client's bounds;
//! - `read.rs`: whole-object reads under a bound ([`get_bounded`],
//!   [`preload`], [`missing_index_reason`]);
//! - [`planned`]: the crate `warp-planned-store` — [`PlannedStore`], the
//!   planner as an `ObjectStore` layer, and [`SimulatedStore`], the
//!   latency-simulating wrapper — re-exported;
//! - here also [`deadline_exceeded`] and [`into_host`]: its errors in the
//!   host's terms.
//!
//! [`open`] turns a location into an [`ObjectStore`] plus the path prefix the
//! index lives under:
//!
//! | location | store |
//! |---|---|
//! | `some/dir`, `/abs/dir`, `file:///abs/dir` | local files (created if missing) |
//! | `memory://name` | a process-wide in-memory store per `name` (tests, `warp demo`) |
//! | `s3://bucket/prefix` | S3 or any S3-compatible server; endpoint, region and credentials from the standard `AWS_*` variables, path-style requests |
//!
//! Schemes are case-insensitive (`S3://`, `FILE://`, `MEMORY://`).
//! With [`SimulateConfig`] the store is wrapped in a [`SimulatedStore`].
//!
//! # Secrets
//!
//! Credentials never appear in [`StoreLocation::display`] or in errors, and
//! are refused where they do not belong:
//!
//! - A store URL with user info (`s3://KEY:SECRET@bucket/x`, any scheme) is
//!   refused before anything is sent, with an error that does not repeat it;
//!   so is an `s3://` URL with a query string or fragment, or a bucket name
//!   that is not one (letters, digits, `.`, `-`, `_`).
//! - Keys come from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (with
//!   `AWS_SESSION_TOKEN`), or `AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`,
//!   or the container variables (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`, …),
//!   or `AWS_SKIP_SIGNATURE=true` for a public bucket. With none of them,
//!   [`open`] names the missing variables. The EC2 instance metadata service
//!   (`169.254.169.254`) is used only when asked for with
//!   `WARP_S3_INSTANCE_METADATA=true` (or [`StoreOptions::instance_metadata`]).
//!
//! # Endpoints and plain HTTP
//!
//! The endpoint is `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else
//! `AWS_ENDPOINT` (else AWS's own https endpoint). It is parsed as a URL (the
//! `url` crate, the parser the HTTP client itself uses, so both see the same
//! host): the scheme must be `http` or `https` (any case), user info, a query
//! string and a fragment are refused, and **plain `http` is allowed only for
//! a loopback host** — `127.0.0.0/8`, `::1` or `localhost` — the host being
//! what follows any `user@` (so `http://127.0.0.1:9000@192.0.2.2` names host
//! `192.0.2.2`, and is refused anyway for its user info).
//!
//! `AWS_ALLOW_HTTP` does not change this rule: warp sets the client's
//! allow-http switch itself, on for a loopback `http` endpoint and off
//! otherwise. `AWS_ALLOW_HTTP=true` with a non-loopback `http` endpoint is
//! still refused, and the error says why: signed requests, keys' use and the
//! index data would cross the network unencrypted; put a TLS-terminating proxy
//! on the server's host, or tunnel to a loopback port.
//!
//! # Bounded requests
//!
//! Every S3 request has a connect timeout, a read-stall timeout, an overall
//! timeout and a retry budget ([`StoreOptions`]); they replace object_store's
//! defaults (30 s per attempt, 10 retries within 3 minutes), under which a
//! stalled server cost 30 s per attempt and a dead one 181.6 s. The
//! `AWS_*TIMEOUT` variables are overridden by [`StoreOptions`].

mod options;
mod read;
mod s3;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use object_store::ObjectStore;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;

pub use options::StoreOptions;
pub use read::{PRELOAD_MAX_BYTES, get_bounded, missing_index_reason, preload};
pub use warp_planned_store as planned;
pub use warp_planned_store::{
    CallStats, DEFAULT_FETCH_BUDGET, Deadline, HedgePolicy, LoadEstimator, LoadSnapshot,
    LocalServer, MAX_FIRST_BYTE_SIGMA, MAX_RATE_MIB_PER_S, MAX_TAIL_FACTOR, MIN_RATE_MIB_PER_S,
    PlanOptions, PlannedError, PlannedRead, PlannedStore, PlannedStoreBuilder, STORE_NAME,
    SimulateConfig, SimulatedStore, StatsSnapshot, hedge, load,
};

use crate::error::{Error, Result, redact_url};

/// Finds a [`PlannedError::DeadlineExceeded`] inside a host error (as
/// [`into_host`] and [`crate::search::within`] build it); `None` for any
/// other error.
pub fn deadline_exceeded(e: &Error) -> Option<std::time::Duration> {
    match e {
        Error::Store {
            source: object_store::Error::Generic { source, .. },
            ..
        } => match source.downcast_ref::<PlannedError>() {
            Some(PlannedError::DeadlineExceeded { deadline, .. }) => Some(*deadline),
            _ => None,
        },
        _ => None,
    }
}

/// A planned read's error in the host's terms: a planner error stays a
/// planner error ([`Error::Plan`], [`Error::Planner`]), a setting an
/// [`Error::Config`], everything else an [`Error::Store`] with operation
/// `get_ranges` on `path` (a deadline miss reads `store get_ranges <path>:
/// Generic PlannedStore error: deadline of 250 ms exceeded reading <path>`;
/// test for it with [`deadline_exceeded`]).
pub fn into_host(e: PlannedError, path: &str) -> Error {
    match e {
        PlannedError::Plan(p) => p.into(),
        PlannedError::Config {
            field,
            value,
            reason,
        } => Error::config(field, value, reason),
        other => Error::Store {
            op: "get_ranges",
            path: path.to_string(),
            source: other.into(),
        },
    }
}

/// An opened store and the prefix under which an index lives.
#[derive(Debug, Clone)]
pub struct StoreLocation {
    /// The store.
    pub store: Arc<dyn ObjectStore>,
    /// Prefix of every object of the index (may be empty).
    pub prefix: Path,
    /// The location for messages, without credentials.
    pub display: String,
    /// The TCP port of the store's endpoint when it is on this machine (an
    /// S3-protocol server on a loopback address): its server's CPU comes
    /// off the reader's cores, and the planned reads count it
    /// (`warp_planned_store::peer`). `None` for a remote or in-process
    /// store.
    pub loopback_port: Option<u16>,
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
            loopback_port: self.loopback_port,
        }
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

/// Splits `scheme://rest` with the scheme lowercased (`""` for a plain path).
fn split_scheme(location: &str) -> (String, &str) {
    match location.split_once("://") {
        Some((s, rest))
            if !s.is_empty()
                && s.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')) =>
        {
            (s.to_ascii_lowercase(), rest)
        }
        _ => (String::new(), location),
    }
}

/// As [`open`] for reading an existing index: a local directory must already
/// exist (nothing is created).
///
/// # Errors
/// [`Error::Index`] when a local directory does not exist; otherwise as
/// [`open`].
pub fn open_existing(location: &str) -> Result<StoreLocation> {
    open_existing_with(location, &StoreOptions::default())
}

/// [`open_existing`] with explicit client limits.
///
/// # Errors
/// As [`open_existing`].
pub fn open_existing_with(location: &str, options: &StoreOptions) -> Result<StoreLocation> {
    if is_missing_local_dir(location) {
        return Err(Error::index(format!(
            "no index at {} (no such directory; run `warp build` first)",
            redact_url(location)
        )));
    }
    open_with(location, options)
}

/// Whether `location` is a local directory (a path or `file://`) that does
/// not exist. Opening it with [`open`] would create it; commands that only
/// read or measure a store refuse it instead.
pub fn is_missing_local_dir(location: &str) -> bool {
    let (scheme, rest) = split_scheme(location);
    // `file://user@host/…` goes on to `open_with`, which refuses it.
    let userinfo = scheme == "file" && rest.split('/').next().unwrap_or("").contains('@');
    matches!(scheme.as_str(), "" | "file") && !userinfo && !std::path::Path::new(rest).is_dir()
}

/// Opens the store at `location` (see the module docs for the forms) with
/// the default [`StoreOptions`].
///
/// # Errors
/// As [`open_with`].
pub fn open(location: &str) -> Result<StoreLocation> {
    open_with(location, &StoreOptions::default())
}

/// The local directory a `file://` or plain-path location names, if it is
/// one (`warp gc` also removes the temporary files object_store leaves
/// there when a write is killed).
pub fn local_dir(location: &str) -> Option<std::path::PathBuf> {
    let (scheme, rest) = split_scheme(location);
    matches!(scheme.as_str(), "" | "file")
        .then(|| std::path::PathBuf::from(rest))
        .filter(|p| !p.as_os_str().is_empty())
        .and_then(|p| p.canonicalize().ok())
}

/// Opens the store at `location` (see the module docs for the forms), with
/// the `AWS_*` and `WARP_S3_*` variables of the process environment.
///
/// # Errors
/// As [`open_with_env`].
pub fn open_with(location: &str, options: &StoreOptions) -> Result<StoreLocation> {
    let env: Env = std::env::vars()
        .filter(|(k, _)| k.starts_with("AWS_") || k.starts_with("WARP_S3_"))
        .collect();
    open_with_env(location, options, &env)
}

/// Environment variables (name → value) an `s3://` store is configured from.
pub type Env = HashMap<String, String>;

/// Opens the store at `location` with the `AWS_*` / `WARP_S3_*` settings in
/// `env` instead of the process environment (tests; embedding).
///
/// # Errors
/// [`Error::Url`] for an unknown scheme, credentials in the URL, an `s3://`
/// URL without bucket or with a query, a refused endpoint, missing
/// credentials, or a store that cannot be built; [`Error::Io`] when a local
/// directory cannot be created.
pub fn open_with_env(location: &str, options: &StoreOptions, env: &Env) -> Result<StoreLocation> {
    let shown = redact_url(location);
    let url_err = |reason: String| Error::Url {
        url: shown.clone(),
        reason,
    };
    let (scheme, rest) = split_scheme(location);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let has_userinfo = match scheme.as_str() {
        "" => false,
        // Any '@' in an s3:// URL: a secret holding '/' would otherwise end
        // the authority early and reach the request path.
        "s3" => rest.contains('@'),
        _ => authority.contains('@'),
    };
    if has_userinfo {
        return Err(Error::Url {
            url: format!("{scheme}://…"),
            reason: "credentials in the URL (user:password@) are refused and nothing was sent; give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY".into(),
        });
    }
    match scheme.as_str() {
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
                loopback_port: None,
            })
        }
        "memory" => Ok(StoreLocation {
            store: memory_store(rest),
            prefix: Path::default(),
            display: format!("memory://{rest}"),
            loopback_port: None,
        }),
        "s3" => s3::open(rest, options, env, &url_err),
        other => Err(url_err(format!(
            "unsupported scheme {:?} (use a path, file://, memory:// or s3://)",
            crate::error::bound(other, 16)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::s3::check_endpoint;
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const KEYS: [(&str, &str); 2] = [
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
    ];

    fn s3_env(endpoint: &str) -> Env {
        let mut e = env(&KEYS);
        e.insert("AWS_ENDPOINT_URL".into(), endpoint.into());
        e
    }

    #[test]
    fn redacts_credentials() {
        assert_eq!(redact_url("s3://key:secret@host/b"), "s3://***@host/b");
        assert_eq!(redact_url("s3://bucket/prefix"), "s3://bucket/prefix");
        assert_eq!(redact_url("plain/path"), "plain/path");
        assert_eq!(
            redact_url("https://h/b?X-Amz-Signature=abc&p=1"),
            "https://h/b?X-Amz-Signature=***&p=1"
        );
    }

    #[test]
    fn endpoints_allow_plain_http_only_for_loopback_hosts() {
        let none = Env::new();
        for (raw, norm) in [
            ("http://127.0.0.1:9000", "http://127.0.0.1:9000"),
            ("HTTP://127.0.0.1:9000/", "http://127.0.0.1:9000"),
            ("Http://LOCALHOST:9000", "http://localhost:9000"),
            ("http://[::1]:9000", "http://[::1]:9000"),
            ("http://127.9.8.7", "http://127.9.8.7"),
        ] {
            assert_eq!(
                check_endpoint("AWS_ENDPOINT_URL", raw, &none),
                Ok((norm.to_string(), true)),
                "{raw}"
            );
        }
        assert_eq!(
            check_endpoint("AWS_ENDPOINT_URL", "HTTPS://s3.example.com", &none),
            Ok(("https://s3.example.com".to_string(), false))
        );
        for raw in [
            "http://127.0.0.1:9000@192.0.2.2",
            "http://localhost:1@x",
            "http://[::1]@x",
            "HTTP://127.0.0.1:9000@192.0.2.2",
            "https://user:pw@s3.example.com",
        ] {
            let e = check_endpoint("AWS_ENDPOINT_URL", raw, &none).unwrap_err();
            assert!(e.contains("user info"), "{raw}: {e}");
            for leaked in ["9000", ":1", "pw", "[::1]"] {
                assert!(!e.contains(leaked), "{raw}: {e}");
            }
        }
        for raw in [
            "http://example.com:9000",
            "http://127.example.com",
            "http://192.0.2.2",
            "http://[::2]",
        ] {
            let e = check_endpoint("AWS_ENDPOINT", raw, &none).unwrap_err();
            assert!(e.contains("non-loopback"), "{raw}: {e}");
            assert!(!e.contains("AWS_ALLOW_HTTP"), "{e}");
        }
        let allow = env(&[("AWS_ALLOW_HTTP", "true")]);
        let e = check_endpoint("AWS_ENDPOINT_URL", "http://192.0.2.2:9000", &allow).unwrap_err();
        assert!(e.contains("AWS_ALLOW_HTTP=true does not lift this"), "{e}");
        for raw in [
            "ftp://127.0.0.1",
            "http://127.0.0.1/?X-Amz-Signature=s",
            "nonsense",
        ] {
            assert!(
                check_endpoint("AWS_ENDPOINT_URL", raw, &none).is_err(),
                "{raw}"
            );
        }
    }

    #[test]
    fn refused_endpoints_fail_open_with_one_line_naming_the_variable() {
        let mut e = s3_env("http://127.0.0.1:9000@192.0.2.2");
        e.insert("AWS_ALLOW_HTTP".into(), "true".into());
        let err = open_with_env("s3://b/x", &StoreOptions::default(), &e)
            .unwrap_err()
            .to_string();
        assert!(err.contains("AWS_ENDPOINT_URL contains user info"), "{err}");
        assert!(
            !err.contains("builder error") && !err.contains('\n'),
            "{err}"
        );
        // AWS_ENDPOINT_URL_S3 takes precedence, as in object_store.
        e.insert("AWS_ENDPOINT_URL_S3".into(), "http://192.0.2.2".into());
        let err = open_with_env("s3://b/x", &StoreOptions::default(), &e)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("AWS_ENDPOINT_URL_S3 http://192.0.2.2 uses plain http"),
            "{err}"
        );
    }

    #[test]
    fn credentials_in_store_urls_are_refused_without_echo() {
        let e = s3_env("http://127.0.0.1:9");
        for url in [
            "s3://AKIAKEY:Zs3kr1t@bucket/x",
            "S3://AKIAKEY:Zs3kr1t/with/slash@bucket/x",
            "s3://bucket/x@AKIAKEY:Zs3kr1t",
            "memory://AKIAKEY:Zs3kr1t@name",
            "file://AKIAKEY:Zs3kr1t@host/tmp/x",
        ] {
            let err = open_with_env(url, &StoreOptions::default(), &e)
                .unwrap_err()
                .to_string();
            assert!(err.contains("credentials in the URL"), "{url}: {err}");
            assert!(
                !err.contains("Zs3kr1t") && !err.contains("AKIAKEY"),
                "{err}"
            );
        }
        for url in [
            "s3://AKIA:Zs3kr1t/x",
            "s3://bucket/x?X-Amz-Signature=Zs3kr1t",
        ] {
            let err = open_with_env(url, &StoreOptions::default(), &e)
                .unwrap_err()
                .to_string();
            assert!(!err.contains("Zs3kr1t"), "{err}");
        }
        // '@' in a local path is a path, not credentials.
        let tmp = tempfile::Builder::new()
            .prefix("warp-at@")
            .tempdir()
            .unwrap();
        let dir = tmp.path().join("idx@1");
        assert!(open(dir.to_str().unwrap()).is_ok());
    }

    #[test]
    fn missing_credentials_name_the_variables() {
        let e = env(&[("AWS_ENDPOINT_URL", "http://127.0.0.1:9")]);
        let err = open_with_env("s3://b/x", &StoreOptions::default(), &e)
            .unwrap_err()
            .to_string();
        for v in [
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY",
            "WARP_S3_INSTANCE_METADATA=true",
            "AWS_REGION",
        ] {
            assert!(err.contains(v), "{v}: {err}");
        }
        assert!(!err.contains("169.254"), "{err}");
        let half = env(&[("AWS_ACCESS_KEY_ID", "k")]);
        let err = open_with_env("s3://b/x", &StoreOptions::default(), &half)
            .unwrap_err()
            .to_string();
        assert!(err.contains("AWS_SECRET_ACCESS_KEY is not"), "{err}");
        let imds = env(&[("WARP_S3_INSTANCE_METADATA", "true")]);
        assert!(open_with_env("s3://b/x", &StoreOptions::default(), &imds).is_ok());
        let public = env(&[("AWS_SKIP_SIGNATURE", "true")]);
        assert!(open_with_env("s3://b/x", &StoreOptions::default(), &public).is_ok());
    }

    #[test]
    fn bad_urls_are_named() {
        let e = open("ftp://x/y").unwrap_err().to_string();
        assert!(e.contains("unsupported scheme"), "{e}");
        let e = open("s3:///prefix").unwrap_err().to_string();
        assert!(e.contains("no bucket"), "{e}");
        assert!(open("memory://t").is_ok());
        assert_eq!(open("MEMORY://t").unwrap().display, "memory://t");
        let tmp = tempfile::Builder::new()
            .prefix("warp-upper-")
            .tempdir()
            .unwrap();
        // A directory `open` creates, under the guard.
        let dir = tmp.path().join("idx");
        let loc = open(&format!("FILE://{}", dir.display())).unwrap();
        assert!(dir.is_dir(), "{}", loc.display);
        let loc = open_with_env(
            "S3://bucket/pre/fix",
            &StoreOptions::default(),
            &s3_env("HTTP://127.0.0.1:9"),
        )
        .unwrap();
        assert_eq!(loc.display, "s3://bucket/pre/fix");
        assert_eq!(loc.prefix.as_ref(), "pre/fix");
    }

    /// Options small enough for a test; the bound checked is the outer
    /// `tokio::time::timeout`, far above them.
    fn quick() -> StoreOptions {
        StoreOptions {
            connect_timeout: Duration::from_millis(500),
            read_timeout: Duration::from_millis(300),
            request_timeout: Duration::from_secs(1),
            max_retries: 1,
            retry_timeout: Duration::from_secs(1),
            instance_metadata: false,
        }
    }

    async fn get_error(endpoint: &str) -> String {
        use object_store::ObjectStoreExt;
        let loc = open_with_env("s3://bucket/idx", &quick(), &s3_env(endpoint)).unwrap();
        let path = loc.child("manifest.json");
        let get = loc.store.get(&path);
        match tokio::time::timeout(Duration::from_secs(60), get).await {
            Ok(Ok(_)) => panic!("a GET from {endpoint} succeeded"),
            Ok(Err(source)) => Error::Store {
                op: "get",
                path: "idx/manifest.json".into(),
                source,
            }
            .to_string(),
            Err(_) => panic!("a GET from {endpoint} was not bounded by StoreOptions"),
        }
    }

    #[tokio::test]
    async fn a_stalled_server_costs_a_bounded_time() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // Accepts connections and never answers, until the GET has failed.
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stop = Arc::clone(&done);
        let held = std::thread::spawn(move || {
            let mut conns = Vec::new();
            listener.set_nonblocking(true).unwrap();
            while !stop.load(std::sync::atomic::Ordering::SeqCst) && conns.len() < 8 {
                match listener.accept() {
                    Ok((s, _)) => conns.push(s),
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            conns.len()
        });
        let err = get_error(&format!("http://127.0.0.1:{port}")).await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(
            err.contains("timed out") || err.contains("timeout"),
            "{err}"
        );
        assert!(
            !err.contains('\n') && !err.contains("builder error"),
            "{err}"
        );
        let attempts = held.join().unwrap();
        assert!(
            (1..=1 + quick().max_retries).contains(&attempts),
            "{attempts} connections for max_retries {}",
            quick().max_retries
        );
    }

    #[tokio::test]
    async fn a_refusing_server_fails_fast_with_the_cause() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let err = get_error(&format!("HTTP://127.0.0.1:{port}")).await;
        assert!(err.to_lowercase().contains("refused"), "{err}");
        assert!(
            !err.contains('\n') && !err.contains("builder error"),
            "{err}"
        );
    }
}
