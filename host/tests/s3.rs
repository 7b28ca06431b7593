//! The real S3 protocol: build an index on an S3-compatible server, query
//! it, and compare with the same index on `file://`; gc racing rebuilds
//! never breaks the index; a build into a missing bucket fails before any
//! work; errors from the server are one line without secrets; secrets in
//! URLs are refused before anything is sent.
//!
//! The tests that need a server are `#[ignore]`d, so a plain `cargo test`
//! reports them as ignored (skipped), not as passed.
//! `scripts/test.d/60-s3` starts `moto_server` on 127.0.0.1, sets
//! `WARP_TEST_S3_URL` (e.g. `s3://warp-test/ci`) and the endpoint and dummy
//! keys in the standard `AWS_*` variables, and runs them with `--ignored`.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::gc_loop::gc_loop_during_rebuilds;
use common::{POLICIES, answers, fixture, write};
use object_store::ObjectStoreExt;
use warp_host::dataset::DatasetSpec;
use warp_host::error::Error;
use warp_host::ivf::job::BuildJob;
use warp_host::ivf::{IvfBuildParams, LeaseParams};
use warp_host::store::{self, Env, StoreOptions};

const NEEDS_SERVER: &str =
    "needs an S3 server: WARP_TEST_S3_URL (scripts/test.d/60-s3 runs this with --ignored)";

fn s3_url() -> String {
    std::env::var("WARP_TEST_S3_URL").unwrap_or_else(|_| {
        eprintln!("skipped: {NEEDS_SERVER}");
        panic!("{NEEDS_SERVER}")
    })
}

