//! Issue 10, "Object-store faults": a rebuild in place never deletes what a
//! reader of the previous manifest reads; `warp gc` removes only objects no
//! manifest names, after the grace period; a failed build leaves no garbage.
//! Issue 23: gc never removes what a build in progress needs (its claim),
//! a build never publishes a manifest naming a missing object, and a grace
//! below the floor needs `--force`.

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use common::faults::FaultyStore;
use common::gc_loop::gc_loop_during_rebuilds;
use common::{fixture, local_index, write};
use futures::TryStreamExt;
use object_store::path::Path;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use warp_host::ivf::build::object_name;
use warp_host::ivf::claim::claim_name;
use warp_host::ivf::gc::{GcParams, GcReason, collect};
use warp_host::ivf::manifest::generation_object;
use warp_host::ivf::{BuildLease, LeaseParams};
use warp_host::query::{Index, PlanOptions, SearchParams, Searcher, native_factory, parse_policy};
use warp_host::store::{self, StoreLocation};

async fn names(loc: &StoreLocation) -> BTreeSet<String> {
    let metas: Vec<ObjectMeta> = loc.store.list(None).try_collect().await.unwrap();
    metas.into_iter().map(|m| m.location.to_string()).collect()
}

async fn answer_all(searcher: &Searcher, queries: &[f32], dim: usize) -> Vec<Vec<u32>> {
    let params = SearchParams {
        nprobe: 6,
        plan: PlanOptions {
            method: parse_policy("warp").unwrap(),
            parallelism: Some(2.0),
            ..PlanOptions::default()
        },
        ..SearchParams::default()
    };
    let mut out = Vec::new();
    for q in queries.chunks_exact(dim) {
        let r = searcher.search(q, &params).await.unwrap();
        out.push(r.neighbors.iter().map(|n| n.id).collect());
    }
    out
}

