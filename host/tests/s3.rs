//! The real S3 protocol: build an index on an S3-compatible server, query
//! it, and compare with the same index on `file://`; errors from the server
//! are one line without secrets; secrets in URLs are refused before anything
//! is sent.
//!
//! The tests that need a server are `#[ignore]`d, so a plain `cargo test`
//! reports them as ignored (skipped), not as passed.
//! `scripts/test.d/60-s3` starts `moto_server` on 127.0.0.1, sets
//! `WARP_TEST_S3_URL` (e.g. `s3://warp-test/ci`) and the endpoint and dummy
//! keys in the standard `AWS_*` variables, and runs them with `--ignored`.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use common::{POLICIES, answers, fixture, write};
use object_store::ObjectStoreExt;
use warp_host::error::Error;
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
    // Rebuild over the first index: the manifest switches, both generations stay.
    write(&f, &s3, &order, "reversed").await;
    let dir = std::env::temp_dir().join(format!("warp-host-s3-ref-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let file = store::open(dir.to_str().unwrap()).unwrap();
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
        older_than: Duration::ZERO,
        dry_run: false,
        local_dir: None,
    };
    let report = warp_host::ivf::gc::collect(&s3, &params).await.unwrap();
    assert!(report.items.len() >= 3, "{report:?}");
    assert_eq!(answers(s3, &f.queries, "warp").await, reference);
    let _ = std::fs::remove_dir_all(&dir);
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
