//! Issue 23 item 2 "a wrong answer": every finite query gets finite
//! distances in the exact order, through the real query path (build an
//! index, store it, open it, query it), at the edges of `f32`: components of
//! ±3.4e38, ±f32::MAX and ±1e20, subnormal data and queries, mixed signs.
//!
//! The reference is exact integer arithmetic: every `f32` is an integer
//! multiple of 2⁻¹⁴⁹, so `‖q − x‖²·2²⁹⁸` is a big integer, and neighbours are
//! ranked by `(that integer, id)`. The inner-product metrics (`dot`,
//! `cosine`) get the same queries against the exact `q·x·2²⁹⁸`: their `f64`
//! sums are exact only to `γ·Σ|q_i x_i|`, so they are checked to that bound.

use std::sync::Arc;

use num_bigint::BigInt;
use num_traits::ToPrimitive;
use warp_host::ivf::synthetic::{SyntheticParams, generate};
use warp_host::ivf::{self, IvfBuildParams, Metric, TrainedIvf, Workload, prepare_vectors};
use warp_host::query::{Index, SearchParams, Searcher, native_factory};
use warp_host::store;

const DIM: usize = 16;
const K: usize = 10;

/// `v · 2¹⁴⁹`, exactly.
fn exact(v: f32) -> BigInt {
    let bits = v.to_bits();
    let (neg, e, frac) = (bits >> 31 == 1, (bits >> 23) & 0xff, bits & 0x7f_ffff);
    let m = if e == 0 {
        BigInt::from(frac)
    } else {
        BigInt::from(frac | 0x80_0000) << (e - 1)
    };
    if neg { -m } else { m }
}

/// `Σ (q_i − y_i)² · 2²⁹⁸` for `y = Σ` of the given parts (one part: a
/// vector; two: centroid plus PQ codewords), exactly.
fn exact_sq(q: &[f32], parts: &[&[f32]]) -> BigInt {
    (0..q.len())
        .map(|i| {
            let y: BigInt = parts.iter().map(|p| exact(p[i])).sum();
            let d = exact(q[i]) - y;
            &d * &d
        })
        .sum()
}

/// The exact squared distance as the nearest-ish `f64` (for the relative
/// check of the reported distances).
fn to_f64(scaled: &BigInt) -> f64 {
    let bits = scaled.bits();
    let shift = bits.saturating_sub(60);
    let top = (scaled >> shift).to_f64().unwrap();
    top * 2f64.powi(shift as i32 - 298)
}

/// The ids of the `k` smallest `(key, id)`.
fn top_ids(keys: Vec<BigInt>, k: usize) -> Vec<u32> {
    let mut order: Vec<(BigInt, u32)> = keys.into_iter().zip(0u32..).collect();
    order.sort();
    order.into_iter().take(k).map(|(_, id)| id).collect()
}

/// The base vectors of one case.
fn base(case: &str) -> Vec<f32> {
    let (b, _) = generate(&SyntheticParams {
        n: 600,
        nq: 0,
        dim: DIM,
        components: 6,
        seed: 11,
    });
    let f: fn(f32) -> f32 = match case {
        // Non-negative, clipped at 0 (many exact zeros), like SIFT.
        "sift" => |x| x,
        // Mixed signs around the origin.
        "mixed" => |x| x - 32.0,
        // Every value subnormal or zero (2⁻¹⁴⁰ · [0, 100]): f32 squares
        // underflow to 0.
        "subnormal" => |x| x * 2f32.powi(-140),
        // Far from the origin, mixed signs, within the build bound.
        "large" => |x| (x - 32.0) * 1e12,
        _ => unreachable!(),
    };
    b.into_iter().map(f).collect()
}

/// Queries at the edges for a base: two base-like rows (one a base vector
/// shifted), then one huge component of each sign and size, every component
/// huge with mixed signs, a subnormal query and the origin.
fn queries(b: &[f32]) -> Vec<Vec<f32>> {
    let row = |i: usize| b[i * DIM..(i + 1) * DIM].to_vec();
    let mut qs = vec![row(3), row(17).iter().map(|x| x * 0.75).collect()];
    for (pos, v) in [
        (0, 1e20f32),
        (0, -1e20),
        (5, 3e38),
        (5, -3.4e38),
        (9, f32::MAX),
        (15, -f32::MAX),
    ] {
        let mut q = row(40);
        q[pos] = v;
        qs.push(q);
    }
    qs.push(
        (0..DIM)
            .map(|i| {
                if i % 3 == 0 {
                    -1e20
                } else {
                    3.4e38 / (i + 1) as f32
                }
            })
            .collect(),
    );
    qs.push((0..DIM).map(|i| (i as f32 - 7.0) * 1e-45).collect());
    qs.push(vec![0.0; DIM]);
    qs
}

fn train(b: &[f32], pq_m: Option<usize>) -> TrainedIvf {
    train_with(b, pq_m, Metric::L2)
}

