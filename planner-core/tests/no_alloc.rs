//! ARCHITECTURE §4: after construction, planning within capacity allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use planner_core::{
    Breakpoint, Capacity, Interval, Method, PlanError, PlanRequest, Planner, Surrogate,
};

/// Counts allocations made by threads that opted in (the test thread), so the
/// harness's own threads do not disturb the count.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn planning_within_capacity_allocates_nothing() {
    let affine = Surrogate::S3;
    let convex = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 20.0 },
        Breakpoint {
            bytes: 1 << 20,
            ms: 26.0,
        },
        Breakpoint {
            bytes: 8 << 20,
            ms: 70.0,
        },
    ]);
    let nonconvex = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 20.0 },
        Breakpoint {
            bytes: 256 << 10,
            ms: 29.0,
        },
        Breakpoint {
            bytes: 16 << 20,
            ms: 60.0,
        },
    ]);
    let instances: Vec<Vec<Interval>> = [0, 1, 2, 9, 40, 128]
        .iter()
        .map(|&n| planner_core::workload::ivf_probes(n, 7 + n as u64))
        .collect();
    let mut planner = Planner::new(Capacity::new(128, 64)).unwrap();
    let methods = [
        Method::Warp,
        Method::Frontier,
        Method::Lagrangian,
        Method::MinW,
        Method::MinB,
        Method::Separate,
        Method::Coalesce {
            max_gap: 1 << 16,
            max_span: Some(1 << 24),
        },
        Method::LanceRule,
        Method::ObjectStoreRule,
    ];
    COUNTING.with(|c| c.set(true));
    // The counter sees this thread's allocations.
    let probe = ALLOCATIONS.load(Ordering::SeqCst);
    drop(std::hint::black_box(Vec::<u64>::with_capacity(3)));
    assert_eq!(ALLOCATIONS.load(Ordering::SeqCst), probe + 1);
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let mut plans = 0;
    for iv in &instances {
        for s in [&affine, &convex, &nonconvex] {
            for p in [None, Some(1.0), Some(8.0)] {
                for k in [1, 4, 64] {
                    for method in methods {
                        let req = PlanRequest {
                            intervals: iv,
                            k_max: k,
                            parallelism: p,
                            surrogate: s,
                            epsilon: 0.01,
                            method,
                        };
                        let plan = planner.plan(&req).unwrap();
                        assert!(plan.summary.requests >= usize::from(!iv.is_empty()));
                        plans += 1;
                    }
                }
            }
        }
        // The exact reference also stays in its workspace (small n only: it is O(n²) DPs).
        if iv.len() <= 9 {
            let req = PlanRequest {
                intervals: iv,
                k_max: 3,
                parallelism: Some(4.0),
                surrogate: &affine,
                epsilon: 0.0,
                method: Method::Exact,
            };
            planner.plan(&req).unwrap();
        }
    }
    // Errors allocate nothing either.
    let bad = [Interval::new(10, 5), Interval::new(12, 5)];
    let req = PlanRequest {
        intervals: &bad,
        k_max: 2,
        parallelism: None,
        surrogate: &affine,
        epsilon: 0.01,
        method: Method::Warp,
    };
    assert!(matches!(
        planner.plan(&req),
        Err(PlanError::Overlapping { index: 1, .. })
    ));
    let after = ALLOCATIONS.load(Ordering::SeqCst);
    COUNTING.with(|c| c.set(false));
    assert!(plans > 1000);
    assert_eq!(
        after - before,
        0,
        "{} heap allocations during {plans} planning calls",
        after - before
    );
}
