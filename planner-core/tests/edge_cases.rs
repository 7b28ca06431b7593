//! Boundary instances (n = 0, 1; K = 1; K ≥ n; touching; offsets near u64::MAX;
//! P = 1 and ∞), the baselines recomputed independently, and every refusal.

use planner_core::{
    Breakpoint, Capacity, Interval, LANCE_MAX_IOP_SIZE, Method, PlanRequest, Planner, Request,
    Surrogate,
};
use proptest::prelude::*;

const WARP_METHODS: [Method; 6] = [
    Method::Warp,
    Method::Exact,
    Method::Frontier,
    Method::Lagrangian,
    Method::MinW,
    Method::MinB,
];

fn req<'a>(
    iv: &'a [Interval],
    k: usize,
    p: Option<f64>,
    s: &'a Surrogate,
    m: Method,
) -> PlanRequest<'a> {
    PlanRequest {
        intervals: iv,
        k_max: k,
        parallelism: p,
        surrogate: s,
        epsilon: 0.01,
        method: m,
    }
}

fn plan(
    iv: &[Interval],
    k: usize,
    p: Option<f64>,
    s: &Surrogate,
    m: Method,
) -> (Vec<Request>, planner_core::PlanSummary) {
    let mut planner = Planner::new(Capacity::new(iv.len().max(1), k.min(iv.len()).max(1))).unwrap();
    let plan = planner.plan(&req(iv, k, p, s, m)).unwrap();
    (plan.requests.to_vec(), plan.summary)
}

#[test]
fn empty_instance_is_the_empty_plan() {
    for m in
        WARP_METHODS
            .iter()
            .chain(&[Method::Separate, Method::LanceRule, Method::ObjectStoreRule])
    {
        let (r, s) = plan(&[], 3, Some(4.0), &Surrogate::S3, *m);
        assert!(r.is_empty());
        assert_eq!(
            (s.requests, s.bytes, s.w_ms, s.b_ms, s.t_ms),
            (0, 0, 0.0, 0.0, 0.0),
            "{m}"
        );
    }
    assert_eq!(
        plan(&[], 3, Some(4.0), &Surrogate::S3, Method::Warp)
            .1
            .lower_bound_ms,
        Some(0.0)
    );
}

#[test]
fn one_interval_is_one_request() {
    let iv = [Interval::new(77, 4096)];
    for m in WARP_METHODS {
        let (r, s) = plan(&iv, 1, None, &Surrogate::S3, m);
        assert_eq!(
            r,
            vec![Request {
                first: 0,
                last: 0,
                offset: 77,
                len: 4096
            }],
            "{m}"
        );
        assert_eq!(s.overfetch_bytes, 0);
        assert_eq!(s.t_ms, Surrogate::S3.eval(4096));
    }
}

#[test]
fn k_max_one_merges_everything() {
    let iv: Vec<Interval> = (0..20u64)
        .map(|i| Interval::new(i * (50 << 20), 8192))
        .collect();
    for m in WARP_METHODS {
        let (r, s) = plan(&iv, 1, Some(8.0), &Surrogate::S3, m);
        assert_eq!(r.len(), 1, "{m}");
        assert_eq!((r[0].first, r[0].last), (0, 19));
        assert_eq!(s.overfetch_bytes, 19 * ((50 << 20) - 8192));
    }
}

#[test]
fn budget_above_n_lets_far_intervals_stand_alone() {
    // Gaps of 1 GiB cost 5 s of transfer: every method keeps them apart.
    let iv: Vec<Interval> = (0..6u64).map(|i| Interval::new(i << 30, 4096)).collect();
    for m in WARP_METHODS {
        let (r, _) = plan(&iv, 100, Some(2.0), &Surrogate::S3, m);
        assert_eq!(r.len(), 6, "{m}");
    }
}

#[test]
fn touching_intervals_merge_for_free() {
    let iv: Vec<Interval> = (0..10u64).map(|i| Interval::new(i * 4096, 4096)).collect();
    for m in WARP_METHODS {
        let (r, s) = plan(&iv, 10, Some(4.0), &Surrogate::S3, m);
        // min_b splits to shorten the longest request; every other method merges.
        if m == Method::MinB {
            assert_eq!(s.overfetch_bytes, 0);
            continue;
        }
        assert_eq!(r.len(), 1, "{m}");
        assert_eq!(s.overfetch_bytes, 0);
    }
}

