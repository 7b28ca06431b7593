//! Issue 10, "Object-store faults": a rebuild in place never deletes what a
//! reader of the previous manifest reads; `warp gc` removes only objects no
//! manifest names, after the grace period; a failed build leaves no garbage.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use common::faults::FaultyStore;
use common::{fixture, write};
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use warp_host::ivf::gc::{GcParams, GcReason, collect};
use warp_host::ivf::manifest::generation_object;
use warp_host::query::{Index, SearchParams, Searcher, native_factory, parse_policy};
use warp_host::store::{self, StoreLocation};

async fn names(loc: &StoreLocation) -> BTreeSet<String> {
    let metas: Vec<ObjectMeta> = loc.store.list(None).try_collect().await.unwrap();
    metas.into_iter().map(|m| m.location.to_string()).collect()
}

async fn answer_all(searcher: &Searcher, queries: &[f32], dim: usize) -> Vec<Vec<u32>> {
    let params = SearchParams {
        nprobe: 6,
        method: parse_policy("warp").unwrap(),
        parallelism: Some(2.0),
        ..SearchParams::default()
    };
    let mut out = Vec::new();
    for q in queries.chunks_exact(dim) {
        let r = searcher.search(q, &params).await.unwrap();
        out.push(r.neighbors.iter().map(|n| n.id).collect());
    }
    out
}

fn gc_params(older_than: Duration, dry_run: bool) -> GcParams {
    GcParams {
        older_than,
        dry_run,
        local_dir: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_of_the_old_manifest_survives_a_rebuild_until_gc() {
    let f = fixture(None);
    let loc = store::open("memory://rebuild-reader").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    let old = Arc::new(Index::open(loc.clone()).await.unwrap());
    let old_id = old.manifest.build_id.clone();
    // No payload cache: every search reads the store.
    let reader = Searcher::new(Arc::clone(&old), 4, 0, native_factory());
    let before = answer_all(&reader, &f.queries, f.dim).await;

    let reversed: Vec<u32> = order.iter().rev().copied().collect();
    write(&f, &loc, &reversed, "reversed").await;
    let after_rebuild = names(&loc).await;
    let new = Index::open(loc.clone()).await.unwrap();
    assert_ne!(new.manifest.build_id, old_id);
    // Both generations are on the store; the old reader still answers.
    assert!(
        after_rebuild
            .iter()
            .any(|n| generation_object(n) == Some(old_id.as_str()))
    );
    assert_eq!(answer_all(&reader, &f.queries, f.dim).await, before);

    // Within the grace period gc removes nothing.
    let r = collect(&loc, &gc_params(Duration::from_secs(3600), false))
        .await
        .unwrap();
    assert!(r.items.is_empty(), "{r:?}");
    assert!(r.kept_recent >= 3, "{r:?}");
    assert_eq!(names(&loc).await, after_rebuild);

    // A foreign object and an object of a nested index are never touched.
    let foreign = Path::from("notes.txt");
    let nested = Path::from(format!("sub/payload-{old_id}.bin"));
    for p in [&foreign, &nested] {
        loc.store.put(p, vec![1u8].into()).await.unwrap();
    }

    // A dry run lists exactly the old generation, and removes nothing.
    let r = collect(&loc, &gc_params(Duration::ZERO, true))
        .await
        .unwrap();
    let listed: BTreeSet<String> = r.items.iter().map(|i| i.object.clone()).collect();
    let old_objects: BTreeSet<String> = old.manifest.objects().map(|o| o.name.clone()).collect();
    assert_eq!(listed, old_objects);
    assert!(
        r.items
            .iter()
            .all(|i| !i.deleted && i.reason == GcReason::Unreferenced)
    );
    assert_eq!(r.kept_foreign, 1);
    assert!(names(&loc).await.is_superset(&after_rebuild));

    // The real run removes them and only them.
    let r = collect(&loc, &gc_params(Duration::ZERO, false))
        .await
        .unwrap();
    assert_eq!(r.items.len(), old_objects.len());
    let left = names(&loc).await;
    let mut expected: BTreeSet<String> = new.manifest.objects().map(|o| o.name.clone()).collect();
    expected.insert("manifest.json".into());
    expected.insert(foreign.to_string());
    expected.insert(nested.to_string());
    assert_eq!(left, expected);
    let fresh = Searcher::new(Arc::new(new), 4, 0, native_factory());
    assert_eq!(answer_all(&fresh, &f.queries, f.dim).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_removes_stale_temp_files_of_a_killed_local_write() {
    let f = fixture(None);
    let dir = std::env::temp_dir().join(format!("warp-gc-temp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let url = dir.to_str().unwrap().to_string();
    let loc = store::open(&url).unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    // What object_store leaves when the process dies inside a put.
    let temp = dir.join("payload-0123456789abcdef.bin#1");
    std::fs::write(&temp, vec![0u8; 4096]).unwrap();
    let params = |older_than| GcParams {
        older_than,
        dry_run: false,
        local_dir: store::local_dir(&url),
    };
    let r = collect(&loc, &params(Duration::from_secs(3600)))
        .await
        .unwrap();
    assert!(r.items.is_empty() && temp.exists(), "{r:?}");
    let r = collect(&loc, &params(Duration::ZERO)).await.unwrap();
    assert_eq!(r.items.len(), 1, "{r:?}");
    assert_eq!(r.items[0].reason, GcReason::TempFile);
    assert_eq!(r.items[0].bytes, 4096);
    assert!(!temp.exists());
    // The index is intact.
    assert!(Index::open(loc).await.is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_rebuild_removes_its_objects_and_keeps_the_index() {
    let f = fixture(None);
    let loc = store::open("memory://rebuild-failing").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    let before = names(&loc).await;
    let failing = StoreLocation {
        store: {
            let faulty = FaultyStore::new(Arc::clone(&loc.store));
            faulty.fail_puts_of("centroids");
            faulty
        },
        prefix: loc.prefix.clone(),
        display: loc.display.clone(),
    };
    let e = warp_host::ivf::write(
        &failing,
        &f.base,
        &f.trained,
        &order,
        "identity",
        warp_host::ivf::Workload::default(),
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("disk full (injected)") && !e.contains('\n'),
        "{e}"
    );
    // The payload written before the failure is gone again.
    assert_eq!(names(&loc).await, before);
    assert!(Index::open(loc).await.is_ok());
}
