//! Issue 21: the metrics `l2`, `cosine` and `dot`, each for IVF-Flat and
//! IVF-PQ, against brute force computed here in `f64`:
//!
//! - IVF-Flat probing every list is exact search: the ids and distances of
//!   brute force under the metric;
//! - IVF-PQ's ADC distances are the metric's distance to each vector's
//!   reconstruction (list centroid plus codewords), and probing every list
//!   with a rerank of every candidate is exact search again;
//! - a wrong or missing metric (manifest, `--metric`) and an all-zero vector
//!   under cosine are refused in one line.

use std::sync::Arc;

use object_store::ObjectStoreExt;
use warp_host::ivf::manifest::MANIFEST;
use warp_host::ivf::synthetic::{SyntheticParams, generate};
use warp_host::ivf::{self, IvfBuildParams, Metric, TrainedIvf, Workload, prepare_vectors};
use warp_host::query::{Index, SearchParams, Searcher, native_factory};
use warp_host::store::{self, StoreLocation};

const DIM: usize = 16;
const NLIST: usize = 8;
const K: usize = 10;
const METRICS: [Metric; 3] = [Metric::L2, Metric::Cosine, Metric::Dot];

/// SIFT-like data moved to mixed signs (so inner products are of both
/// signs and norms differ), prepared for `metric`.
fn data(metric: Metric, n: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut base, mut queries) = generate(&SyntheticParams {
        n,
        nq: 12,
        dim: DIM,
        components: 6,
        seed: 11,
    });
    for x in base.iter_mut().chain(queries.iter_mut()) {
        *x = (*x - 30.0) / 8.0;
    }
    prepare_vectors(metric, &mut base, DIM, "base").unwrap();
    (base, queries)
}

/// The metric's distance in `f64`, as the index reports it: `‖q − x‖²`,
/// `1 − q·x/‖q‖` (the stored `x` is unit-norm) or `−q·x`.
fn distance(metric: Metric, q: &[f32], x: &[f64]) -> f64 {
    let q: Vec<f64> = q.iter().map(|&v| f64::from(v)).collect();
    match metric {
        Metric::L2 => q.iter().zip(x).map(|(a, b)| (a - b) * (a - b)).sum(),
        Metric::Cosine => {
            let norm = q.iter().map(|a| a * a).sum::<f64>().sqrt();
            1.0 - q.iter().zip(x).map(|(a, b)| a / norm * b).sum::<f64>()
        }
        Metric::Dot => -q.iter().zip(x).map(|(a, b)| a * b).sum::<f64>(),
    }
}

/// The `k` smallest `(distance, id)` of `rows`.
fn top(metric: Metric, q: &[f32], rows: &[Vec<f64>], k: usize) -> Vec<(f64, u32)> {
    let mut d: Vec<(f64, u32)> = rows
        .iter()
        .enumerate()
        .map(|(i, x)| (distance(metric, q, x), i as u32))
        .collect();
    d.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    d.truncate(k);
    d
}

