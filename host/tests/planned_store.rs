//! `PlannedStore` as a read-through `object_store` layer, checked like
//! object_store's own integration suite: every answer equals the inner
//! store's, errors pass through, and the faults it handles (stragglers,
//! stalls, wrong ranges, deadlines) are injected by a small wrapper around
//! a real `InMemory` store.
// Single-range lists and a reversed range are the inputs under test.
#![allow(clippy::single_range_in_vec_init, clippy::reversed_empty_ranges)]

mod common;

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::faults::{self, Fault, FaultyStore};
use common::range_server::{self, Answer, RangeServer};
use futures::stream::StreamExt;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{GetOptions, ObjectStore, ObjectStoreExt};
use planner_core::{Method, Surrogate};
use proptest::prelude::*;
use warp_host::store::{HedgePolicy, PlannedError, PlannedStore, deadline_exceeded};

fn data(n: usize) -> Bytes {
    (0..n)
        .map(|i| (i * 7 + i / 251) as u8)
        .collect::<Vec<u8>>()
        .into()
}

async fn memory_with(path: &Path, body: Bytes) -> Arc<InMemory> {
    let mem = Arc::new(InMemory::new());
    mem.put(path, body.into()).await.unwrap();
    mem
}

fn planned<S: ObjectStore>(inner: Arc<S>, method: Method) -> PlannedStore<S> {
    PlannedStore::builder(inner)
        .with_method(method)
        .with_surrogate(Surrogate::S3)
        .without_hedging()
        .build()
        .unwrap()
}

const METHODS: [Method; 5] = [
    Method::Warp,
    Method::Separate,
    Method::LanceRule,
    Method::Coalesce {
        max_gap: 1 << 20,
        max_span: None,
    },
    Method::MinB,
];

#[tokio::test]
async fn ranges_at_the_object_end_behave_like_the_inner_store() {
    let path = Path::from("obj");
    let body = data(100);
    let mem = memory_with(&path, body.clone()).await;
    for method in METHODS {
        let store = planned(Arc::clone(&mem), method);
        // Ends at, and past, the end: cut at the end, as InMemory does.
        let ranges = [90..100, 95..120, 0..3];
        let want = mem.get_ranges(&path, &ranges).await.unwrap();
        assert_eq!(store.get_ranges(&path, &ranges).await.unwrap(), want);
        assert_eq!(want[1], body.slice(95..100));
        // Starting at or past the end is an error for both.
        for bad in [vec![100..110], vec![0..10, 150..160]] {
            mem.get_ranges(&path, &bad).await.unwrap_err();
            let e = store.get_ranges(&path, &bad).await.unwrap_err();
            assert!(e.to_string().contains("100 bytes long"), "{method:?}: {e}");
        }
    }
}

#[tokio::test]
async fn empty_ranges_answer_empty_bytes() {
    let path = Path::from("obj");
    let mem = memory_with(&path, data(64)).await;
    let store = planned(mem, Method::Warp);
    assert!(store.get_ranges(&path, &[]).await.unwrap().is_empty());
    let out = store.get_ranges(&path, &[5..5, 1..3, 0..0]).await.unwrap();
    assert_eq!(out, vec![Bytes::new(), data(64).slice(1..3), Bytes::new()]);
    assert_eq!(store.stats().totals.gets, 1);
}

#[tokio::test]
async fn overlapping_and_unsorted_ranges_come_back_in_request_order() {
    let path = Path::from("obj");
    let body = data(10_000);
    let mem = memory_with(&path, body.clone()).await;
    let ranges = [5000..6000, 0..10, 5..15, 5500..5501, 9000..10_000, 0..10];
    for method in METHODS {
        let store = planned(Arc::clone(&mem), method);
        let out = store.get_ranges(&path, &ranges).await.unwrap();
        for (r, b) in ranges.iter().zip(&out) {
            assert_eq!(
                b,
                &body.slice(r.start as usize..r.end as usize),
                "{method:?}"
            );
        }
    }
}

#[tokio::test]
async fn start_after_end_is_an_error_naming_the_range() {
    let path = Path::from("obj");
    let store = planned(memory_with(&path, data(64)).await, Method::Warp);
    let e = store.get_ranges(&path, &[0..4, 9..3]).await.unwrap_err();
    let text = e.to_string();
    assert!(text.contains("range 1 (9..3)"), "{text}");
    assert_eq!(store.stats().totals.gets, 0, "nothing fetched");
}

