//! Build → store → query, on file:// and memory:// stores: every policy and
//! every layout returns the same neighbours, corrupt bytes are detected, and
//! an interrupted build leaves the previous index readable.

mod common;

use std::sync::Arc;

use common::{POLICIES, answers, fixture, write};
use object_store::ObjectStoreExt;
use warp_host::error::Error;
use warp_host::ivf::distance::knn;
use warp_host::ivf::manifest::MANIFEST;
use warp_host::query::{Index, PlanOptions, SearchParams, Searcher, native_factory};
use warp_host::store;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_policy_and_layout_gives_identical_answers() {
    let f = fixture(None);
    let nlist = f.trained.nlist();
    let dir = tempdir("policies");
    let file = store::open(dir.path().to_str().unwrap()).unwrap();
    let identity: Vec<u32> = (0..nlist as u32).collect();
    write(&f, &file, &identity, "identity").await;
    let reference = answers(file.clone(), &f.queries, "separate").await;
    for p in POLICIES {
        assert_eq!(answers(file.clone(), &f.queries, p).await, reference, "{p}");
    }
    let mem = store::open("memory://end-to-end-reversed").unwrap();
    let reversed: Vec<u32> = (0..nlist as u32).rev().collect();
    write(&f, &mem, &reversed, "reversed").await;
    for p in ["lance_rule", "warp"] {
        assert_eq!(
            answers(mem.clone(), &f.queries, p).await,
            reference,
            "{p} reversed"
        );
    }
    // IVF-Flat at nprobe = nlist is exact search.
    let index = Arc::new(Index::open(file.clone()).await.unwrap());
    // The layout's spelling is stored under the manifest's on-disk field
    // `reorder` (older readers), whatever the Rust field is called.
    let body = String::from_utf8(index.manifest.to_bytes()).unwrap();
    assert!(
        body.contains(&format!("\"reorder\":\"{}\"", index.manifest.layout))
            && !body.contains("\"layout\""),
        "{body}"
    );
    let searcher = Searcher::new(index, 4, 1 << 20, native_factory()).unwrap();
    let exact = knn(&f.queries, &f.base, f.dim, 10);
    let params = SearchParams {
        nprobe: nlist,
        ..SearchParams::default()
    };
    for (q, truth) in f.queries.chunks_exact(f.dim).zip(&exact) {
        let r = searcher.search(q, &params).await.unwrap();
        let got: Vec<u32> = r.neighbors.iter().map(|n| n.id).collect();
        let want: Vec<u32> = truth.iter().map(|t| t.1).collect();
        assert_eq!(got, want);
    }
    // The second pass over the same queries hits the cache.
    let r = searcher.search(&f.queries[..f.dim], &params).await.unwrap();
    assert!(
        r.stats.cache_hits > 0 && r.stats.io.gets == 0,
        "{:?}",
        r.stats
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_pq_rerank_is_planned_and_policy_independent() {
    let f = fixture(Some(4));
    let mem = store::open("memory://end-to-end-pq").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &mem, &order, "identity").await;
    let reference = answers(mem.clone(), &f.queries, "separate").await;
    for p in ["lance_rule", "warp", "object_store_rule"] {
        assert_eq!(answers(mem.clone(), &f.queries, p).await, reference, "{p}");
    }
    let index = Arc::new(Index::open(mem).await.unwrap());
    let searcher = Searcher::new(index, 4, 0, native_factory()).unwrap();
    let params = SearchParams {
        nprobe: 6,
        explain: true,
        ..SearchParams::default()
    };
    let r = searcher.search(&f.queries[..f.dim], &params).await.unwrap();
    let stages: Vec<&str> = r.explain.iter().map(|e| e.stage).collect();
    assert_eq!(stages, ["payload", "rerank"]);
    assert_eq!(r.explain[1].items.len(), 40);
    assert!(r.explain[1].doc["plan"]["requests"].as_u64().unwrap() >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corruption_is_detected_and_failed_builds_leave_the_old_index() {
    let f = fixture(None);
    let loc = store::open("memory://end-to-end-corrupt").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    let good = answers(loc.clone(), &f.queries, "warp").await;
    let manifest = Index::open(loc.clone()).await.unwrap().manifest;

    // An interrupted rebuild: new objects written, manifest not yet.
    let stray = loc.child("payload-ffffffffffffffff.bin");
    loc.store.put(&stray, vec![0u8; 64].into()).await.unwrap();
    assert_eq!(answers(loc.clone(), &f.queries, "warp").await, good);

    // A torn manifest is refused, never half-read.
    let path = loc.child(MANIFEST);
    let bytes = manifest.to_bytes();
    loc.store
        .put(&path, bytes[..bytes.len() / 2].to_vec().into())
        .await
        .unwrap();
    assert!(matches!(
        Index::open(loc.clone()).await,
        Err(Error::Index { .. } | Error::Checksum { .. })
    ));
    loc.store.put(&path, bytes.into()).await.unwrap();

    // Flip one payload byte: the list's CRC32C catches it.
    let payload = loc.child(&manifest.payload.name);
    let mut body = loc
        .store
        .get(&payload)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec();
    body[0] ^= 0xff;
    loc.store.put(&payload, body.into()).await.unwrap();
    let index = Arc::new(Index::open(loc).await.unwrap());
    let searcher = Searcher::new(index, 4, 0, native_factory()).unwrap();
    let params = SearchParams {
        nprobe: f.trained.nlist(),
        ..SearchParams::default()
    };
    let e = searcher
        .search(&f.queries[..f.dim], &params)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Checksum { .. }), "{e}");
    assert!(e.to_string().contains("checksum mismatch"), "{e}");
    // Bad queries are errors, not panics.
    let e = searcher.search(&[1.0; 3], &params).await.unwrap_err();
    assert!(e.to_string().contains("dimension 3"), "{e}");
}

#[tokio::test]
async fn missing_index_is_a_clear_error() {
    let e = Index::open(store::open("memory://end-to-end-empty").unwrap())
        .await
        .unwrap_err();
    assert!(e.to_string().contains("run `warp build` first"), "{e}");
}

/// Issue 18 item 7: `Index::open` read `manifest.json` whole, however large.
/// A (sparse) 300 MiB manifest is refused from its size, before its body is
/// read, with a line naming the bound.
#[tokio::test]
async fn an_oversized_manifest_is_refused_before_it_is_read() {
    let dir = tempdir("huge-manifest");
    let file = std::fs::File::create(dir.path().join(MANIFEST)).unwrap();
    file.set_len(300 << 20).unwrap();
    let e = Index::open(store::open(dir.path().to_str().unwrap()).unwrap())
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("more than the 268435456 allowed"), "{text}");
    assert!(matches!(e, Error::Index { .. }), "{e:?}");
}

