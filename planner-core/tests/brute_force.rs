//! Every method against brute-force enumeration of all `2^(n−1)` contiguous
//! partitions, for both surrogate kinds and every kind of `P`.

use planner_core::{
    Breakpoint, Capacity, Interval, Method, Parallelism, PlanRequest, Planner, Request, Surrogate,
    summarize,
};
use proptest::prelude::*;

/// The optimum of an instance by enumeration: `T_P*` (or `(B*, W)` for `P = ∞`),
/// `min W` and `min B` under the budget.
struct Brute {
    t: f64,
    w_at_opt: f64,
    min_w: f64,
    min_b: f64,
    w_at_min_b: f64,
}

fn brute(iv: &[Interval], k_max: usize, s: &Surrogate, p: Parallelism) -> Brute {
    let n = iv.len();
    let mut best = Brute {
        t: f64::INFINITY,
        w_at_opt: f64::INFINITY,
        min_w: f64::INFINITY,
        min_b: f64::INFINITY,
        w_at_min_b: f64::INFINITY,
    };
    if n == 0 {
        return Brute {
            t: 0.0,
            w_at_opt: 0.0,
            min_w: 0.0,
            min_b: 0.0,
            w_at_min_b: 0.0,
        };
    }
    let required: u64 = iv.iter().map(|i| i.len).sum();
    let mut reqs = Vec::with_capacity(n);
    for mask in 0u32..(1 << (n - 1)) {
        if mask.count_ones() as usize + 1 > k_max {
            continue;
        }
        reqs.clear();
        let mut first = 0;
        for i in 0..n {
            if i + 1 == n || mask & (1 << i) != 0 {
                let (o, e) = (iv[first].offset, iv[i].offset + iv[i].len);
                reqs.push(Request {
                    first: first as u32,
                    last: i as u32,
                    offset: o,
                    len: e - o,
                });
                first = i + 1;
            }
        }
        let sum = summarize(&reqs, required, s, p);
        let better = match p {
            Parallelism::Unbounded => (sum.b_ms, sum.w_ms) < (best.t, best.w_at_opt),
            _ => sum.t_ms < best.t,
        };
        if better {
            best.t = sum.t_ms;
            best.w_at_opt = sum.w_ms;
        }
        best.min_w = best.min_w.min(sum.w_ms);
        if (sum.b_ms, sum.w_ms) < (best.min_b, best.w_at_min_b) {
            best.min_b = sum.b_ms;
            best.w_at_min_b = sum.w_ms;
        }
    }
    best
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-9)
}

fn le(a: f64, b: f64) -> bool {
    a <= b + 1e-9 * a.abs().max(b.abs()).max(1e-9)
}

fn intervals(max_n: usize) -> impl Strategy<Value = Vec<Interval>> {
    let item = (
        prop_oneof![
            Just(0u64),
            1u64..4096,
            4096u64..(4 << 20),
            Just(64 << 10),
            Just(1 << 20)
        ],
        prop_oneof![1u64..4096, 4096u64..(1 << 20), Just(256 << 10)],
    );
    (prop::collection::vec(item, 0..=max_n), 0u64..(1 << 40)).prop_map(|(items, base)| {
        let mut at = base;
        items
            .into_iter()
            .map(|(gap, len)| {
                at += gap;
                let iv = Interval::new(at, len);
                at += len;
                iv
            })
            .collect()
    })
}

fn surrogate() -> impl Strategy<Value = Surrogate> {
    let affine = (0.0f64..50.0, 0.0f64..40.0).prop_map(|(f, m)| Surrogate::Affine {
        fixed_ms: f,
        per_mib_ms: m,
    });
    let piecewise =
        prop::collection::vec((1u64..(2 << 20), 0.0f64..20.0), 1..5).prop_map(|steps| {
            let (mut b, mut ms) = (0u64, 0.0);
            Surrogate::Piecewise(
                steps
                    .into_iter()
                    .map(|(db, dm)| {
                        b += db;
                        ms += dm;
                        Breakpoint { bytes: b, ms }
                    })
                    .collect(),
            )
        });
    prop_oneof![affine, piecewise]
}

fn parallelism() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        Just(None),
        Just(Some(1.0)),
        (1.0f64..64.0).prop_map(Some),
        Just(Some(8.0))
    ]
}

fn check_partition(iv: &[Interval], reqs: &[Request]) {
    let mut next = 0u32;
    for r in reqs {
        assert_eq!(r.first, next, "groups must partition contiguously");
        assert!(r.last >= r.first);
        let (s, e) = (
            iv[r.first as usize].offset,
            iv[r.last as usize].offset + iv[r.last as usize].len,
        );
        assert_eq!((r.offset, r.len), (s, e - s));
        next = r.last + 1;
    }
    assert_eq!(next as usize, iv.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn methods_match_brute_force(
        iv in intervals(14),
        k_frac in 0.0f64..1.2,
        s in surrogate(),
        p in parallelism(),
        eps in prop_oneof![Just(0.0), Just(0.01), 0.0f64..0.3],
    ) {
        let n = iv.len();
        let k_max = ((n as f64 * k_frac) as usize).max(1);
        let par = Parallelism::new(p).unwrap();
        let opt = brute(&iv, k_max, &s, par);
        let mut planner = Planner::new(Capacity::new(16, 16)).unwrap();
        for method in [Method::Exact, Method::Frontier, Method::Warp, Method::Lagrangian, Method::MinW, Method::MinB] {
            let e = if method == Method::Exact { 0.0 } else { eps };
            let plan = planner.plan(&PlanRequest { intervals: &iv, k_max, parallelism: p, surrogate: &s, epsilon: e, method }).unwrap();
            check_partition(&iv, plan.requests);
            let sum = plan.summary;
            prop_assert!(sum.requests <= k_max, "{method}: {} requests > k_max {k_max}", sum.requests);
            let lb = sum.lower_bound_ms;
            match method {
                Method::Exact => {
                    prop_assert!(close(sum.t_ms, opt.t), "exact {} vs brute {}", sum.t_ms, opt.t);
                    if par == Parallelism::Unbounded { prop_assert!(close(sum.w_ms, opt.w_at_opt)); }
                    prop_assert!(close(lb.unwrap(), opt.t));
                }
                Method::Frontier | Method::Warp => {
                    prop_assert!(le(sum.t_ms, (1.0 + e) * opt.t), "{method} {} vs brute {} (eps {e})", sum.t_ms, opt.t);
                    prop_assert!(le(lb.unwrap(), opt.t), "{method} lower bound {} > optimum {}", lb.unwrap(), opt.t);
                }
                Method::Lagrangian => {
                    prop_assert!(le(lb.unwrap(), opt.t), "lagrangian lower bound {} > optimum {}", lb.unwrap(), opt.t);
                    prop_assert!(le(opt.t, sum.t_ms));
                }
                Method::MinW => prop_assert!(close(sum.w_ms, opt.min_w), "min_w {} vs {}", sum.w_ms, opt.min_w),
                Method::MinB => {
                    prop_assert!(close(sum.b_ms, opt.min_b), "min_b {} vs {}", sum.b_ms, opt.min_b);
                    prop_assert!(close(sum.w_ms, opt.w_at_min_b), "min_b's W {} vs {}", sum.w_ms, opt.w_at_min_b);
                }
                _ => unreachable!(),
            }
        }
    }
}
