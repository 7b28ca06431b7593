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
    let file = store::open(dir.to_str().unwrap()).unwrap();
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
    std::fs::create_dir_all(&dir).unwrap();
    let file = std::fs::File::create(dir.join(MANIFEST)).unwrap();
    file.set_len(300 << 20).unwrap();
    let e = Index::open(store::open(dir.to_str().unwrap()).unwrap())
        .await
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("more than the 268435456 allowed"), "{text}");
    assert!(matches!(e, Error::Index { .. }), "{e:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("warp-host-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
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
