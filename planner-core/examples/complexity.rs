//! Checks the divide-and-conquer DP's `O(n·K·log n)` empirically.
//!
//! `cargo run --release -p planner-core --example complexity`
//!
//! Runs `min_w` with a convex piecewise surrogate (Monge costs, no affine fast
//! path) at `K = n/4` and prints the time per `n·K·log₂ n`: a flat column means
//! the bound holds. The basic `O(n²K)` program (non-convex surrogate) is
//! printed for contrast, per `n²·K`.

use std::time::Instant;

use planner_core::{Breakpoint, Capacity, Method, PlanRequest, Planner, Surrogate};

fn time(planner: &mut Planner, req: &PlanRequest<'_>) -> f64 {
    let runs = 5;
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(planner.plan(req).unwrap().summary);
    }
    start.elapsed().as_secs_f64() / runs as f64
}

fn main() {
    // A tiny fixed cost and steep transfer: more requests always lower W, so
    // the program runs all K layers (no early stop).
    let convex = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 0.01 },
        Breakpoint {
            bytes: 1 << 20,
            ms: 50.0,
        },
        Breakpoint {
            bytes: 64 << 20,
            ms: 4000.0,
        },
    ]);
    let nonconvex = Surrogate::Piecewise(vec![
        Breakpoint { bytes: 0, ms: 0.01 },
        Breakpoint {
            bytes: 1 << 20,
            ms: 60.0,
        },
        Breakpoint {
            bytes: 64 << 20,
            ms: 3000.0,
        },
    ]);
    println!(
        "{:>6} {:>6} {:>12} {:>18} {:>12} {:>16}",
        "n", "K", "monge", "ns/(nK log2 n)", "basic", "ns/(n^2 K)"
    );
    for n in [128usize, 256, 512, 1024, 2048] {
        let k = n / 4;
        let iv = planner_core::workload::ivf_probes(n, 0x9E37_79B9_7F4A_7C15);
        let mut planner = Planner::new(Capacity::new(n, k)).unwrap();
        let req = |s| PlanRequest {
            intervals: &iv,
            k_max: k,
            parallelism: Some(1.0),
            surrogate: s,
            epsilon: 0.0,
            method: Method::MinW,
        };
        let monge = time(&mut planner, &req(&convex));
        let nk_log = (n * k) as f64 * (n as f64).log2();
        // The O(n²K) program is timed up to n = 512 (seconds beyond).
        let (basic, per_cell) = if n <= 512 {
            let t = time(&mut planner, &req(&nonconvex));
            (
                format!("{:.2}ms", t * 1e3),
                format!("{:.3}", t * 1e9 / ((n * n * k) as f64)),
            )
        } else {
            ("skipped".into(), "-".into())
        };
        println!(
            "{n:>6} {k:>6} {:>10.2}ms {:>18.2} {basic:>12} {per_cell:>16}",
            monge * 1e3,
            monge * 1e9 / nk_log,
        );
    }
}