/// A scratch directory, removed when the guard drops (also on a failed test).
fn tempdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("warp-host-{name}-"))
        .tempdir()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn component_and_native_plan_the_same_fetches() {
    let f = fixture(None);
    let loc = store::open("memory://end-to-end-component").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    let index = Arc::new(Index::open(loc).await.unwrap());
    let native = Searcher::new(Arc::clone(&index), 4, 0, native_factory()).unwrap();
    let component =
        Searcher::new(index, 4, 0, warp_host::query::component_factory().unwrap()).unwrap();
    let params = SearchParams {
        nprobe: 8,
        plan: PlanOptions {
            parallelism: Some(2.0),
            ..PlanOptions::default()
        },
        ..SearchParams::default()
    };
    for q in f.queries.chunks_exact(f.dim) {
        let (a, b) = (
            native.search(q, &params).await.unwrap(),
            component.search(q, &params).await.unwrap(),
        );
        assert_eq!(a.neighbors, b.neighbors);
        assert_eq!(
            (a.stats.io.gets, a.stats.io.bytes),
            (b.stats.io.gets, b.stats.io.bytes)
        );
    }
}

/// Concurrent queries share the lists one of them is already fetching: the
/// same answers as reading alone, fewer GETs, and a list whose fetcher fails
/// is read by each waiter itself (no query hangs or takes another's error).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_queries_share_reads_in_flight_without_changing_answers() {
    use warp_host::query::ReadConfig;
    use warp_host::store::SimulateConfig;

    let f = fixture(None);
    let mem = store::open("memory://end-to-end-shared").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &mem, &order, "identity").await;
    let reference = answers(mem.clone(), &f.queries, "warp").await;
    let sim = mem.simulated(SimulateConfig {
        tail_probability: 0.0,
        ..SimulateConfig::s3()
    });
    let index = Arc::new(Index::open(sim).await.unwrap());
    let params = SearchParams {
        nprobe: 6,
        ..SearchParams::default()
    };
    let run = |share: bool| {
        let searcher = Arc::new(
            Searcher::with_read_config(
                Arc::clone(&index),
                64,
                0,
                native_factory(),
                ReadConfig {
                    share_reads: share,
                    ..ReadConfig::default()
                },
            )
            .unwrap(),
        );
        let (queries, params) = (f.queries.clone(), params.clone());
        async move {
            // Every query twice, all at once: each list is probed by
            // several queries in flight together.
            let tasks: Vec<_> = (0..2)
                .flat_map(|_| {
                    queries
                        .chunks_exact(f.dim)
                        .map(<[f32]>::to_vec)
                        .collect::<Vec<_>>()
                })
                .map(|q| {
                    let (s, p) = (Arc::clone(&searcher), params.clone());
                    tokio::spawn(async move { s.search(&q, &p).await.unwrap() })
                })
                .collect();
            let mut got: Vec<warp_host::query::SearchResult> = Vec::new();
            for t in tasks {
                got.push(t.await.unwrap());
            }
            (got, searcher.io_stats().totals.gets)
        }
    };
    let (alone, gets_alone) = run(false).await;
    let (shared, gets_shared) = run(true).await;
    let ids = |rs: &[warp_host::query::SearchResult]| {
        rs.iter()
            .map(|r| r.neighbors.iter().map(|n| n.id).collect::<Vec<_>>())
            .collect::<Vec<_>>()
    };
    let twice: Vec<Vec<u32>> = reference.iter().chain(&reference).cloned().collect();
    assert_eq!(ids(&alone), twice);
    assert_eq!(ids(&shared), twice);
    assert!(alone.iter().all(|r| r.stats.shared == 0));
    let joined: usize = shared.iter().map(|r| r.stats.shared).sum();
    assert!(joined > 0, "no list was shared");
    assert!(
        gets_shared < gets_alone,
        "{gets_shared} vs {gets_alone} GETs"
    );

    // A corrupt list: its fetcher fails after its re-fetch, and so does
    // every query waiting for it, each with the checksum error, none hung.
    let manifest = index.manifest.clone();
    let hit = manifest.lists.iter().position(|l| l.len > 0).unwrap();
    let entry = &manifest.lists[hit];
    let path = mem.child(&manifest.payload.name);
    let mut payload = mem
        .store
        .get(&path)
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .to_vec();
    payload[entry.offset as usize] ^= 0xff;
    mem.store.put(&path, payload.into()).await.unwrap();
    let searcher = Arc::new(Searcher::new(Arc::clone(&index), 64, 0, native_factory()).unwrap());
    // Queries probing every list, so each needs the corrupt one.
    let all = SearchParams {
        nprobe: manifest.lists.len(),
        ..SearchParams::default()
    };
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let (s, p) = (Arc::clone(&searcher), all.clone());
            let q = f.queries[i * f.dim..(i + 1) * f.dim].to_vec();
            tokio::spawn(async move {
                tokio::time::timeout(std::time::Duration::from_secs(60), s.search(&q, &p)).await
            })
        })
        .collect();
    for t in tasks {
        let r = t.await.unwrap().expect("a query hung");
        assert!(matches!(r, Err(Error::Checksum { .. })), "{r:?}");
    }
}