fn train_with(b: &[f32], pq_m: Option<usize>, metric: Metric) -> TrainedIvf {
    ivf::train(
        b,
        DIM,
        &IvfBuildParams {
            nlist: 6,
            pq_m,
            niter: 4,
            metric,
            ..IvfBuildParams::default()
        },
    )
    .unwrap()
}

/// `q·x · 2²⁹⁸`, exactly.
fn exact_dot(q: &[f32], x: &[f32]) -> BigInt {
    q.iter().zip(x).map(|(&a, &b)| exact(a) * exact(b)).sum()
}

/// A signed exact value (scaled by 2²⁹⁸) as an `f64`.
fn signed_f64(scaled: &BigInt) -> f64 {
    if scaled.sign() == num_bigint::Sign::Minus {
        -to_f64(&-scaled)
    } else {
        to_f64(scaled)
    }
}

async fn searcher(name: &str, b: &[f32], t: &TrainedIvf) -> Searcher {
    let loc = store::open(&format!("memory://distances-{name}")).unwrap();
    let order: Vec<u32> = (0..t.nlist() as u32).collect();
    ivf::write(&loc, b, t, &order, "identity", Workload::default())
        .await
        .unwrap();
    let index = Arc::new(Index::open(loc).await.unwrap());
    Searcher::new(index, 4, 0, native_factory()).unwrap()
}

