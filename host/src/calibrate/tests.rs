//! Unit tests of the fits: recovery of known surrogates from noisy
//! measurements, and shape guarantees on adversarial input.

use planner_core::{Breakpoint, MIB, Surrogate};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// Sizes from 4 KiB to 64 MiB in steps of `factor`.
fn sizes(factor: f64) -> Vec<u64> {
    let mut out = vec![4096u64];
    while *out.last().unwrap() < 64 << 20 {
        let next = ((*out.last().unwrap() as f64) * factor).round() as u64;
        out.push(next.min(64 << 20));
    }
    out
}

/// Medians of `reps` noisy draws of `truth` per size: multiplicative noise
/// uniform in ±`noise`, plus one 5× outlier per size when `outliers`.
fn noisy(truth: &Surrogate, sizes: &[u64], reps: usize, noise: f64, seed: u64) -> Vec<Point> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    sizes
        .iter()
        .map(|&b| {
            let mut v: Vec<f64> = (0..reps)
                .map(|_| truth.eval(b) * (1.0 + rng.random_range(-noise..=noise)))
                .collect();
            v.push(5.0 * truth.eval(b)); // a tail sample: the median ignores it
            v.sort_by(f64::total_cmp);
            Point {
                bytes: b,
                ms: percentile(&v, 0.5),
            }
        })
        .collect()
}

fn pw(points: &[(u64, f64)]) -> Surrogate {
    Surrogate::Piecewise(
        points
            .iter()
            .map(|&(bytes, ms)| Breakpoint { bytes, ms })
            .collect(),
    )
}

/// MAPE of `fit` against `truth` on sizes between the measured ones.
fn between_mape(fit: &Surrogate, truth: &Surrogate, sizes: &[u64]) -> f64 {
    let mids: Vec<u64> = sizes.windows(2).map(|w| (w[0] + w[1]) / 2).collect();
    100.0
        * mids
            .iter()
            .map(|&b| (fit.eval(b) - truth.eval(b)).abs() / truth.eval(b))
            .sum::<f64>()
        / mids.len() as f64
}

#[test]
fn affine_recovers_the_s3_profile() {
    let truth = Surrogate::S3;
    let s = sizes(2.0);
    let pts = noisy(&truth, &s, 7, 0.03, 1);
    let fits = fit_all(&pts).unwrap();
    let affine = &fits[0];
    assert_eq!(affine.kind, FitKind::Affine);
    let Surrogate::Affine {
        fixed_ms,
        per_mib_ms,
    } = affine.surrogate
    else {
        panic!("affine fit is not affine")
    };
    assert!((fixed_ms - 25.0).abs() < 0.5, "{fixed_ms}");
    assert!((per_mib_ms - 5.0).abs() < 0.1, "{per_mib_ms}");
    let mape = affine.loso_mape.unwrap();
    assert!(mape < 2.0, "held-out MAPE {mape}");
    assert!(between_mape(&affine.surrogate, &truth, &s) < 2.0);
}

#[test]
fn convex_recovers_a_convex_kinked_profile() {
    // Flat-ish below 8 MiB, then a per-connection cap binds: slope 5 -> 12.
    let truth = pw(&[(0, 25.0), (8 << 20, 65.0), (64 << 20, 65.0 + 12.0 * 56.0)]);
    let s = sizes(1.25);
    let pts = noisy(&truth, &s, 9, 0.02, 2);
    let fit = fit_convex(&pts);
    assert!(fit.is_convex() && fit.validate().is_ok());
    let mape = loso_mape(FitKind::Convex, &pts).unwrap();
    assert!(mape < 2.0, "held-out MAPE {mape}");
    assert!(between_mape(&fit, &truth, &s) < 2.0);
    // The affine fit cannot follow the kink as well.
    let affine = loso_mape(FitKind::Affine, &pts).unwrap();
    assert!(affine > mape, "affine {affine} vs convex {mape}");
}

