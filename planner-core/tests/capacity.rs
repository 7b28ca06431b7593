//! ARCHITECTURE §4: capacities are enforced, the workspace is what its formula says,
//! a workspace above the memory limit is refused before anything is allocated,
//! and the caller's interrupt stops a plan.

use planner_core::{
    Breakpoint, Capacity, Interval, Method, PlanError, PlanRequest, Planner, Resource, Surrogate,
};

fn ivf_like(n: usize) -> Vec<Interval> {
    (0..n as u64)
        .map(|i| Interval::new(i * (3 << 20), 4096 + (i % 7) * 50_000))
        .collect()
}

fn request(iv: &[Interval], k_max: usize, method: Method) -> PlanRequest<'_> {
    PlanRequest {
        intervals: iv,
        k_max,
        parallelism: Some(8.0),
        surrogate: &Surrogate::S3,
        epsilon: 0.01,
        method,
    }
}

#[test]
fn over_capacity_is_an_error_not_growth() {
    let mut planner = Planner::new(Capacity::new(8, 4)).unwrap();
    let iv = ivf_like(9);
    let req = request(&iv, 2, Method::Warp);
    assert_eq!(
        planner.plan(&req).unwrap_err(),
        PlanError::CapacityExceeded {
            what: Resource::Intervals,
            requested: 9,
            capacity: 8
        }
    );
    let iv = ivf_like(8);
    let req = request(&iv, 5, Method::Warp);
    assert_eq!(
        planner.plan(&req).unwrap_err(),
        PlanError::CapacityExceeded {
            what: Resource::KMax,
            requested: 5,
            capacity: 4
        }
    );
    // A budget above n is clamped to n, not refused.
    let iv = ivf_like(3);
    assert!(planner.plan(&request(&iv, 100, Method::Warp)).is_ok());
}

#[test]
fn workspace_matches_its_documented_formula() {
    for (n, k) in [(0, 0), (1, 1), (64, 16), (1024, 512)] {
        let cap = Capacity::new(n, k);
        let planner = Planner::new(cap).unwrap();
        let documented = cap.workspace_bytes();
        let held = planner.workspace_bytes() as u64;
        assert!(
            held <= documented,
            "n={n} k={k}: holds {held} > documented {documented}"
        );
        assert!(
            held * 2 + 4096 >= documented,
            "n={n} k={k}: formula {documented} far above {held}"
        );
        for method in Method::ALL {
            let mut p = Planner::with_memory_limit(u64::MAX);
            p.reserve(n, k, &method).unwrap();
            let held = p.workspace_bytes() as u64;
            let documented = cap.workspace_bytes_for(&method);
            assert!(held <= documented, "{method} n={n}: {held} > {documented}");
            assert!(
                held * 2 + 4096 >= documented,
                "{method} n={n}: {held} vs {documented}"
            );
        }
    }
    // Saturates instead of overflowing, on every target.
    assert_eq!(
        Capacity::new(usize::MAX / 2, usize::MAX / 2).workspace_bytes(),
        u64::MAX
    );
}

#[test]
fn baselines_and_lagrangian_need_no_dp_table() {
    let cap = Capacity::new(1_000_000, 1000);
    let table = cap.table_bytes();
    assert!(table >= 4_000_000_000);
    for m in [Method::Separate, Method::LanceRule, Method::Lagrangian] {
        assert!(cap.workspace_bytes_for(&m) < 300 << 20, "{m}");
    }
    assert!(cap.workspace_bytes_for(&Method::MinB) > table);
    // Baselines: bounds and one plan buffer, 64 bytes per interval + 384.
    assert_eq!(
        Capacity::new(1000, 1000).workspace_bytes_for(&Method::Separate),
        16 * 1000 + 24 * 2016
    );
}