fn rows_f64(base: &[f32]) -> Vec<Vec<f64>> {
    base.chunks_exact(DIM)
        .map(|r| r.iter().map(|&v| f64::from(v)).collect())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

async fn build(
    metric: Metric,
    base: &[f32],
    queries: &[f32],
    pq_m: Option<usize>,
    name: &str,
) -> (TrainedIvf, Searcher, StoreLocation) {
    let trained = ivf::train(
        base,
        DIM,
        &IvfBuildParams {
            nlist: NLIST,
            pq_m,
            niter: 6,
            metric,
            ..IvfBuildParams::default()
        },
    )
    .unwrap();
    let loc = store::open(&format!("memory://metrics-{name}")).unwrap();
    let order: Vec<u32> = (0..NLIST as u32).collect();
    let workload = Workload {
        queries: Some(queries),
        groundtruth: None,
    };
    let m = ivf::write(&loc, base, &trained, &order, "identity", workload)
        .await
        .unwrap();
    assert_eq!(m.metric, metric.to_string());
    let index = Arc::new(Index::open(loc.clone()).await.unwrap());
    assert_eq!(index.metric(), metric);
    let searcher = Searcher::new(index, 8, 0, native_factory()).unwrap();
    (trained, searcher, loc)
}

fn exhaustive(rerank: usize) -> SearchParams {
    SearchParams {
        nprobe: NLIST,
        k: K,
        rerank,
        ..SearchParams::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_flat_probing_every_list_is_brute_force_under_each_metric() {
    for metric in METRICS {
        let (base, queries) = data(metric, 1500);
        let (trained, searcher, _) =
            build(metric, &base, &queries, None, &format!("flat-{metric}")).await;
        assert_eq!(trained.spherical, metric != Metric::L2, "{metric}");
        let rows = rows_f64(&base);
        for (qi, q) in queries.chunks_exact(DIM).enumerate() {
            let r = searcher.search(q, &exhaustive(0)).await.unwrap();
            let want = top(metric, q, &rows, K);
            let ids: Vec<u32> = r.neighbors.iter().map(|n| n.id).collect();
            let want_ids: Vec<u32> = want.iter().map(|w| w.1).collect();
            assert_eq!(ids, want_ids, "{metric} query {qi}");
            for (n, w) in r.neighbors.iter().zip(&want) {
                assert!(
                    close(n.distance, w.0),
                    "{metric} query {qi}: {} vs {}",
                    n.distance,
                    w.0
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_pq_adc_scores_the_reconstruction_and_rerank_is_exact_under_each_metric() {
    let m = 4;
    for metric in METRICS {
        let (base, queries) = data(metric, 1000);
        let (t, searcher, _) =
            build(metric, &base, &queries, Some(m), &format!("pq-{metric}")).await;
        let pq = t.pq.as_ref().unwrap();
        let codes = t.codes.as_ref().unwrap();
        // y_i = c_{l(i)} + Σ_j codeword_{j, code_ij}, in f64.
        let recon: Vec<Vec<f64>> = (0..base.len() / DIM)
            .map(|i| {
                let l = t.assign[i] as usize;
                (0..DIM)
                    .map(|d| {
                        let (j, o) = (d / pq.dsub(), d % pq.dsub());
                        let c = codes[i * m + j] as usize;
                        f64::from(t.centroids[l * DIM + d]) + f64::from(pq.codeword(j, c)[o])
                    })
                    .collect()
            })
            .collect();
        let rows = rows_f64(&base);
        for (qi, q) in queries.chunks_exact(DIM).enumerate() {
            let adc = searcher.search(q, &exhaustive(0)).await.unwrap();
            let want = top(metric, q, &recon, K);
            for (n, w) in adc.neighbors.iter().zip(&want) {
                assert!(
                    close(n.distance, w.0),
                    "{metric} query {qi} ADC: {} vs {}",
                    n.distance,
                    w.0
                );
                let own = distance(metric, q, &recon[n.id as usize]);
                assert!(close(n.distance, own), "{metric} query {qi} id {}", n.id);
            }
            // k · 100 ≥ n candidates: the rerank sees every vector.
            let exact = searcher.search(q, &exhaustive(100)).await.unwrap();
            let ids: Vec<u32> = exact.neighbors.iter().map(|n| n.id).collect();
            let want_ids: Vec<u32> = top(metric, q, &rows, K).iter().map(|w| w.1).collect();
            assert_eq!(ids, want_ids, "{metric} query {qi} rerank");
        }
    }
}

/// Rewrites the manifest at `loc` with `edit` applied to its JSON (and a
/// valid CRC line), as a writer of another version could.
async fn edit_manifest(loc: &StoreLocation, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = loc.child(MANIFEST);
    let bytes = loc.store.get(&path).await.unwrap().bytes().await.unwrap();
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let body = text.lines().next().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(body).unwrap();
    edit(&mut v);
    let body = serde_json::to_string(&v).unwrap();
    let crc = crc32c::crc32c(body.as_bytes());
    let out = format!("{body}\ncrc32c={crc:08x}\n");
    loc.store.put(&path, out.into_bytes().into()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_or_missing_metric_is_refused_in_one_line() {
    let (base, queries) = data(Metric::L2, 400);
    let (_, _, loc) = build(Metric::L2, &base, &queries, None, "refused").await;
    edit_manifest(&loc, |v| v["metric"] = "hamming".into()).await;
    let e = Index::open(loc.clone()).await.unwrap_err().to_string();
    assert!(
        e.contains("metric \"hamming\" is not supported")
            && e.contains("l2, cosine, dot")
            && !e.contains('\n'),
        "{e}"
    );
    edit_manifest(&loc, |v| {
        v.as_object_mut().unwrap().remove("metric");
    })
    .await;
    let e = Index::open(loc).await.unwrap_err().to_string();
    assert!(
        e.contains("missing field `metric`") && !e.contains('\n'),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cosine_refuses_all_zero_vectors_in_one_line() {
    let (mut base, queries) = data(Metric::L2, 400);
    base[5 * DIM..6 * DIM].fill(0.0);
    let e = prepare_vectors(Metric::Cosine, &mut base.clone(), DIM, "base")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("base vector 5 is all zeros") && !e.contains('\n'),
        "{e}"
    );
    // A base that was not normalised is refused by training.
    let params = IvfBuildParams {
        nlist: NLIST,
        metric: Metric::Cosine,
        ..IvfBuildParams::default()
    };
    let e = ivf::train(&base, DIM, &params).unwrap_err().to_string();
    assert!(e.contains("unit-norm") && !e.contains('\n'), "{e}");
    let (base, queries2) = data(Metric::Cosine, 400);
    let (_, searcher, _) = build(Metric::Cosine, &base, &queries2, None, "zero-query").await;
    let e = searcher
        .search(&[0.0; DIM], &exhaustive(0))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("all zeros") && !e.contains('\n'), "{e}");
    assert!(
        searcher
            .search(&queries[..DIM], &exhaustive(0))
            .await
            .is_ok()
    );
}

#[test]
fn the_cli_builds_each_metric_and_refuses_a_mismatch_in_one_line() {
    use std::process::Command;
    let dir = tempfile::Builder::new()
        .prefix("warp-metrics-cli-")
        .tempdir()
        .unwrap();
    let warp = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_warp"))
            .args(args)
            .env_remove("WARP_URL")
            .output()
            .unwrap()
    };
    for metric in ["cosine", "dot"] {
        let url = dir.path().join(metric);
        let out = warp(&[
            "build",
            "--url",
            url.to_str().unwrap(),
            "--synthetic",
            "2000",
            "--synthetic-queries",
            "5",
            "--dim",
            "16",
            "--nlist",
            "8",
            "--niter",
            "3",
            "--metric",
            metric,
        ]);
        assert!(out.status.success(), "{out:?}");
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["metric"], metric);
        assert_eq!(summary["kmeans"]["clustering"], "spherical");
        let ok = warp(&[
            "query",
            "--url",
            url.to_str().unwrap(),
            "--metric",
            metric,
            "--native",
            "--nprobe",
            "8",
        ]);
        assert!(ok.status.success(), "{ok:?}");
        let bad = warp(&[
            "query",
            "--url",
            url.to_str().unwrap(),
            "--metric",
            "l2",
            "--native",
        ]);
        assert_eq!(bad.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&bad.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("ranks by {metric}")), "{err}");
    }
    let out = warp(&[
        "build",
        "--url",
        dir.path().join("x").to_str().unwrap(),
        "--metric",
        "hamming",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("\"hamming\" is not a metric (l2, cosine, dot)"),
        "{err}"
    );
}
