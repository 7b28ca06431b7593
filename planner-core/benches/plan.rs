//! Planning time of every method on IVF-like probe intervals.
//!
//! IDs: `<method>/n=<n>,k=<K_max>,P=<P|inf>,eps=<ε>`. Intervals are drawn like
//! IVF probes (clumps of nearby clusters, payloads 4 KiB–1 MiB) with a fixed seed.
//! `cargo bench -p planner-core --bench plan`; `scripts/bench-table` turns the
//! medians into the BENCHMARKS.md table.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use planner_core::workload::ivf_probes;
use planner_core::{Capacity, Method, PlanRequest, Planner, Surrogate};

const SEED: u64 = 0x5EED_CAFE;

fn bench(c: &mut Criterion) {
    let surrogate = Surrogate::S3;
    let mut g = c.benchmark_group("plan");
    g.warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .sample_size(20);
    let mut planner = Planner::new(Capacity::new(1024, 1024)).unwrap();
    for n in [32usize, 64, 128, 256, 512, 1024] {
        let iv = ivf_probes(n, SEED ^ n as u64);
        let mut run = |g: &mut criterion::BenchmarkGroup<'_, _>,
                       method: Method,
                       k: usize,
                       p: Option<f64>,
                       eps: f64| {
            let id = format!(
                "{}/n={n},k={k},P={},eps={eps}",
                method.name(),
                p.map_or("inf".to_string(), |p| p.to_string())
            );
            let req = PlanRequest {
                intervals: &iv,
                k_max: k,
                parallelism: p,
                surrogate: &surrogate,
                epsilon: eps,
                method,
            };
            g.bench_function(id, |b| {
                b.iter(|| black_box(planner.plan(black_box(&req)).unwrap().summary))
            });
        };
        for method in [Method::Separate, Method::LanceRule, Method::ObjectStoreRule] {
            run(&mut g, method, n, Some(8.0), 0.0);
        }
        for k in [n / 8, n / 4, n / 2] {
            for method in [Method::MinW, Method::MinB] {
                run(&mut g, method, k, Some(8.0), 0.0);
            }
            for p in [Some(1.0), Some(4.0), Some(16.0), None] {
                for eps in [0.0, 0.01] {
                    for method in [Method::Warp, Method::Frontier, Method::Lagrangian] {
                        run(&mut g, method, k, p, eps);
                    }
                }
                if n <= 64 {
                    run(&mut g, Method::Exact, k, p, 0.0);
                }
            }
        }
        // The headline point.
        if n == 256 {
            run(&mut g, Method::Warp, 128, Some(8.0), 0.01);
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
