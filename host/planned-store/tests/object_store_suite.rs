//! object_store's own conformance suite (its `integration` module, the one
//! its backends pass) on `PlannedStore`, over `InMemory` and over
//! `LocalFileSystem`: every function that applies to a read-through layer —
//! the same set object_store runs on those two stores itself. The suite's
//! `put_get_delete_list` reads ranges through `get_range`/`get_ranges`
//! (here planned), including out-of-bounds and empty ones, and checks the
//! error kinds as well as the bytes.

use std::sync::Arc;

use object_store::ObjectStore;
use object_store::integration::*;
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use warp_planned_store::PlannedStore;

fn planned<S: ObjectStore>(inner: S) -> PlannedStore<S> {
    PlannedStore::builder(Arc::new(inner))
        .build()
        .expect("the default configuration is valid")
}

#[tokio::test]
async fn planned_store_over_in_memory_passes_the_object_store_suite() {
    let store = planned(InMemory::new());
    put_get_delete_list(&store).await;
    list_with_offset_exclusivity(&store).await;
    get_opts(&store).await;
    list_uses_directories_correctly(&store).await;
    list_with_delimiter(&store).await;
    rename_and_copy(&store).await;
    copy_if_not_exists(&store).await;
    stream_get(&store).await;
    put_opts(&store, true).await;
    put_get_attributes(&store).await;
}

#[tokio::test]
async fn planned_store_over_local_files_passes_the_object_store_suite() {
    let root = tempfile::tempdir().unwrap();
    let store = planned(LocalFileSystem::new_with_prefix(root.path()).unwrap());
    put_get_delete_list(&store).await;
    list_with_offset_exclusivity(&store).await;
    get_opts(&store).await;
    list_uses_directories_correctly(&store).await;
    list_with_delimiter(&store).await;
    rename_and_copy(&store).await;
    copy_if_not_exists(&store).await;
    copy_rename_nonexistent_object(&store).await;
    stream_get(&store).await;
    put_opts(&store, false).await;
}

/// The suite's range reads with planning that merges aggressively (a
/// surrogate with a high fixed cost and free bytes, `K_max = 1`: every range
/// of a call in one GET, sliced back), each function on a fresh store.
#[tokio::test]
async fn a_merging_planned_store_passes_the_suite_s_range_reads() {
    let merging = || {
        PlannedStore::builder(Arc::new(InMemory::new()))
            .with_surrogate(planner_core::Surrogate::Affine {
                fixed_ms: 1000.0,
                per_mib_ms: 0.0,
            })
            .with_k_max(Some(1))
            .build()
            .unwrap()
    };
    let store = merging();
    put_get_delete_list(&store).await;
    assert!(
        store.stats().totals.gets > 0,
        "the suite's range reads were planned"
    );
    get_opts(&merging()).await;
    stream_get(&merging()).await;
}
