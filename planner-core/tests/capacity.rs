//! DESIGN §4: capacities are enforced, and the workspace is what its formula says.

use planner_core::{Capacity, Interval, Method, PlanError, PlanRequest, Planner, Surrogate};

fn ivf_like(n: usize) -> Vec<Interval> {
    (0..n as u64)
        .map(|i| Interval::new(i * (3 << 20), 4096 + (i % 7) * 50_000))
        .collect()
}

#[test]
fn over_capacity_is_an_error_not_growth() {
    let mut planner = Planner::new(Capacity::new(8, 4)).unwrap();
    let iv = ivf_like(9);
    let req = PlanRequest {
        intervals: &iv,
        k_max: 2,
        parallelism: None,
        surrogate: &Surrogate::S3,
        epsilon: 0.01,
        method: Method::Warp,
    };
    assert_eq!(
        planner.plan(&req).unwrap_err(),
        PlanError::CapacityExceeded {
            what: "intervals",
            requested: 9,
            capacity: 8
        }
    );
    let iv = ivf_like(8);
    let req = PlanRequest {
        k_max: 5,
        intervals: &iv,
        ..req
    };
    assert_eq!(
        planner.plan(&req).unwrap_err(),
        PlanError::CapacityExceeded {
            what: "k_max",
            requested: 5,
            capacity: 4
        }
    );
    // A budget above n is clamped to n, not refused.
    let iv = ivf_like(3);
    assert!(
        planner
            .plan(&PlanRequest {
                k_max: 100,
                intervals: &iv,
                ..req
            })
            .is_ok()
    );
}

#[test]
fn workspace_matches_its_documented_formula() {
    for (n, k) in [(0, 0), (1, 1), (64, 16), (1024, 512)] {
        let cap = Capacity::new(n, k);
        let planner = Planner::new(cap).unwrap();
        let documented = cap.workspace_bytes().unwrap();
        let held = planner.workspace_bytes();
        assert!(
            held <= documented,
            "n={n} k={k}: holds {held} > documented {documented}"
        );
        assert!(
            held * 2 >= documented,
            "n={n} k={k}: formula {documented} far above {held}"
        );
    }
    assert!(
        Capacity::new(usize::MAX / 2, usize::MAX / 2)
            .workspace_bytes()
            .is_err()
    );
}
