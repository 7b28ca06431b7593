//! The real S3 protocol: build an index on an S3-compatible server, query
//! it, and compare with the same index on `file://`.
//!
//! Runs only when `WARP_TEST_S3_URL` (e.g. `s3://warp-test/ci`) is set, with
//! the endpoint and dummy keys in the standard `AWS_*` variables;
//! `scripts/test.d/60-s3` starts `moto_server` on 127.0.0.1 and sets them.
//! Skips (passes) otherwise.

mod common;

use common::{POLICIES, answers, fixture, write};
use warp_host::store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_answers_match_file() {
    let Ok(url) = std::env::var("WARP_TEST_S3_URL") else {
        eprintln!("skipped: WARP_TEST_S3_URL is not set (scripts/test.d/60-s3 sets it)");
        return;
    };
    let f = fixture(Some(4));
    let order: Vec<u32> = (0..f.trained.nlist() as u32).rev().collect();
    let s3 = store::open(&url).unwrap();
    write(&f, &s3, &order, "reversed").await;
    // Rebuild over the first index: the manifest switches, old objects go.
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
}