#[tokio::test]
async fn missing_objects_and_store_errors_pass_through() {
    let store = planned(Arc::new(InMemory::new()), Method::Warp);
    let e = store
        .get_ranges(&Path::from("nope"), &[0..4])
        .await
        .unwrap_err();
    assert!(matches!(e, object_store::Error::NotFound { .. }), "{e}");
    // An error of the inner store reaches the caller unchanged.
    let path = Path::from("obj");
    let faulty = FaultyStore::new(memory_with(&path, data(64)).await);
    faulty.on_range(0..4, Fault::Fail);
    let store = planned(Arc::clone(&faulty), Method::Separate);
    let e = store.get_ranges(&path, &[0..4, 8..9]).await.unwrap_err();
    assert!(
        matches!(
            &e,
            object_store::Error::Generic {
                store: faults::STORE,
                ..
            }
        ),
        "{e}"
    );
    // Every other method delegates.
    let other = Path::from("other");
    store.put(&other, data(8).into()).await.unwrap();
    assert_eq!(store.head(&other).await.unwrap().size, 8);
    assert_eq!(
        store.get_range(&other, 2..4).await.unwrap(),
        data(8).slice(2..4)
    );
    let listed: Vec<_> = store.list(None).collect().await;
    assert_eq!(listed.len(), 2);
    store.delete(&other).await.unwrap();
    assert!(store.to_string().starts_with("Planned(Faulty"));
}