#[test]
fn a_workspace_above_the_memory_limit_is_refused_saying_what_to_change() {
    // Issue 10: 1e5 intervals with k_max 1e5 aborted the process.
    let mut planner = Planner::with_memory_limit(Planner::DEFAULT_MEMORY_LIMIT);
    let e = planner
        .reserve(100_000, 100_000, &Method::MinW)
        .unwrap_err();
    let PlanError::MemoryLimit {
        needed,
        table,
        limit,
        intervals,
    } = e
    else {
        panic!("{e}")
    };
    assert!(needed > 40_000_000_000 && table >= 40_000_000_000);
    assert_eq!((limit, intervals), (1 << 30, 100_000));
    let line = e.to_string();
    assert!(
        line.contains("lower k_max") && line.contains("lagrangian"),
        "{line}"
    );
    assert!(!line.contains('\n'));
    assert!(planner.workspace_bytes() < 1024, "nothing was allocated");
    // The same instance plans with a method that needs no table ...
    let iv = ivf_like(100_000);
    for m in [Method::Separate, Method::Lagrangian] {
        planner.reserve(iv.len(), 100_000, &m).unwrap();
        assert!(planner.plan(&request(&iv, 100_000, m)).is_ok(), "{m}");
    }
    // ... and warp plans it too, as lagrangian, since its table does not fit.
    planner.reserve(iv.len(), 100_000, &Method::Warp).unwrap();
    let warp = planner
        .plan(&request(&iv, 100_000, Method::Warp))
        .unwrap()
        .summary;
    planner
        .reserve(iv.len(), 100_000, &Method::Lagrangian)
        .unwrap();
    let lagr = planner
        .plan(&request(&iv, 100_000, Method::Lagrangian))
        .unwrap()
        .summary;
    assert_eq!(warp, lagr);
    // Planning a table method on an unreserved planner is refused, not grown.
    assert!(matches!(
        planner.plan(&request(&iv, 100_000, Method::MinW)),
        Err(PlanError::MemoryLimit { .. })
    ));
    // Baselines beyond the limit say to plan fewer intervals.
    let e = Planner::with_memory_limit(1 << 20)
        .reserve(1 << 20, 1, &Method::Separate)
        .unwrap_err();
    assert!(e.to_string().contains("fewer intervals"), "{e}");
}

#[test]
fn refusal_depends_on_the_instance_not_on_history() {
    let limit = 64 << 20;
    let (n, k) = (4000, 2000); // table 32 MB: fits alone, not beside a large base
    let mut fresh = Planner::with_memory_limit(limit);
    fresh.reserve(n, k, &Method::MinW).unwrap();
    let mut warm = Planner::with_memory_limit(limit);
    warm.reserve(200_000, 1, &Method::Lagrangian).unwrap();
    warm.reserve(n, k, &Method::MinW).unwrap();
    let iv = ivf_like(n);
    let a = fresh.plan(&request(&iv, k, Method::MinW)).unwrap().summary;
    let b = warm.plan(&request(&iv, k, Method::MinW)).unwrap().summary;
    assert_eq!(a, b);
    assert!(warm.workspace_bytes() as u64 <= limit);
}

#[test]
fn the_interrupt_stops_a_long_plan() {
    // Exact on a non-convex surrogate is O(n^4 K)-ish: far beyond any test budget.
    let surrogate = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 18.0 },
        Breakpoint {
            bytes: 256 << 10,
            ms: 27.0,
        },
        Breakpoint {
            bytes: 4 << 20,
            ms: 31.0,
        },
        Breakpoint {
            bytes: 64 << 20,
            ms: 240.0,
        },
    ]);
    let iv = ivf_like(3000);
    let req = PlanRequest {
        surrogate: &surrogate,
        epsilon: 0.0,
        ..request(&iv, 300, Method::Exact)
    };
    let mut planner = Planner::with_memory_limit(Planner::DEFAULT_MEMORY_LIMIT);
    planner.reserve(iv.len(), 300, &req.method).unwrap();
    let mut polls = 0u32;
    let e = planner
        .plan_until(&req, &mut || {
            polls += 1;
            polls > 50
        })
        .unwrap_err();
    assert_eq!(e, PlanError::Interrupted);
    assert_eq!(polls, 51, "no poll after the interrupt fired");
    // A planner that was interrupted plans normally afterwards.
    let small = ivf_like(50);
    assert!(planner.plan(&request(&small, 8, Method::Exact)).is_ok());
    // Baselines and fast plans with an interrupt that never fires are unchanged.
    for m in Method::ALL {
        let r = request(&small, 8, m);
        let a = planner.plan(&r).unwrap().summary;
        let b = planner.plan_until(&r, &mut || false).unwrap().summary;
        assert_eq!(a, b, "{m}");
    }
}