/// The process's `AWS_*` variables with `overrides`.
fn aws_env(overrides: &[(&str, &str)]) -> Env {
    let mut env: Env = std::env::vars()
        .filter(|(k, _)| k.starts_with("AWS_"))
        .collect();
    for (k, v) in overrides {
        env.insert(k.to_string(), v.to_string());
    }
    env
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs an S3 server: WARP_TEST_S3_URL (scripts/test.d/60-s3 runs this with --ignored)"]
async fn s3_answers_match_file() {
    let url = s3_url();
    let f = fixture(Some(4));
    let order: Vec<u32> = (0..f.trained.nlist() as u32).rev().collect();
    let s3 = store::open(&url).unwrap();
    write(&f, &s3, &order, "reversed").await;
    // S3 reports last-modified times in whole seconds, and gc keeps an
    // unclaimed object that is not older than the manifest (a build may still
    // be writing it): the rebuild's manifest must land in a later second than
    // the first generation's objects for gc to remove them below.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    // Rebuild over the first index: the manifest switches, both generations stay.
    write(&f, &s3, &order, "reversed").await;
    let dir = tempfile::Builder::new()
        .prefix("warp-host-s3-ref-")
        .tempdir()
        .unwrap();
    let file = store::open(dir.path().to_str().unwrap()).unwrap();
    write(&f, &file, &order, "reversed").await;
    let reference = answers(file, &f.queries, "separate").await;
    for p in POLICIES {
        assert_eq!(
            answers(s3.clone(), &f.queries, p).await,
            reference,
            "{p} on {url}"
        );
    }
    // gc removes the first generation only; the index still answers.
    let params = warp_host::ivf::gc::GcParams {
        force: true,
        ..warp_host::ivf::gc::GcParams::new(Duration::ZERO)
    };
    let report = warp_host::ivf::gc::collect(&s3, &params).await.unwrap();
    assert!(report.items.len() >= 3, "{report:?}");
    assert_eq!(answers(s3, &f.queries, "warp").await, reference);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs an S3 server: WARP_TEST_S3_URL (scripts/test.d/60-s3 runs this with --ignored)"]
async fn s3_errors_are_one_line_without_secrets() {
    let url = s3_url();
    const KEY: &str = "AKIAWARPTESTKEY";
    const SECRET: &str = "warp-test-secret/ABCDEF";
    let env = aws_env(&[
        ("AWS_ACCESS_KEY_ID", KEY),
        ("AWS_SECRET_ACCESS_KEY", SECRET),
    ]);
    // A PUT into a bucket that does not exist: the server answers with an
    // XML error body.
    let loc =
        store::open_with_env("s3://warp-no-such-bucket/x", &StoreOptions::default(), &env).unwrap();
    let path = loc.child("probe.bin");
    let source = loc.store.put(&path, vec![1u8].into()).await.unwrap_err();
    let line = Error::Store {
        op: "put",
        path: path.to_string(),
        source,
    }
    .to_string();
    assert!(!line.contains('\n') && !line.contains("<?xml"), "{line}");
    assert!(line.contains("NoSuchBucket"), "{line}");
    assert!(!line.contains(SECRET) && !line.contains(KEY), "{line}");
    assert!(line.chars().count() <= warp_host::error::MAX_ERROR_LINE);
    // The missing bucket is named as such.
    let reason = store::missing_index_reason(&loc).await;
    assert!(
        reason.contains("bucket warp-no-such-bucket does not exist"),
        "{reason}"
    );
    // An existing bucket with nothing under the prefix.
    let empty = store::open_with_env(
        &format!("{url}/nothing-here"),
        &StoreOptions::default(),
        &env,
    )
    .unwrap();
    let reason = store::missing_index_reason(&empty).await;
    assert!(reason.contains("nothing stored there"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs an S3 server: WARP_TEST_S3_URL (scripts/test.d/60-s3 runs this with --ignored)"]
async fn s3_gc_in_a_loop_never_breaks_a_rebuild() {
    let url = format!("{}/gc-loop", s3_url());
    gc_loop_during_rebuilds(&url, 25).await;
}

/// A build whose data would take minutes to generate and train, for the
/// fail-fast tests: the store must refuse it before any of that starts.
fn long_build() -> BuildJob {
    BuildJob {
        spec: DatasetSpec {
            input: None,
            queries: None,
            groundtruth: None,
            synthetic: 2_000_000,
            synthetic_queries: 10,
            dim: 64,
            seed: 1,
            gt_k: 10,
            metric: Default::default(),
        },
        params: IvfBuildParams {
            nlist: 4096,
            ..IvfBuildParams::default()
        },
        layout: planner_core::reorder::Layout::Identity,
        limits: warp_host::config::InputLimits {
            data_bytes: 64 << 30,
            ..Default::default()
        },
        lease: LeaseParams::default(),
    }
}

#[test]
#[ignore = "needs an S3 server: WARP_TEST_S3_URL (scripts/test.d/60-s3 runs this with --ignored)"]
fn s3_a_build_into_a_missing_bucket_fails_before_any_work() {
    let _ = s3_url();
    let loc = store::open("s3://warp-no-such-bucket/x").unwrap();
    let rt = warp_host::search::runtime().unwrap();
    let t0 = Instant::now();
    let e = long_build().run(&rt, &loc).unwrap_err().to_string();
    let took = t0.elapsed();
    assert!(e.contains("claim-") && e.contains("NoSuchBucket"), "{e}");
    assert!(!e.contains('\n'), "{e}");
    // Generating 2M vectors and k-means with 4096 lists take minutes.
    assert!(took < Duration::from_secs(10), "{took:?}: {e}");
}

/// An S3 endpoint on 127.0.0.1 that answers every request with 404
/// `NoSuchBucket` (read whole, then the connection closed); stopped on drop.
struct NoBucketServer {
    port: u16,
    requests: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl NoBucketServer {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (Arc::clone(&requests), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>warp-missing</BucketName></Error>";
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        r.fetch_add(1, Ordering::SeqCst);
                        let _ = conn.set_nonblocking(false);
                        let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
                        read_request(&mut conn);
                        let _ = write!(
                            conn,
                            "HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for NoBucketServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Reads one HTTP request: the head, then `Content-Length` bytes of body.
fn read_request(conn: &mut std::net::TcpStream) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    };
    let head = String::from_utf8_lossy(&got[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while got.len() < head_end + len {
        match conn.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[test]
fn the_cli_build_checks_the_store_before_any_work() {
    let server = NoBucketServer::start();
    let endpoint = format!("http://127.0.0.1:{}", server.port);
    let t0 = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warp"))
        .args(["build", "--url", "s3://warp-missing/x"])
        .args(["--synthetic", "1000000", "--dim", "64", "--nlist", "2048"])
        .args(["--synthetic-queries", "10", "--max-data-bytes", "16G"])
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("AWS_REGION", "us-east-1")
        .output()
        .unwrap();
    let took = t0.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // One line: the claim's refusal. No progress line of data generation,
    // k-means or layout came before it (stderr is not a terminal, so warp
    // prints a line when each step starts).
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("claim-") && stderr.contains("NoSuchBucket"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert!(server.requests.load(Ordering::SeqCst) >= 1);
}

/// A TCP listener on 127.0.0.1 that counts connections (and reads what is
/// sent) until stopped.
struct Counter {
    port: u16,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Counter {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (Arc::clone(&connections), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((mut conn, _)) => {
                        c.fetch_add(1, Ordering::SeqCst);
                        let _ = conn.set_read_timeout(Some(Duration::from_millis(100)));
                        let _ = conn.read(&mut [0u8; 1024]);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        Self {
            port,
            connections,
            stop,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        self.connections.load(Ordering::SeqCst)
    }
}

#[test]
fn a_secret_in_the_url_is_refused_and_nothing_is_sent() {
    let counter = Counter::start();
    let endpoint = format!("http://127.0.0.1:{}", counter.port);
    let env: Env = [
        ("AWS_ENDPOINT_URL", endpoint.as_str()),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    const SECRET: &str = "wJalrXUtnFEMI/K7MDENG";
    let url = format!("s3://AKIAKEYID:{SECRET}@warp-test/x");
    let e = store::open_with_env(&url, &StoreOptions::default(), &env)
        .unwrap_err()
        .to_string();
    assert!(e.contains("credentials in the URL"), "{e}");
    assert!(!e.contains("wJalr") && !e.contains("AKIAKEYID"), "{e}");
    // The CLI too: one line on stderr, no secret, exit code 2 or 1, no request.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_warp"))
        .args(["build", "--url", &url, "--synthetic", "200", "--dim", "8"])
        .args(["--nlist", "4", "--synthetic-queries", "2"])
        .env("AWS_ENDPOINT_URL", &endpoint)
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    assert!(stderr.contains("credentials in the URL"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    for text in [&stderr, &stdout] {
        assert!(
            !text.contains("wJalr") && !text.contains("AKIAKEYID"),
            "{text}"
        );
    }
    assert_eq!(counter.finish(), 0, "a request reached the server");
}