#[tokio::test]
async fn stats_count_gets_bytes_and_overfetch() {
    let path = Path::from("obj");
    let mem = memory_with(&path, data(10_000)).await;
    let ranges = [0..100, 200..300, 1000..1100];
    let separate = planned(Arc::clone(&mem), Method::Separate);
    separate.get_ranges(&path, &ranges).await.unwrap();
    let s = separate.stats();
    assert_eq!((s.calls, s.totals.gets, s.totals.bytes), (1, 3, 300));
    assert_eq!(s.totals.overfetch_bytes, 0);
    assert_eq!(s.last_surrogate, Some((25.0, 5.0)));
    let merged = planned(
        mem,
        Method::Coalesce {
            max_gap: 4096,
            max_span: None,
        },
    );
    let read = merged
        .read(&path, &ranges, merged.plan_options(), None)
        .await
        .unwrap();
    assert_eq!((read.stats.gets, read.stats.bytes), (1, 1100));
    assert_eq!(read.stats.overfetch_bytes, 800);
    assert_eq!(read.requests.len(), 1);
    assert_eq!(merged.stats().totals, read.stats);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Any set of in-object ranges, any method: the same bytes as the inner
    /// store's own `get_ranges`.
    #[test]
    fn identical_bytes_to_the_inner_store(
        size in 1usize..20_000,
        raw in prop::collection::vec((0usize..20_000, 1usize..3_000), 0..24),
        m in 0usize..5,
    ) {
        let ranges: Vec<Range<u64>> = raw
            .iter()
            .map(|&(s, l)| {
                let s = s % size;
                s as u64..(s + l).min(size).max(s + 1) as u64
            })
            .collect();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let path = Path::from("p");
            let mem = memory_with(&path, data(size)).await;
            let want = mem.get_ranges(&path, &ranges).await.unwrap();
            let got = planned(mem, METHODS[m]).get_ranges(&path, &ranges).await.unwrap();
            prop_assert_eq!(got, want);
            Ok(())
        })?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_straggler_is_hedged_and_the_hedge_wins() {
    let path = Path::from("obj");
    let body = data(50_000);
    let faulty = FaultyStore::new(memory_with(&path, body.clone()).await);
    // The first GET of 10000..20000 hangs for 30 s; its second is prompt.
    faulty.on_range(10_000..20_000, Fault::Delay(Duration::from_secs(30)));
    let store = PlannedStore::builder(Arc::clone(&faulty))
        .with_method(Method::Separate)
        .with_surrogate(Surrogate::Affine {
            fixed_ms: 5.0,
            per_mib_ms: 0.0,
        })
        .with_hedging(HedgePolicy {
            floor: Duration::from_millis(20),
            ..HedgePolicy::default()
        })
        .build()
        .unwrap();
    let ranges = [0..1000, 10_000..20_000, 30_000..31_000];
    let out = store.get_ranges(&path, &ranges).await.unwrap();
    for (r, b) in ranges.iter().zip(&out) {
        assert_eq!(b, &body.slice(r.start as usize..r.end as usize));
    }
    let s = store.stats().totals;
    assert_eq!((s.gets, s.hedges, s.hedges_won), (3, 1, 1), "{s:?}");
    assert_eq!(faulty.gets(), 4, "3 planned GETs and one hedge");
    assert_eq!(store.stats().requests_sent(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_fires_with_its_own_error() {
    let path = Path::from("obj");
    let faulty = FaultyStore::new(memory_with(&path, data(4096)).await);
    faulty.on_range(0..100, Fault::Delay(Duration::from_secs(30)));
    let store = PlannedStore::builder(Arc::clone(&faulty))
        .without_hedging()
        .with_deadline(Some(Duration::from_millis(150)))
        .build()
        .unwrap();
    let e = store.get_ranges(&path, &[0..100]).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("deadline of 150 ms exceeded reading obj"),
        "{e}"
    );
    let object_store::Error::Generic { source, .. } = &e else {
        panic!("{e}")
    };
    let kind = source.downcast_ref::<PlannedError>().unwrap();
    assert!(kind.is_deadline());
    assert_eq!(store.stats().totals.deadline_misses, 1);
    // Through the host error type too.
    let host = warp_host::error::Error::Store {
        op: "get_ranges",
        path: "obj".into(),
        source: e,
    };
    assert_eq!(deadline_exceeded(&host), Some(Duration::from_millis(150)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_is_retried_once_then_fails() {
    let path = Path::from("obj");
    let body = data(8192);
    let faulty = FaultyStore::new(memory_with(&path, body.clone()).await);
    faulty.on_range(0..8192, Fault::StallBody);
    let store = PlannedStore::builder(Arc::clone(&faulty))
        .without_hedging()
        .with_stall_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    // First attempt stalls after half the body, the retry succeeds.
    assert_eq!(store.get_ranges(&path, &[0..8192]).await.unwrap()[0], body);
    let s = store.stats().totals;
    assert_eq!((s.stalls, s.refetches), (1, 1), "{s:?}");
    // Two stalls in a row: the error names the stall timeout.
    faulty.on_range(0..8192, Fault::StallBody);
    faulty.on_range(0..8192, Fault::StallBody);
    let e = store.get_ranges(&path, &[0..8192]).await.unwrap_err();
    assert!(e.to_string().contains("100 ms (stall timeout)"), "{e}");
}

#[tokio::test]
async fn a_wrong_range_answer_is_refetched() {
    let path = Path::from("obj");
    let body = data(8192);
    let faulty = FaultyStore::new(memory_with(&path, body.clone()).await);
    faulty.on_range(100..200, Fault::Shifted);
    let store = planned(Arc::clone(&faulty), Method::Separate);
    assert_eq!(
        store.get_ranges(&path, &[100..200]).await.unwrap()[0],
        body.slice(100..200)
    );
    assert_eq!(store.stats().totals.refetches, 1);
    faulty.on_range(100..200, Fault::Shifted);
    faulty.on_range(100..200, Fault::Shifted);
    let e = store.get_ranges(&path, &[100..200]).await.unwrap_err();
    assert!(e.to_string().contains("asked for bytes 100..200"), "{e}");
}

/// object_store's S3 client meets a wrong answer to a range GET — another
/// range, no `Content-Range`, the whole object — and refuses it with its
/// own error, before this layer's length check: each is re-fetched once like
/// that check's own mismatch, and a second wrong answer fails the read with
/// a line naming the range.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_range_the_http_client_refuses_is_refetched_once() {
    tokio::time::timeout(Duration::from_secs(60), async {
        let body = data(50_000);
        let server = RangeServer::start(body.to_vec());
        let s3 = Arc::new(server.s3());
        let path = Path::from(range_server::KEY);
        // What object_store 0.14.2 itself says of each (the texts the
        // classification matches; an upgrade that rewords one fails here).
        for (answer, says) in [
            (Answer::Shifted, "Requested 100..200, got 101..201"),
            (
                Answer::NoContentRange,
                "Content-Range header not present in partial response",
            ),
            (
                Answer::Whole,
                "Received non-partial response when range requested",
            ),
        ] {
            server.queue(&[answer]);
            let e = s3
                .get_opts(&path, GetOptions::new().with_range(Some(100..200)))
                .await
                .map(|_| ())
                .unwrap_err();
            let object_store::Error::Generic { source, .. } = &e else {
                panic!("{answer:?}: {e}")
            };
            assert_eq!(source.to_string(), says, "{answer:?}");
        }
        let store = planned(Arc::clone(&s3), Method::Separate);
        let mut refetches = 0;
        for answer in [Answer::Shifted, Answer::NoContentRange, Answer::Whole] {
            // Wrong once: re-fetched, the right bytes.
            server.queue(&[answer]);
            let before = server.gets();
            let got = store.get_ranges(&path, &[100..200, 30_000..30_500]).await;
            let got = got.unwrap_or_else(|e| panic!("{answer:?}: {e}"));
            assert_eq!(got[0], body.slice(100..200), "{answer:?}");
            assert_eq!(got[1], body.slice(30_000..30_500), "{answer:?}");
            refetches += 1;
            assert_eq!(store.stats().totals.refetches, refetches, "{answer:?}");
            assert_eq!(server.gets() - before, 3, "two GETs and one re-fetch");
            // Wrong twice: the read fails, naming the range and the cause.
            server.queue(&[answer, answer]);
            let e = store.get_ranges(&path, &[100..200]).await.unwrap_err();
            refetches += 1;
            let text = e.to_string();
            assert!(
                text.contains(
                    "asked for bytes 100..200, the answer was not that range (after one re-fetch)"
                ),
                "{answer:?}: {text}"
            );
            let object_store::Error::Generic { source, .. } = &e else {
                panic!("{e}")
            };
            assert!(
                matches!(
                    source.downcast_ref::<PlannedError>(),
                    Some(PlannedError::RangeRefused { .. })
                ),
                "{answer:?}: {text}"
            );
        }
        assert_eq!(store.stats().totals.refetches, refetches);
    })
    .await
    .expect("bounded: 60 s");
}

// ---- the fault injector ----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_beyond_the_fetch_budget_waits_for_the_bytes_in_progress() {
    const MIB: u64 = 1 << 20;
    let path = Path::from("obj");
    let body = data(6 << 20);
    let faulty = FaultyStore::new(memory_with(&path, body.clone()).await);
    // With a 4 MiB budget the second call's 2 MiB do not fit beside the
    // first call's 3 MiB, whose GET hangs for 400 ms: the second waits and
    // finishes last. With 64 MiB it does not wait and finishes first.
    for (budget, expected) in [
        (4 * MIB, ["first", "second"]),
        (64 * MIB, ["second", "first"]),
    ] {
        faulty.on_range(0..3 * MIB, Fault::Delay(Duration::from_millis(400)));
        let store = Arc::new(
            PlannedStore::builder(Arc::clone(&faulty))
                .with_method(Method::Separate)
                .with_surrogate(Surrogate::S3)
                .without_hedging()
                .with_fetch_budget(budget)
                .build()
                .unwrap(),
        );
        let done = Arc::new(std::sync::Mutex::new(Vec::new()));
        let call = |name: &'static str, range: Range<u64>| {
            let (store, done, path, body) = (
                Arc::clone(&store),
                Arc::clone(&done),
                path.clone(),
                body.clone(),
            );
            tokio::spawn(async move {
                let out = store
                    .get_ranges(&path, std::slice::from_ref(&range))
                    .await
                    .unwrap();
                assert_eq!(out[0], body.slice(range.start as usize..range.end as usize));
                done.lock().unwrap().push(name);
            })
        };
        let first = call("first", 0..3 * MIB);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let second = call("second", 3 * MIB..5 * MIB);
        first.await.unwrap();
        second.await.unwrap();
        assert_eq!(*done.lock().unwrap(), expected, "budget {budget}");
    }
    // A budget under 1 MiB is refused by name.
    let e = PlannedStore::builder(faulty)
        .with_fetch_budget(1000)
        .build()
        .unwrap_err()
        .to_string();
    assert!(e.contains("fetch_budget"), "{e}");
}
