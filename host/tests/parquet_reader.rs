//! A consumer nobody here wrote: the `parquet` crate's async reader
//! (`ParquetObjectReader`, which reads column chunks with
//! `ObjectStore::get_ranges`) reading a column projection of a
//! multi-row-group file through `PlannedStore` over the simulated S3 store,
//! against the same reader over the plain simulated store. The record
//! batches must be identical; the GETs and time of each are printed
//! (`--nocapture`) for BENCHMARKS.md.
//!
//! `ParquetObjectReader` is deprecated since parquet 59.2 in favour of
//! user-written `AsyncFileReader`s; it is still parquet's own object_store
//! reader in 60.1 (the first release on object_store 0.14), so it is the
//! consumer used here.

#![allow(deprecated)]

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use futures::TryStreamExt;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use parquet::arrow::async_reader::ParquetObjectReader;
use parquet::arrow::{ArrowWriter, ParquetRecordBatchStreamBuilder, ProjectionMask};
use parquet::file::properties::WriterProperties;
use warp_host::store::{PlannedStore, SimulateConfig, SimulatedStore};

const ROWS: usize = 400_000;
const ROWS_PER_GROUP: usize = 50_000;

/// A seeded file: 8 row groups of 4 columns (~400 KB per numeric chunk).
fn parquet_file() -> Vec<u8> {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..ROWS as i64));
    let x: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..ROWS).map(|i| (i as f64 * 0.37).sin()),
    ));
    let tag: ArrayRef = Arc::new(StringArray::from_iter_values(
        (0..ROWS).map(|i| format!("t{}", i % 977)),
    ));
    let y: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (0..ROWS).map(|i| (i % 1013) as f64 / 7.0),
    ));
    let batch =
        RecordBatch::try_from_iter([("id", ids), ("x", x), ("tag", tag), ("y", y)]).unwrap();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(ROWS_PER_GROUP))
        .set_dictionary_enabled(false)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

fn simulated(inner: Arc<dyn ObjectStore>) -> Arc<SimulatedStore> {
    Arc::new(SimulatedStore::new(
        inner,
        SimulateConfig {
            tail_probability: 0.0,
            ..SimulateConfig::s3()
        },
    ))
}

/// Reads columns `id` and `y` of every row group through `store`.
async fn read_projection(store: Arc<dyn ObjectStore>, path: &Path) -> Vec<RecordBatch> {
    let size = store.head(path).await.unwrap().size;
    let reader = ParquetObjectReader::new(store, path.clone()).with_file_size(size);
    let builder = ParquetRecordBatchStreamBuilder::new(reader).await.unwrap();
    assert_eq!(builder.metadata().num_row_groups(), ROWS / ROWS_PER_GROUP);
    let mask = ProjectionMask::roots(builder.parquet_schema(), [0, 3]);
    builder
        .with_projection(mask)
        .with_batch_size(ROWS_PER_GROUP)
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parquet_reads_the_same_batches_through_planned_store() {
    let path = Path::from("table.parquet");
    let mem: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    mem.put(&path, parquet_file().into()).await.unwrap();

    let plain = simulated(Arc::clone(&mem));
    let t = Instant::now();
    let want = read_projection(Arc::clone(&plain) as Arc<dyn ObjectStore>, &path).await;
    let plain_ms = t.elapsed().as_secs_f64() * 1000.0;

    let under = simulated(mem);
    let planned = Arc::new(PlannedStore::builder(Arc::clone(&under)).build().unwrap());
    let t = Instant::now();
    let got = read_projection(Arc::clone(&planned) as Arc<dyn ObjectStore>, &path).await;
    let planned_ms = t.elapsed().as_secs_f64() * 1000.0;

    assert_eq!(got, want, "identical record batches");
    let rows: usize = got.iter().map(RecordBatch::num_rows).sum();
    assert_eq!(rows, ROWS);
    assert_eq!(got[0].num_columns(), 2);
    let stats = planned.stats();
    // Every column-chunk read went through the planner (one call per row
    // group); HEAD and the footer read are passed through.
    assert_eq!(stats.calls, (ROWS / ROWS_PER_GROUP) as u64, "{stats:?}");
    eprintln!(
        "parquet projection (2 of 4 columns, {} row groups): plain simulated S3: {} GETs, {plain_ms:.0} ms; \
         PlannedStore (warp): {} GETs ({} planned by warp, {} KiB, {} KiB overfetch), {planned_ms:.0} ms",
        ROWS / ROWS_PER_GROUP,
        plain.requests(),
        under.requests(),
        stats.totals.gets,
        stats.totals.bytes / 1024,
        stats.totals.overfetch_bytes / 1024,
    );
}
