//! Index quality does not regress: recall@10 of IVF-Flat and IVF-PQ on a small real
//! set (host/tests/data/real-mini: 4 000 sentence embeddings and 200 held-out
//! queries, projected to 64 dimensions and stored as bytes by
//! bench/realdata/make_mini.py), against exact ground truth computed here,
//! through the whole build → store → search path.
//!
//! Recall of one k-means run varies with its seed by about ±0.02 on a set
//! this small, so each figure is the mean over eight seeds; the bounds sit
//! about 0.01 below the means measured when they were set (BENCHMARKS.md,
//! "Index quality"), and above what the previous k-means (64 training points
//! per centroid) reached.

use std::path::Path;
use std::sync::Arc;

use warp_host::formats::read_vectors;
use warp_host::ivf::{self, IvfBuildParams, Metric, Workload, prepare_vectors};
use warp_host::query::{Index, SearchParams, Searcher, native_factory};
use warp_host::store;

const NLIST: usize = 32;
const NPROBES: [usize; 4] = [1, 2, 4, 8];
const SEEDS: std::ops::RangeInclusive<u64> = 1..=8;
const K: usize = 10;

/// The shipped set as `f32` (`byte − 128`): base, queries, dimension.
fn real_mini() -> (Vec<f32>, Vec<f32>, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/real-mini");
    let read = |name: &str| {
        let (v, d) = read_vectors(&dir.join(name)).unwrap();
        (v.into_iter().map(|x| x - 128.0).collect::<Vec<f32>>(), d)
    };
    let (base, dim) = read("base.bvecs");
    let (queries, qd) = read("queries.bvecs");
    assert_eq!((base.len() / dim, queries.len() / dim, qd), (4000, 200, 64));
    (base, queries, dim)
}

/// Exact top-k ids, ties by id: by squared L2 (of integers: exact in
/// `f64`), or by the largest inner product (cosine on the normalised base,
/// dot).
fn exact(base: &[f32], queries: &[f32], dim: usize, metric: Metric) -> Vec<Vec<u32>> {
    queries
        .chunks_exact(dim)
        .map(|q| {
            let mut d: Vec<(f64, u32)> = base
                .chunks_exact(dim)
                .enumerate()
                .map(|(i, x)| {
                    let pairs = q.iter().zip(x).map(|(a, b)| (f64::from(*a), f64::from(*b)));
                    let s = match metric {
                        Metric::L2 => pairs.map(|(a, b)| (a - b).powi(2)).sum(),
                        _ => -pairs.map(|(a, b)| a * b).sum::<f64>(),
                    };
                    (s, i as u32)
                })
                .collect();
            d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            d.into_iter().take(K).map(|(_, i)| i).collect()
        })
        .collect()
}

/// Mean recall@10 over [`SEEDS`] at each of [`NPROBES`] for builds with
/// `params` (its seed replaced).
async fn mean_recall(params: IvfBuildParams, name: &str) -> Vec<f64> {
    mean_recall_of(params, name, false, 0).await
}