#[test]
fn monotone_recovers_a_nonconvex_profile() {
    // Steep then flat then steep: monotone, not convex.
    let truth = pw(&[
        (0, 20.0),
        (256 << 10, 30.0),
        (4 << 20, 32.0),
        (64 << 20, 350.0),
    ]);
    let s = sizes(1.25);
    let pts = noisy(&truth, &s, 9, 0.02, 3);
    let fit = fit_monotone(&pts);
    assert!(fit.validate().is_ok());
    let mape = loso_mape(FitKind::Monotone, &pts).unwrap();
    assert!(mape < 2.0, "held-out MAPE {mape}");
    assert!(between_mape(&fit, &truth, &s) < 2.0);
}

#[test]
fn convex_fit_reproduces_convex_data_exactly() {
    let truth = pw(&[(1000, 10.0), (2000, 11.0), (4000, 14.0), (8000, 30.0)]);
    let pts: Vec<Point> = [1000u64, 2000, 3000, 4000, 6000, 8000]
        .iter()
        .map(|&b| Point {
            bytes: b,
            ms: truth.eval(b),
        })
        .collect();
    let Surrogate::Piecewise(fit) = fit_convex(&pts) else {
        panic!()
    };
    for (p, q) in pts.iter().zip(&fit) {
        assert!((p.ms - q.ms).abs() < 1e-6, "{p:?} vs {q:?}");
    }
}

#[test]
fn adversarial_shapes() {
    let flat: Vec<Point> = (1..=6)
        .map(|i| Point {
            bytes: i << 20,
            ms: 40.0,
        })
        .collect();
    let decreasing: Vec<Point> = (1..=6)
        .map(|i| Point {
            bytes: i << 20,
            ms: 100.0 - 10.0 * i as f64,
        })
        .collect();
    let single = vec![Point {
        bytes: 4096,
        ms: 25.0,
    }];
    for pts in [&flat, &decreasing, &single] {
        for f in fit_all(pts).unwrap() {
            assert!(f.surrogate.validate().is_ok(), "{f:?}");
            if f.kind != FitKind::Monotone {
                assert!(f.surrogate.is_convex(), "{f:?}");
            }
        }
    }
    // Flat in, flat out.
    let Surrogate::Piecewise(c) = fit_convex(&flat) else {
        panic!()
    };
    assert!(c.iter().all(|p| (p.ms - 40.0).abs() < 1e-9), "{c:?}");
    // Decreasing in: the best nondecreasing fit is the flat mean.
    let Surrogate::Piecewise(c) = fit_convex(&decreasing) else {
        panic!()
    };
    assert!(c.iter().all(|p| (p.ms - 65.0).abs() < 1e-6), "{c:?}");
    assert_eq!(fit_all(&single).unwrap()[1].loso_mape, None);
    assert!(check_points(&[]).is_err());
    let bad = [Point { bytes: 2, ms: 1.0 }, Point { bytes: 2, ms: 1.0 }];
    assert!(
        check_points(&bad)
            .unwrap_err()
            .to_string()
            .contains("increase")
    );
    let nan = [Point {
        bytes: 2,
        ms: f64::NAN,
    }];
    assert!(check_points(&nan).is_err());
}

#[test]
fn choice_prefers_simpler_fits_within_the_margin() {
    let s = Surrogate::S3;
    let fit = |kind, e| Fit {
        kind,
        surrogate: s.clone(),
        loso_mape: Some(e),
    };
    let fits = [
        fit(FitKind::Affine, 3.0),
        fit(FitKind::Convex, 2.5),
        fit(FitKind::Monotone, 0.5),
    ];
    assert_eq!(choose(&fits).kind, FitKind::Monotone);
    let fits = [
        fit(FitKind::Affine, 3.0),
        fit(FitKind::Convex, 1.5),
        fit(FitKind::Monotone, 1.0),
    ];
    assert_eq!(choose(&fits).kind, FitKind::Convex);
    let fits = [
        fit(FitKind::Affine, 1.0),
        fit(FitKind::Convex, 0.5),
        fit(FitKind::Monotone, 0.2),
    ];
    assert_eq!(choose(&fits).kind, FitKind::Affine);
}