/// gc with grace `older_than`, forced (these tests use grace periods below
/// the floor).
fn gc_params(older_than: Duration, dry_run: bool) -> GcParams {
    GcParams {
        force: true,
        dry_run,
        ..GcParams::new(older_than)
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
    let reader = Searcher::new(Arc::clone(&old), 4, 0, native_factory()).unwrap();
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
    let fresh = Searcher::new(Arc::new(new), 4, 0, native_factory()).unwrap();
    assert_eq!(answer_all(&fresh, &f.queries, f.dim).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_removes_stale_temp_files_of_a_killed_local_write() {
    let f = fixture(None);
    let (dir, url, loc, _) = local_index(&f, "warp-gc-temp-").await;
    // What object_store leaves when the process dies inside a put.
    let temp = dir.path().join("payload-0123456789abcdef.bin#1");
    std::fs::write(&temp, vec![0u8; 4096]).unwrap();
    let params = |older_than| GcParams {
        force: true,
        local_dir: store::local_dir(&url),
        ..GcParams::new(older_than)
    };
    // Written after the manifest and unclaimed: a build may still be
    // writing it (see warp_host::ivf::gc, rule 4), so even a zero grace
    // keeps it.
    let r = collect(&loc, &params(Duration::ZERO)).await.unwrap();
    assert!(r.items.is_empty() && temp.exists(), "{r:?}");
    assert_eq!(r.kept_newer, 1, "{r:?}");
    // A leftover of a build killed two hours ago.
    let two_hours_ago = std::time::SystemTime::now() - Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&temp)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    // The manifest is younger than an hour: its switch is recent.
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
        ..loc.clone()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_in_a_loop_never_breaks_a_rebuild_in_memory() {
    gc_loop_during_rebuilds(&format!("memory://gc-loop-{}", std::process::id()), 25).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_in_a_loop_never_breaks_a_rebuild_on_local_files() {
    let dir = tempfile::Builder::new()
        .prefix("warp-gc-loop-")
        .tempdir()
        .unwrap();
    gc_loop_during_rebuilds(dir.path().to_str().unwrap(), 25).await;
}

fn short_lease() -> LeaseParams {
    LeaseParams {
        ttl: Duration::from_millis(400),
        renew: Duration::from_millis(100),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_protects_its_generation_until_it_is_stale() {
    let f = fixture(None);
    let loc = store::open("memory://gc-claims").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    // A build claims and writes its payload, then another build publishes:
    // the claimed payload is older than the manifest and unreferenced.
    let lease = BuildLease::acquire(&loc, &short_lease()).await.unwrap();
    let id = lease.build_id().to_string();
    let payload = object_name("payload", &id);
    loc.store
        .put(&loc.child(&payload), vec![7u8; 64].into())
        .await
        .unwrap();
    write(&f, &loc, &order, "identity").await;
    let r = collect(&loc, &gc_params(Duration::ZERO, false))
        .await
        .unwrap();
    assert_eq!(r.kept_claimed, 1, "{r:?}");
    assert!(r.items.iter().all(|i| i.object != payload), "{r:?}");
    assert_eq!(r.live_claims.len(), 1, "{r:?}");
    assert_eq!(r.live_claims[0].build_id, id);
    assert_eq!(r.live_claims[0].pid, Some(std::process::id()));
    // The renewals keep it live well past its ttl.
    tokio::time::sleep(Duration::from_millis(600)).await;
    lease.check().unwrap();
    let r = collect(&loc, &gc_params(Duration::ZERO, false))
        .await
        .unwrap();
    assert_eq!(r.kept_claimed, 1, "{r:?}");
    // The build dies: no more renewals; once the claim is older than its
    // ttl, gc removes the payload, then the claim.
    drop(lease);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let r = collect(&loc, &gc_params(Duration::ZERO, false))
        .await
        .unwrap();
    let removed: Vec<(String, GcReason)> = r
        .items
        .iter()
        .map(|i| (i.object.clone(), i.reason))
        .collect();
    assert!(
        removed.contains(&(payload.clone(), GcReason::Unreferenced))
            && removed.contains(&(claim_name(&id), GcReason::StaleClaim)),
        "{r:?}"
    );
    assert!(r.live_claims.is_empty(), "{r:?}");
    let left = names(&loc).await;
    assert!(!left.iter().any(|n| n.contains(&id)), "{left:?}");
    assert!(Index::open(loc).await.is_ok());
}

/// `loc` with puts of claims failing (renewals fail; the claim cannot be
/// renewed), plus the plain location.
fn failing_claims(name: &str) -> (StoreLocation, StoreLocation, Arc<FaultyStore>) {
    let plain = store::open(name).unwrap();
    let faulty = FaultyStore::new(Arc::clone(&plain.store));
    let loc = StoreLocation {
        store: Arc::clone(&faulty) as Arc<dyn ObjectStore>,
        ..plain.clone()
    };
    (plain, loc, faulty)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lapsed_lease_fails_the_build_and_publishes_nothing() {
    let f = fixture(None);
    let (plain, loc, faulty) = failing_claims("memory://gc-lapsed");
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &plain, &order, "identity").await;
    let before = Index::open(plain.clone()).await.unwrap().manifest.build_id;
    let names_before = names(&plain).await;

    // Two builds claim; then no claim PUT succeeds any more.
    let lapsing = BuildLease::acquire(&loc, &short_lease()).await.unwrap();
    let id = lapsing.build_id().to_string();
    let renewing = BuildLease::acquire(&loc, &LeaseParams::default())
        .await
        .unwrap();
    faulty.fail_puts_of("claim");
    // No renewal succeeds for longer than half the short lease: lost.
    tokio::time::sleep(Duration::from_millis(250)).await;
    let write = |lease| {
        warp_host::ivf::write_claimed(
            lease,
            &f.base,
            &f.trained,
            &order,
            "identity",
            warp_host::ivf::Workload::default(),
        )
    };
    let e = write(lapsing).await.unwrap_err().to_string();
    assert!(
        e.contains(&format!("build {id} lost its claim"))
            && e.contains("nothing was published")
            && e.contains("disk full (injected)")
            && !e.contains('\n'),
        "{e}"
    );
    // The long lease still holds, but the renewal right before publishing
    // fails: the build fails rather than publish with an unrenewed claim.
    let e = write(renewing).await.unwrap_err().to_string();
    assert!(
        e.contains("claim-") && e.contains("disk full (injected)") && !e.contains('\n'),
        "{e}"
    );
    // Neither published; neither left an object or a claim behind.
    assert_eq!(
        Index::open(plain.clone()).await.unwrap().manifest.build_id,
        before
    );
    assert_eq!(names(&plain).await, names_before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_build_checks_its_objects_before_publishing() {
    let f = fixture(None);
    let loc = store::open("memory://gc-verify").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    let before = Index::open(loc.clone()).await.unwrap().manifest.build_id;
    let names_before = names(&loc).await;
    // A store that drops every payload as it is written (what the old gc
    // did to a build in progress).
    let lossy = StoreLocation {
        store: Arc::new(DropsPayloads(Arc::clone(&loc.store))),
        ..loc.clone()
    };
    let e = warp_host::ivf::write(
        &lossy,
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
        e.contains("is gone") && e.contains("nothing was published") && !e.contains('\n'),
        "{e}"
    );
    assert_eq!(
        Index::open(loc.clone()).await.unwrap().manifest.build_id,
        before
    );
    assert_eq!(names(&loc).await, names_before);
}

/// A store whose puts of `payload-…` objects succeed but store nothing.
#[derive(Debug)]
struct DropsPayloads(Arc<dyn ObjectStore>);

impl std::fmt::Display for DropsPayloads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DropsPayloads({})", self.0)
    }
}

#[async_trait::async_trait]
impl ObjectStore for DropsPayloads {
    async fn put_opts(
        &self,
        location: &Path,
        payload: object_store::PutPayload,
        opts: object_store::PutOptions,
    ) -> object_store::Result<object_store::PutResult> {
        let result = self.0.put_opts(location, payload, opts).await?;
        if location
            .filename()
            .is_some_and(|n| n.starts_with("payload-"))
        {
            self.0.delete(location).await?;
        }
        Ok(result)
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: object_store::PutMultipartOptions,
    ) -> object_store::Result<Box<dyn object_store::MultipartUpload>> {
        self.0.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Path,
        options: object_store::GetOptions,
    ) -> object_store::Result<object_store::GetResult> {
        self.0.get_opts(location, options).await
    }

    fn delete_stream(
        &self,
        locations: futures::stream::BoxStream<'static, object_store::Result<Path>>,
    ) -> futures::stream::BoxStream<'static, object_store::Result<Path>> {
        self.0.delete_stream(locations)
    }

    fn list(
        &self,
        prefix: Option<&Path>,
    ) -> futures::stream::BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.0.list(prefix)
    }

    async fn list_with_delimiter(
        &self,
        prefix: Option<&Path>,
    ) -> object_store::Result<object_store::ListResult> {
        self.0.list_with_delimiter(prefix).await
    }

    async fn copy_opts(
        &self,
        from: &Path,
        to: &Path,
        options: object_store::CopyOptions,
    ) -> object_store::Result<()> {
        self.0.copy_opts(from, to, options).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gc_below_the_grace_floor_is_refused_without_force() {
    let f = fixture(None);
    let loc = store::open("memory://gc-floor").unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(&f, &loc, &order, "identity").await;
    write(&f, &loc, &order, "identity").await;
    let before = names(&loc).await;
    let e = collect(&loc, &GcParams::new(Duration::from_secs(60)))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--older-than") && e.contains("--force") && !e.contains('\n'),
        "{e}"
    );
    assert_eq!(names(&loc).await, before);
    // The CLI: one line, exit 2, before anything is read; `--force` runs.
    let dir = tempfile::Builder::new()
        .prefix("warp-gc-floor-")
        .tempdir()
        .unwrap();
    let url = dir.path().to_str().unwrap().to_string();
    let file = store::open(&url).unwrap();
    write(&f, &file, &order, "identity").await;
    write(&f, &file, &order, "identity").await;
    let gc = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_warp"))
            .args(["gc", "--url", &url, "--older-than", "1s"])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = gc(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("15m") && stderr.contains("--force"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    let out = gc(&["--force"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let summary: serde_json::Value =
        serde_json::from_str(stdout.trim_end().lines().last().unwrap()).unwrap();
    for key in [
        "kept_claimed",
        "kept_newer_than_manifest",
        "live_claims",
        "manifest_changed",
    ] {
        assert!(summary.get(key).is_some(), "{key} missing: {stdout}");
    }
}

#[test]
fn a_build_on_an_unwritable_store_fails_before_any_work() {
    // Data that would take minutes to generate and train.
    let job = warp_host::ivf::job::BuildJob {
        spec: warp_host::dataset::DatasetSpec {
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
        params: warp_host::ivf::IvfBuildParams {
            nlist: 4096,
            ..Default::default()
        },
        layout: planner_core::reorder::Layout::Identity,
        limits: warp_host::config::InputLimits {
            data_bytes: 64 << 30,
            ..Default::default()
        },
        lease: LeaseParams::default(),
    };
    let (plain, loc, faulty) = failing_claims("memory://gc-unwritable");
    faulty.fail_puts_of("");
    let rt = warp_host::search::runtime().unwrap();
    let t0 = std::time::Instant::now();
    let e = job.run(&rt, &loc).unwrap_err().to_string();
    let took = t0.elapsed();
    assert!(
        e.contains("claim-") && e.contains("disk full (injected)") && !e.contains('\n'),
        "{e}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(rt.block_on(names(&plain)).is_empty());
    // A current-thread runtime cannot renew the claim while the caller
    // computes: refused before the store is touched.
    let single = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let e = job.run(&single, &plain).unwrap_err().to_string();
    assert!(e.contains("multi-thread runtime"), "{e}");
    assert!(rt.block_on(names(&plain)).is_empty());
}