/// [`mean_recall`], with base and queries normalised first when `unit` (as
/// sentence embeddings come), and an exact rerank of `rerank · k`
/// candidates (IVF-PQ; 0 for none).
async fn mean_recall_of(params: IvfBuildParams, name: &str, unit: bool, rerank: usize) -> Vec<f64> {
    let (mut base, mut queries, dim) = real_mini();
    if unit {
        prepare_vectors(Metric::Cosine, &mut base, dim, "base").unwrap();
        prepare_vectors(Metric::Cosine, &mut queries, dim, "query").unwrap();
    }
    prepare_vectors(params.metric, &mut base, dim, "base").unwrap();
    let truth = exact(&base, &queries, dim, params.metric);
    let mut sums = vec![0f64; NPROBES.len()];
    for seed in SEEDS {
        let trained = ivf::train(
            &base,
            dim,
            &IvfBuildParams {
                nlist: NLIST,
                seed,
                ..params
            },
        )
        .unwrap();
        let loc = store::open(&format!("memory://recall-{name}-{seed}")).unwrap();
        let order: Vec<u32> = (0..NLIST as u32).collect();
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
        let index = Arc::new(Index::open(loc).await.unwrap());
        let searcher = Searcher::new(index, 8, 64 << 20, native_factory()).unwrap();
        for (slot, &nprobe) in sums.iter_mut().zip(&NPROBES) {
            let p = SearchParams {
                nprobe,
                k: K,
                rerank,
                ..SearchParams::default()
            };
            let mut hits = 0usize;
            for (q, t) in queries.chunks_exact(dim).zip(&truth) {
                let r = searcher.search(q, &p).await.unwrap();
                hits += r.neighbors.iter().filter(|n| t.contains(&n.id)).count();
            }
            *slot += hits as f64 / (K * truth.len()) as f64;
        }
    }
    let runs = SEEDS.count() as f64;
    sums.into_iter().map(|s| s / runs).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_flat_recall_on_the_real_mini_set_does_not_regress() {
    let got = mean_recall(IvfBuildParams::default(), "default").await;
    eprintln!("mean recall@10 at nprobe {NPROBES:?}: {got:.4?}");
    // Measured: 0.5059, 0.6743, 0.8183, 0.9225; with 64 training points per
    // centroid 0.4851, 0.6519, 0.8003, 0.9188.
    let floor = [0.495, 0.662, 0.808, 0.917];
    for ((&nprobe, &r), &min) in NPROBES.iter().zip(&got).zip(&floor) {
        assert!(r >= min, "nprobe {nprobe}: mean recall@10 {r:.4} < {min}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cosine_and_dot_recall_on_the_real_mini_set_do_not_regress() {
    // Measured: cosine 0.5276, 0.6896, 0.8319, 0.9295 (with 64 training
    // points per centroid 0.5049, 0.6688, 0.8161, 0.9252); dot 0.5268,
    // 0.6891, 0.8306, 0.9294.
    for (metric, floor) in [
        (Metric::Cosine, [0.517, 0.679, 0.821, 0.919]),
        (Metric::Dot, [0.516, 0.679, 0.820, 0.919]),
    ] {
        let params = IvfBuildParams {
            metric,
            ..IvfBuildParams::default()
        };
        let got = mean_recall(params, metric.name()).await;
        eprintln!("{metric}: mean recall@10 at nprobe {NPROBES:?}: {got:.4?}");
        for ((&nprobe, &r), &min) in NPROBES.iter().zip(&got).zip(&floor) {
            assert!(
                r >= min,
                "{metric}, nprobe {nprobe}: mean recall@10 {r:.4} < {min}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_pq_recall_on_unit_vectors_does_not_regress() {
    // Unit-norm embeddings under l2 (how bench/peer/quality.sh runs the
    // real set), m = 16 sub-quantizers of 4 dimensions. Measured: 0.4852,
    // 0.6033, 0.6946, 0.7425; with rerank 4 0.5268, 0.6842, 0.8278, 0.9261.
    // With spherical coarse centroids (what `--clustering auto` chose here
    // before; residuals to unit-norm centroids) 0.4732, 0.5871, 0.6669,
    // 0.7076, below every floor without rerank; with rerank 0.5275, 0.6891,
    // 0.8295, 0.9234, which this set does not tell apart.
    let params = IvfBuildParams {
        pq_m: Some(16),
        ..IvfBuildParams::default()
    };
    for (rerank, floor) in [(0, FLOOR_PQ), (4, FLOOR_PQ_RERANK)] {
        let got = mean_recall_of(params, &format!("pq-{rerank}"), true, rerank).await;
        eprintln!("IVF-PQ, rerank {rerank}: mean recall@10 at nprobe {NPROBES:?}: {got:.4?}");
        for ((&nprobe, &r), &min) in NPROBES.iter().zip(&got).zip(&floor) {
            assert!(
                r >= min,
                "IVF-PQ, rerank {rerank}, nprobe {nprobe}: mean recall@10 {r:.4} < {min}"
            );
        }
    }
}

/// IVF-PQ floors without rerank, about 0.01 below the measured means.
const FLOOR_PQ: [f64; 4] = [0.475, 0.593, 0.684, 0.732];
/// And with an exact rerank of 4k candidates.
const FLOOR_PQ_RERANK: [f64; 4] = [0.516, 0.674, 0.817, 0.916];