#[test]
fn offsets_near_u64_max_do_not_overflow() {
    let top = u64::MAX;
    let iv = [
        Interval::new(0, 10),
        Interval::new(top - (1 << 40), 1 << 20),
        Interval::new(top - 4096, 4000),
        Interval::new(top - 96, 96),
    ];
    for m in
        WARP_METHODS
            .iter()
            .chain(&[Method::Separate, Method::LanceRule, Method::ObjectStoreRule])
    {
        for k in [1, 2, 4] {
            for p in [None, Some(1.0), Some(3.0)] {
                let (r, s) = plan(&iv, k, p, &Surrogate::S3, *m);
                assert!(s.t_ms.is_finite(), "{m}");
                if m.respects_k_max() {
                    assert!(r.len() <= k);
                    assert_eq!(r.last().unwrap().offset + r.last().unwrap().len, top);
                }
            }
        }
    }
    // K = 1 spans (almost) the whole u64 range.
    let (r, _) = plan(&iv, 1, Some(2.0), &Surrogate::S3, Method::Warp);
    assert_eq!(r[0].len, top);
}

#[test]
fn p_one_is_min_w_and_p_unbounded_is_min_b() {
    let iv: Vec<Interval> = (0..40u64)
        .map(|i| Interval::new(i * i * 300_000, 10_000 + i * 20_000))
        .collect();
    for k in [3, 10, 40] {
        let w = plan(&iv, k, Some(1.0), &Surrogate::S3, Method::MinW).1;
        let warp1 = plan(&iv, k, Some(1.0), &Surrogate::S3, Method::Warp).1;
        assert_eq!(warp1.t_ms, warp1.w_ms);
        assert!(warp1.w_ms <= w.w_ms * 1.01 && warp1.w_ms >= w.w_ms * (1.0 - 1e-12));
        let b = plan(&iv, k, None, &Surrogate::S3, Method::MinB).1;
        let warp_inf = plan(&iv, k, None, &Surrogate::S3, Method::Warp).1;
        assert_eq!(warp_inf.t_ms, warp_inf.b_ms);
        assert_eq!(warp_inf.b_ms, b.b_ms);
        assert_eq!(b.lower_bound_ms, Some(b.b_ms));
    }
}

#[test]
fn lance_splits_long_ranges_into_near_equal_pieces() {
    // Three 16 MiB payloads 32 KiB apart merge into one 48 MiB + 64 KiB range: 4 pieces.
    let mib = 1u64 << 20;
    let iv: Vec<Interval> = (0..3u64)
        .map(|i| Interval::new(i * (16 * mib + 32 * 1024), 16 * mib))
        .collect();
    let (r, s) = plan(&iv, 3, Some(8.0), &Surrogate::S3, Method::LanceRule);
    let total = 48 * mib + 64 * 1024;
    assert_eq!(r.len(), 4);
    assert_eq!(r.iter().map(|q| q.len).sum::<u64>(), total);
    assert!(
        r.iter()
            .all(|q| q.len <= LANCE_MAX_IOP_SIZE && q.len >= total / 4)
    );
    assert_eq!(r[0].offset, 0);
    for w in r.windows(2) {
        assert_eq!(w[0].offset + w[0].len, w[1].offset, "pieces are contiguous");
    }
    // Each piece lists exactly the intervals it intersects.
    for q in &r {
        for (i, iv) in iv.iter().enumerate() {
            let hit = iv.offset < q.offset + q.len && q.offset < iv.offset + iv.len;
            assert_eq!(hit, (q.first as usize..=q.last as usize).contains(&i));
        }
    }
    assert_eq!(s.requests, 4);
    assert_eq!(s.overfetch_bytes, 64 * 1024);
}

fn ref_coalesce(iv: &[Interval], max_gap: u64, max_span: Option<u64>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for i in 0..iv.len() {
        if let Some(last) = out.last_mut() {
            let gap = iv[i].offset - (iv[i - 1].offset + iv[i - 1].len);
            let span = iv[i].offset + iv[i].len - iv[last.0].offset;
            if gap <= max_gap && max_span.is_none_or(|m| span <= m) {
                last.1 = i;
                continue;
            }
        }
        out.push((i, i));
    }
    out
}