/// Finite, non-decreasing, and each within `1e-12` (relative) of `exact`
/// when given.
fn check_distances(what: &str, got: &[f64], exact: Option<&[BigInt]>) {
    assert!(got.iter().all(|d| d.is_finite()), "{what}: {got:?}");
    assert!(got.windows(2).all(|w| w[0] <= w[1]), "{what}: {got:?}");
    if let Some(exact) = exact {
        for (g, e) in got.iter().zip(exact) {
            let e = to_f64(e);
            assert!(
                (g - e).abs() <= 1e-12 * e || (e == 0.0 && *g == 0.0),
                "{what}: {g} vs exact {e}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_flat_answers_are_exact_at_the_edges() {
    for case in ["sift", "mixed", "subnormal", "large"] {
        let b = base(case);
        let t = train(&b, None);
        let s = searcher(&format!("flat-{case}"), &b, &t).await;
        let params = SearchParams {
            k: K,
            nprobe: t.nlist(),
            ..SearchParams::default()
        };
        for (qi, q) in queries(&b).iter().enumerate() {
            let what = format!("{case} query {qi}");
            let keys: Vec<BigInt> = b.chunks_exact(DIM).map(|x| exact_sq(q, &[x])).collect();
            let want = top_ids(keys.clone(), K);
            let r = s.search(q, &params).await.unwrap();
            let got: Vec<u32> = r.neighbors.iter().map(|n| n.id).collect();
            assert_eq!(got, want, "{what}");
            let d: Vec<f64> = r.neighbors.iter().map(|n| n.distance).collect();
            let e: Vec<BigInt> = want.iter().map(|&i| keys[i as usize].clone()).collect();
            check_distances(&what, &d, Some(&e));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn routing_picks_the_exactly_nearest_centroids() {
    for case in ["sift", "mixed", "subnormal", "large"] {
        let b = base(case);
        let t = train(&b, None);
        let s = searcher(&format!("route-{case}"), &b, &t).await;
        let index = s.index();
        for (qi, q) in queries(&b).iter().enumerate() {
            let keys: Vec<BigInt> = index
                .centroids
                .chunks_exact(DIM)
                .map(|c| exact_sq(q, &[c]))
                .collect();
            let nlist = keys.len();
            assert_eq!(
                index.route(q, nlist).unwrap(),
                top_ids(keys, nlist),
                "{case} query {qi}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ivf_pq_rerank_is_exact_and_adc_follows_the_table() {
    for case in ["sift", "mixed", "subnormal", "large"] {
        let b = base(case);
        let t = train(&b, Some(4));
        let s = searcher(&format!("pq-{case}"), &b, &t).await;
        let (pq, codes) = (t.pq.as_ref().unwrap(), t.codes.as_ref().unwrap());
        let dsub = pq.dsub();
        // Every vector reranked (k · rerank ≥ n): the exact answer.
        let rerank = SearchParams {
            k: K,
            nprobe: t.nlist(),
            rerank: b.len() / DIM / K + 1,
            ..SearchParams::default()
        };
        let adc = SearchParams {
            rerank: 0,
            ..rerank.clone()
        };
        for (qi, q) in queries(&b).iter().enumerate() {
            let what = format!("{case} query {qi}");
            let keys: Vec<BigInt> = b.chunks_exact(DIM).map(|x| exact_sq(q, &[x])).collect();
            let r = s.search(q, &rerank).await.unwrap();
            let got: Vec<u32> = r.neighbors.iter().map(|n| n.id).collect();
            assert_eq!(got, top_ids(keys, K), "{what} rerank");
            let d: Vec<f64> = r.neighbors.iter().map(|n| n.distance).collect();
            check_distances(&format!("{what} rerank"), &d, None);
            // ADC: the distance from q to the reconstruction c_l + codewords.
            let adc_keys: Vec<BigInt> = (0..b.len() / DIM)
                .map(|i| {
                    let l = t.assign[i] as usize;
                    let c = &t.centroids[l * DIM..(l + 1) * DIM];
                    // Coordinate k: codeword codes[i, j] of sub-quantizer j = k / dsub.
                    let y: Vec<f32> = (0..DIM)
                        .map(|k| {
                            let (j, o) = (k / dsub, k % dsub);
                            let c = codes[i * pq.m + j] as usize;
                            pq.codebooks[(j * 256 + c) * dsub + o]
                        })
                        .collect();
                    exact_sq(q, &[c, &y])
                })
                .collect();
            let want = top_ids(adc_keys.clone(), K);
            let r = s.search(q, &adc).await.unwrap();
            let got: Vec<u32> = r.neighbors.iter().map(|n| n.id).collect();
            assert_eq!(got, want, "{what} adc");
            let d: Vec<f64> = r.neighbors.iter().map(|n| n.distance).collect();
            let e: Vec<BigInt> = want.iter().map(|&i| adc_keys[i as usize].clone()).collect();
            check_distances(&format!("{what} adc"), &d, Some(&e));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inner_product_answers_are_finite_and_ranked_at_the_edges() {
    for metric in [Metric::Dot, Metric::Cosine] {
        for case in ["sift", "mixed", "subnormal", "large"] {
            let mut b = base(case);
            prepare_vectors(metric, &mut b, DIM, "base").unwrap();
            let t = train_with(&b, None, metric);
            let s = searcher(&format!("ip-{metric}-{case}"), &b, &t).await;
            let params = SearchParams {
                k: K,
                nprobe: t.nlist(),
                ..SearchParams::default()
            };
            for (qi, q) in queries(&b).iter().enumerate() {
                let what = format!("{metric} {case} query {qi}");
                if metric == Metric::Cosine && q.iter().all(|&v| v == 0.0) {
                    let e = s.search(q, &params).await.unwrap_err().to_string();
                    assert!(e.contains("all zeros") && !e.contains('\n'), "{what}: {e}");
                    continue;
                }
                // Exact keys −q·x (the ranking is the same for cosine: the
                // query's norm is a positive factor), and the rounding bound
                // of each f64 sum: 1e-12 · Σ|q_i x_i| ≥ γ_{d/8+4} · Σ|q_i x_i|.
                let keys: Vec<f64> = b
                    .chunks_exact(DIM)
                    .map(|x| -signed_f64(&exact_dot(q, x)))
                    .collect();
                let tol: Vec<f64> = b
                    .chunks_exact(DIM)
                    .map(|x| {
                        1e-12
                            * q.iter()
                                .zip(x)
                                .map(|(&a, &c)| (f64::from(a) * f64::from(c)).abs())
                                .sum::<f64>()
                    })
                    .collect();
                let mut sorted = keys.clone();
                sorted.sort_by(f64::total_cmp);
                let kth = sorted[K - 1];
                let r = s.search(q, &params).await.unwrap();
                assert_eq!(r.neighbors.len(), K, "{what}");
                let d: Vec<f64> = r.neighbors.iter().map(|n| n.distance).collect();
                assert!(d.iter().all(|v| v.is_finite()), "{what}: {d:?}");
                assert!(d.windows(2).all(|w| w[0] <= w[1]), "{what}: {d:?}");
                let ids: Vec<usize> = r.neighbors.iter().map(|n| n.id as usize).collect();
                for w in ids.windows(2) {
                    let (a, c) = (w[0], w[1]);
                    assert!(
                        keys[a] <= keys[c] + tol[a] + tol[c],
                        "{what}: {a} ranked before {c} but {} > {}",
                        keys[a],
                        keys[c]
                    );
                }
                for &i in &ids {
                    assert!(
                        keys[i] <= kth + tol[i] + tol.iter().cloned().fold(0.0, f64::max),
                        "{what}: {i} (key {}) is not among the exact top {K} (k-th {kth})",
                        keys[i]
                    );
                }
                if metric == Metric::Dot {
                    for (&i, &g) in ids.iter().zip(&d) {
                        assert!((g - keys[i]).abs() <= tol[i], "{what}: {g} vs {}", keys[i]);
                    }
                } else {
                    // 1 − cos within [0, 2], but for the stored vectors'
                    // f32 normalisation (‖x‖ = 1 ± a few ulps).
                    assert!(
                        d.iter().all(|v| (-1e-6..=2.0 + 1e-6).contains(v)),
                        "{what}: {d:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn builds_refuse_base_values_beyond_the_f32_training_bound() {
    let mut b = base("mixed");
    b[7 * DIM + 3] = -3.4e38;
    let params = IvfBuildParams {
        nlist: 6,
        ..IvfBuildParams::default()
    };
    let e = ivf::train(&b, DIM, &params).unwrap_err().to_string();
    assert!(
        e.contains("base vector 7 component 3 is -3.4e38, beyond ±1e15") && !e.contains('\n'),
        "{e}"
    );
}
