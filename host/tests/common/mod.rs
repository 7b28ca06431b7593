//! Shared fixtures of the host integration tests: a tiny seeded index,
//! [`cli`], the `warp` binary and a tiny index it builds,
//! [`faults::FaultyStore`], the one fault-injecting store,
//! [`gc_loop`], gc racing rebuilds on any store, and
//! [`range_server::RangeServer`], an S3 endpoint that answers range GETs
//! wrongly on request (for object_store's own HTTP checks).

#![allow(dead_code)]

pub(crate) mod cli;
pub(crate) mod faults;
pub(crate) mod gc_loop;
pub(crate) mod range_server;

use std::sync::Arc;

use warp_host::ivf::synthetic::{SyntheticParams, generate};
use warp_host::ivf::{self, IvfBuildParams, TrainedIvf, Workload};
use warp_host::query::{Index, PlanOptions, SearchParams, Searcher, native_factory, parse_policy};
use warp_host::store::StoreLocation;

/// A tiny dataset and its trained index.
pub(crate) struct Fixture {
    pub dim: usize,
    pub base: Vec<f32>,
    pub queries: Vec<f32>,
    pub trained: TrainedIvf,
}

pub(crate) fn fixture(pq_m: Option<usize>) -> Fixture {
    let dim = 16;
    let (base, queries) = generate(&SyntheticParams {
        n: 3000,
        nq: 20,
        dim,
        components: 8,
        seed: 5,
    });
    let trained = ivf::train(
        &base,
        dim,
        &IvfBuildParams {
            nlist: 32,
            pq_m,
            niter: 5,
            ..IvfBuildParams::default()
        },
    )
    .unwrap();
    Fixture {
        dim,
        base,
        queries,
        trained,
    }
}

/// `f` written with the identity layout into a fresh local directory whose
/// name starts with `prefix`: the directory (removed when dropped, a failing
/// test included), its URL, the store and the identity order.
pub(crate) async fn local_index(
    f: &Fixture,
    prefix: &str,
) -> (tempfile::TempDir, String, StoreLocation, Vec<u32>) {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
    let url = dir.path().to_str().unwrap().to_string();
    let loc = warp_host::store::open(&url).unwrap();
    let order: Vec<u32> = (0..f.trained.nlist() as u32).collect();
    write(f, &loc, &order, "identity").await;
    (dir, url, loc, order)
}

pub(crate) async fn write(f: &Fixture, loc: &StoreLocation, order: &[u32], name: &str) {
    ivf::write(
        loc,
        &f.base,
        &f.trained,
        order,
        name,
        Workload {
            queries: Some(&f.queries),
            groundtruth: None,
        },
    )
    .await
    .unwrap();
}

pub(crate) const POLICIES: [&str; 6] = [
    "separate",
    "lance_rule",
    "object_store_rule",
    "coalesce:4096",
    "warp",
    "min_w",
];

/// The neighbour ids of every query under `policy`.
pub(crate) async fn answers(loc: StoreLocation, queries: &[f32], policy: &str) -> Vec<Vec<u32>> {
    let index = Arc::new(Index::open(loc).await.unwrap());
    let dim = index.manifest.dim;
    let searcher = Searcher::new(index, 8, 0, native_factory()).unwrap();
    let params = SearchParams {
        nprobe: 6,
        plan: PlanOptions {
            method: parse_policy(policy).unwrap(),
            parallelism: Some(2.0),
            ..PlanOptions::default()
        },
        ..SearchParams::default()
    };
    let mut out = Vec::new();
    for q in queries.chunks_exact(dim) {
        let r = searcher.search(q, &params).await.unwrap();
        assert_eq!(r.neighbors.len(), 10);
        out.push(r.neighbors.iter().map(|n| n.id).collect());
    }
    out
}