proptest! {
    #[test]
    fn baselines_match_independent_reimplementations(
        items in prop::collection::vec((0u64..(3 << 20), 1u64..(2 << 20)), 0..60),
        max_gap in 0u64..(2 << 20),
        max_span in prop::option::of(1u64..(8 << 20)),
    ) {
        let mut at = 0;
        let iv: Vec<Interval> = items.iter().map(|&(g, l)| { at += g; let v = Interval::new(at, l); at += l; v }).collect();
        let s = Surrogate::Piecewise(vec![Breakpoint { bytes: 0, ms: 20.0 }, Breakpoint { bytes: 1 << 20, ms: 30.0 }]);
        let groups = |r: &[Request]| r.iter().map(|q| (q.first as usize, q.last as usize)).collect::<Vec<_>>();
        let (r, sum) = plan(&iv, 4, Some(3.0), &s, Method::Separate);
        prop_assert_eq!(groups(&r), (0..iv.len()).map(|i| (i, i)).collect::<Vec<_>>());
        prop_assert_eq!(sum.overfetch_bytes, 0);
        let (r, _) = plan(&iv, 4, Some(3.0), &s, Method::Coalesce { max_gap, max_span });
        prop_assert_eq!(groups(&r), ref_coalesce(&iv, max_gap, max_span));
        let (r, sum) = plan(&iv, 4, Some(3.0), &s, Method::ObjectStoreRule);
        prop_assert_eq!(groups(&r), ref_coalesce(&iv, 1 << 20, None));
        // W, B and bytes recomputed from the ranges.
        let w: f64 = r.iter().map(|q| s.eval(q.len)).sum();
        let b = r.iter().map(|q| s.eval(q.len)).fold(0.0, f64::max);
        prop_assert_eq!(sum.w_ms, w);
        prop_assert_eq!(sum.b_ms, b);
        prop_assert_eq!(sum.bytes, r.iter().map(|q| q.len).sum::<u64>());
        prop_assert_eq!(sum.t_ms, w / 3.0 + (1.0 - 1.0 / 3.0) * b);
        // Lance: 64 KiB coalescing, then pieces of at most 16 MiB covering each group.
        let (r, _) = plan(&iv, 4, Some(3.0), &s, Method::LanceRule);
        let merged = ref_coalesce(&iv, 64 << 10, None);
        let mut pieces = r.iter();
        for (f, l) in merged {
            let (start, end) = (iv[f].offset, iv[l].offset + iv[l].len);
            let mut at = start;
            while at < end {
                let q = pieces.next().unwrap();
                prop_assert_eq!(q.offset, at);
                prop_assert!(q.len <= LANCE_MAX_IOP_SIZE);
                at += q.len;
            }
            prop_assert_eq!(at, end);
        }
        prop_assert!(pieces.next().is_none());
    }
}

#[test]
fn every_refusal_names_its_field() {
    let s = Surrogate::S3;
    let ok = [Interval::new(0, 10), Interval::new(20, 10)];
    let mut planner = Planner::new(Capacity::new(8, 8)).unwrap();
    let mut check = |r: PlanRequest<'_>, want: &str| {
        assert_eq!(planner.plan(&r).unwrap_err().to_string(), want);
    };
    check(
        req(
            &[Interval::new(0, 10), Interval::new(5, 10)],
            2,
            None,
            &s,
            Method::Warp,
        ),
        "intervals[1]: offset 5 is before the end 10 of intervals[0] (intervals must be sorted and non-overlapping)",
    );
    check(
        req(
            &[Interval::new(50, 10), Interval::new(5, 10)],
            2,
            None,
            &s,
            Method::Warp,
        ),
        "intervals[1]: offset 5 is before the end 60 of intervals[0] (intervals must be sorted and non-overlapping)",
    );
    check(
        req(&[Interval::new(0, 0)], 2, None, &s, Method::Warp),
        "intervals[0]: empty interval (len must be >= 1)",
    );
    check(
        req(&[Interval::new(u64::MAX, 1)], 2, None, &s, Method::Warp),
        "intervals[0]: offset + len overflows u64",
    );
    check(req(&ok, 0, None, &s, Method::Warp), "k_max: must be >= 1");
    check(
        req(&ok, 2, Some(0.5), &s, Method::Warp),
        "parallelism: must be a finite number >= 1 or null (unbounded), got 0.5",
    );
    check(
        req(&ok, 2, Some(f64::NAN), &s, Method::Warp),
        "parallelism: must be a finite number >= 1 or null (unbounded), got NaN",
    );
    check(
        PlanRequest {
            epsilon: -0.1,
            ..req(&ok, 2, None, &s, Method::Warp)
        },
        "epsilon: must be a finite number >= 0, got -0.1",
    );
    let neg = Surrogate::Affine {
        fixed_ms: 25.0,
        per_mib_ms: f64::INFINITY,
    };
    check(
        req(&ok, 2, None, &neg, Method::Warp),
        "surrogate.affine.per_mib_ms: must be finite and >= 0, got inf",
    );
    let dec = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 5.0 },
        Breakpoint { bytes: 9, ms: 4.0 },
    ]);
    check(
        req(&ok, 2, None, &dec, Method::Warp),
        "surrogate.piecewise[1].ms: smaller than the previous breakpoint's ms (the surrogate must be nondecreasing)",
    );
    let huge = Surrogate::Affine {
        fixed_ms: 1.0,
        per_mib_ms: 1e300,
    };
    let far = [Interval::new(0, 1), Interval::new(1 << 62, 1)];
    check(
        req(&far, 2, None, &huge, Method::Warp),
        "surrogate: request time for the total span of 4611686018427387905 bytes is not finite",
    );
    check(
        req(
            &ok,
            2,
            None,
            &s,
            Method::Coalesce {
                max_gap: 1,
                max_span: Some(0),
            },
        ),
        "method.coalesce.max_span: must be >= 1 or null",
    );
}
