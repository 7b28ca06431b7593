//! Checks the divide-and-conquer DP's `O(n·K·log n)` empirically.
//!
//! `cargo run --release -p planner-core --example complexity`
//!
//! Runs `min_w` with a convex piecewise surrogate (Monge costs, no affine fast
//! path) at `K = n/4` and prints the time per `n·K·log₂ n`: a flat column means
//! the bound holds. The basic `O(n²K)` program (non-convex surrogate) is
//! printed for contrast, per `n²·K`.

use std::time::Instant;

use planner_core::{Breakpoint, Capacity, Interval, Method, PlanRequest, Planner, Surrogate};

fn probes(n: usize) -> Vec<Interval> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut at = 0u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            at += (x % 8) << 18;
            let iv = Interval::new(at, 4096 + x % (1 << 20));
            at += iv.len;
            iv
        })
        .collect()
}

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
        let iv = probes(n);
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
        let basic = if n <= 512 {
            time(&mut planner, &req(&nonconvex))
        } else {
            f64::NAN
        };
        println!(
            "{n:>6} {k:>6} {:>10.2}ms {:>18.2} {:>10.2}ms {:>16.3}",
            monge * 1e3,
            monge * 1e9 / nk_log,
            basic * 1e3,
            basic * 1e9 / ((n * n * k) as f64)
        );
    }
}