#[test]
fn spec_round_trips_in_the_design_form() {
    let spec = SurrogateSpec::from(&Surrogate::S3);
    assert_eq!(
        spec.to_json(),
        r#"{"affine":{"fixed_ms":25.0,"per_mib_ms":5.0}}"#
    );
    let p = SurrogateSpec::from(&pw(&[(4096, 25.0), (1 << 20, 30.0)]));
    assert_eq!(p.to_json(), r#"{"piecewise":[[4096,25.0],[1048576,30.0]]}"#);
    let back: SurrogateSpec = serde_json::from_str(&p.to_json()).unwrap();
    assert_eq!(back, p);
    let bad: SurrogateSpec = serde_json::from_str(r#"{"piecewise":[[10,5.0],[20,4.0]]}"#).unwrap();
    assert!(bad.to_surrogate().is_err());
}

#[test]
fn sizes_and_bounds() {
    assert_eq!(log_sizes(4096, 16384).unwrap(), vec![4096, 8192, 16384]);
    assert_eq!(log_sizes(1000, 3000).unwrap(), vec![1000, 2000, 3000]);
    assert!(log_sizes(0, 10).is_err());
    assert!(log_sizes(10, 5).is_err());
    assert!(log_sizes(1, MAX_SIZE + 1).is_err());
    let cfg = MeasureConfig {
        sizes: vec![4096, 1 << 20],
        repeats: 5,
        concurrency: vec![1, 8],
        seed: 1,
    };
    assert_eq!(cfg.total_gets(), 2 * 5 + 2 * 8);
    assert!(cfg.validate(1 << 20).is_ok());
    let e = cfg.validate(1000).unwrap_err().to_string();
    assert!(e.contains("larger than the object"), "{e}");
    let many = MeasureConfig {
        repeats: MAX_REPEATS,
        concurrency: vec![MAX_CONCURRENCY; 64],
        ..cfg.clone()
    };
    assert!(
        many.validate(1 << 20)
            .unwrap_err()
            .to_string()
            .contains("GETs")
    );
    let zero = MeasureConfig {
        concurrency: vec![0],
        ..cfg
    };
    assert!(zero.validate(1 << 20).is_err());
}

/// Emits `surrogate` into a ARCHITECTURE §5 instance and plans it with planner-core.
fn planner_accepts(surrogate: &Surrogate) -> bool {
    let spec = serde_json::to_value(SurrogateSpec::from(surrogate)).unwrap();
    let instance = serde_json::json!({
        "intervals": [[0, 4096], [1 << 20, 65536], [8 << 20, 1 << 20]],
        "k_max": 3,
        "parallelism": 2.0,
        "surrogate": spec,
    });
    planner_core::json::plan_json(&instance.to_string()).is_ok()
}

/// Adversarial measurement sets: random, flat, decreasing, with outliers.
fn points_strategy() -> impl Strategy<Value = Vec<Point>> {
    (
        prop::collection::vec((1u64..(1 << 26), 0.0f64..2000.0), 1..24),
        0u8..4,
    )
        .prop_map(|(mut raw, shape)| {
            raw.sort_by_key(|r| r.0);
            raw.dedup_by_key(|r| r.0);
            let n = raw.len();
            raw.into_iter()
                .enumerate()
                .map(|(i, (bytes, ms))| Point {
                    bytes,
                    ms: match shape {
                        0 => ms,
                        1 => 42.0,
                        2 => 1000.0 - 1000.0 * i as f64 / n as f64,
                        _ => {
                            if i % 5 == 2 {
                                ms * 50.0
                            } else {
                                25.0 + 5.0 * bytes as f64 / MIB
                            }
                        }
                    },
                })
                .collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn every_fit_is_valid_and_convex_fit_is_convex(points in points_strategy()) {
        let fits = fit_all(&points).unwrap();
        for f in &fits {
            prop_assert!(f.surrogate.validate().is_ok(), "{:?}", f);
            prop_assert!(planner_accepts(&f.surrogate), "{:?}", f);
            if let Some(m) = f.loso_mape {
                prop_assert!(m.is_finite() && m >= 0.0);
            }
        }
        let convex = &fits[1].surrogate;
        prop_assert!(convex.is_convex(), "{:?}", convex);
        prop_assert!(fits[0].surrogate.is_convex());
        // Nondecreasing everywhere, including between and beyond breakpoints.
        let mut prev = 0.0_f64;
        for i in 0..=200u64 {
            let v = convex.eval(i << 19);
            prop_assert!(v >= prev, "t({}) = {} < {}", i << 19, v, prev);
            prev = v;
        }
    }
}
