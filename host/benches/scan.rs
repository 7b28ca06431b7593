//! The query path's distance scans (issue 23 item 2: their keys are `f64`;
//! IVF-Flat screens each vector with an `f32` lower bound first):
//! one query over 10 IVF-Flat lists of ~100 vectors of 128 dims, and over
//! the same lists as IVF-PQ (m = 16, ADC), for a query inside the data
//! (`near`, the direct form only) and one with a component of 1e20 (`far`,
//! the split form), plus routing on the 10 centroids.
//!
//! `cargo bench -p warp-host --bench scan`; IDs read `scan/{flat,pq}/{near,far}`,
//! `scan/flat/{near,far}-cached` (with the payload cache's 8-bit screens)
//! and `route/{near,far}`. Build and payload are in memory; only the scan
//! is timed.

use std::sync::Arc;

use bytes::Bytes;
use criterion::{Criterion, criterion_group, criterion_main};
use object_store::ObjectStoreExt;
use warp_host::ivf::scan::{Scanner, TopK};
use warp_host::ivf::score::Sq8List;
use warp_host::ivf::synthetic::{SyntheticParams, generate};
use warp_host::ivf::{self, IvfBuildParams, Workload};
use warp_host::query::Index;

const DIM: usize = 128;

/// An index of 1000 vectors in 10 lists, opened, with its lists' bytes.
fn index(pq_m: Option<usize>, name: &str) -> (Arc<Index>, Vec<(u32, Bytes)>, Vec<f32>) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (base, queries) = generate(&SyntheticParams {
        n: 1000,
        nq: 1,
        dim: DIM,
        components: 10,
        seed: 3,
    });
    let params = IvfBuildParams {
        nlist: 10,
        niter: 3,
        pq_m,
        ..IvfBuildParams::default()
    };
    let trained = ivf::train(&base, DIM, &params).unwrap();
    let loc = warp_host::store::open(&format!("memory://bench-scan-{name}")).unwrap();
    let order: Vec<u32> = (0..10).collect();
    rt.block_on(async {
        ivf::write(
            &loc,
            &base,
            &trained,
            &order,
            "identity",
            Workload::default(),
        )
        .await
        .unwrap();
        let index = Arc::new(Index::open(loc.clone()).await.unwrap());
        let payload = loc
            .store
            .get(index.payload_path())
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let lists = index
            .manifest
            .lists
            .iter()
            .zip(0u32..)
            .map(|(e, l)| {
                (
                    l,
                    payload.slice(e.offset as usize..(e.offset + e.len) as usize),
                )
            })
            .collect();
        (index, lists, queries)
    })
}

fn scan(index: &Index, q: &[f32], lists: &[(u32, Bytes)], screens: &[Option<Sq8List>]) -> usize {
    let scorer = index
        .scorer(q)
        .expect("an L2 index scores every finite query");
    let mut top = TopK::new(10);
    let mut s = Scanner::new(index, &scorer);
    for ((l, b), screen) in lists.iter().zip(screens) {
        s.scan(*l, b, screen.as_ref(), &mut top);
    }
    top.into_sorted().len()
}

fn bench(c: &mut Criterion) {
    for (kind, pq_m) in [("flat", None), ("pq", Some(16))] {
        let (index, lists, q) = index(pq_m, kind);
        let mut far = q.clone();
        far[0] = 1e20;
        let none: Vec<Option<Sq8List>> = vec![None; lists.len()];
        let screens: Vec<Option<Sq8List>> =
            lists.iter().map(|(l, b)| index.screen(*l, b)).collect();
        for (name, q) in [("near", &q), ("far", &far)] {
            c.bench_function(&format!("scan/{kind}/{name}"), |b| {
                b.iter(|| scan(&index, std::hint::black_box(q), &lists, &none))
            });
            if kind == "flat" {
                // The lists as the payload cache keeps them: with their
                // 8-bit screens (the far query does not use them).
                c.bench_function(&format!("scan/{kind}/{name}-cached"), |b| {
                    b.iter(|| scan(&index, std::hint::black_box(q), &lists, &screens))
                });
            }
            if kind == "flat" {
                c.bench_function(&format!("route/{name}"), |b| {
                    b.iter(|| index.route(std::hint::black_box(q), 4).unwrap())
                });
            }
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
